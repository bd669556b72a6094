/**
 * Certificate signing requests through the API server, as client-go's csr package does them:
 * write the PKCS#10 request (with @peculiar/x509), create the CertificateSigningRequest (reusing
 * one of the same name made earlier for the same key), then list and watch it until it is issued,
 * denied or failed.
 */
import type { ApiClient } from "../apiclient/types.ts";
import { ApiError, isApiStatus } from "../apiclient/types.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { type KeyKind, type RequestKey, signingAlgorithm } from "./keys.ts";
import { x509Library } from "./_x509_lib.ts";

export const CSR_PATH = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
/** certificates.k8s.io signer names (k8s.io/api/certificates/v1). */
export const KUBE_APISERVER_CLIENT_KUBELET_SIGNER = "kubernetes.io/kube-apiserver-client-kubelet";
export const KUBELET_SERVING_SIGNER = "kubernetes.io/kubelet-serving";

/** What a request asks for: the subject and, for serving certificates, the names. */
export interface CertificateTemplate {
  commonName: string;
  organizations: readonly string[];
  dnsNames?: readonly string[];
  ipAddresses?: readonly string[];
}

export type KeyUsage = "digital signature" | "key encipherment" | "client auth" | "server auth";

/** Upstream DefaultKubeletClientGetUsages: key encipherment only for RSA keys. */
export function kubeletClientUsages(kind: KeyKind): KeyUsage[] {
  return kind === "rsa"
    ? ["digital signature", "key encipherment", "client auth"]
    : ["digital signature", "client auth"];
}

/** Upstream DefaultKubeletServingGetUsages. */
export function kubeletServingUsages(kind: KeyKind): KeyUsage[] {
  return kind === "rsa"
    ? ["digital signature", "key encipherment", "server auth"]
    : ["digital signature", "server auth"];
}

/** The CSR was denied or failed; `reason` and `message` are the condition's. */
export class CsrRefusedError extends DenoletError {}

/** The CSR could not be created, or an existing one of the same name cannot be reused. */
export class CsrCreateError extends DenoletError {}

export interface Csr {
  metadata?: { name?: string; uid?: string; resourceVersion?: string };
  spec?: { request?: string; signerName?: string; usages?: string[] };
  status?: {
    certificate?: string;
    conditions?: { type: string; status?: string; reason?: string; message?: string }[];
  };
}

/**
 * A PKCS#10 request for `template` signed with `key` (Go's x509.CreateCertificateRequest as
 * certutil.MakeCSRFromTemplate calls it): subject O then CN, SANs in an extension request.
 */
export async function makeCsrPem(key: RequestKey, template: CertificateTemplate): Promise<string> {
  const x = await x509Library();
  const names = [
    ...(template.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(template.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  const csr = await x.Pkcs10CertificateRequestGenerator.create({
    name: [
      ...(template.organizations.length ? [{ O: [...template.organizations] }] : []),
      { CN: [template.commonName] },
    ],
    keys: key.keys,
    signingAlgorithm: signingAlgorithm(key.kind),
    extensions: names.length ? [new x.SubjectAlternativeNameExtension(names)] : [],
  });
  return csr.toString("pem").replace(/\r\n/g, "\n").trimEnd() + "\n";
}

/**
 * Creates the CSR (named `name`, or `csr-<random>`) and returns its name and UID. When `name`
 * exists already (a restart while waiting) it is reused if it asks for the same subject and
 * signer with the same key. Throws CsrCreateError with the API server's answer.
 */
export async function createCsr(
  client: ApiClient,
  req: {
    pem: string;
    key: RequestKey;
    signerName: string;
    usages: readonly KeyUsage[];
    name?: string;
    expirationSeconds?: number;
    signal?: AbortSignal;
  },
): Promise<{ name: string; uid: string }> {
  const body = {
    apiVersion: "certificates.k8s.io/v1",
    kind: "CertificateSigningRequest",
    metadata: req.name ? { name: req.name } : { generateName: "csr-" },
    spec: {
      request: btoa(req.pem),
      signerName: req.signerName,
      usages: [...req.usages],
      ...(req.expirationSeconds ? { expirationSeconds: req.expirationSeconds } : {}),
    },
  };
  let created: Csr;
  try {
    created = await client.request<Csr>(
      { method: "POST", path: CSR_PATH, body },
      { signal: req.signal },
    );
  } catch (err) {
    if (!(req.name && isApiStatus(err, 409))) {
      throw new CsrCreateError(
        `Cannot create certificate signing request: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    const existing = await client.request<Csr>(
      { method: "GET", path: `${CSR_PATH}/${req.name}` },
      { signal: req.signal },
    );
    await ensureCompatible(existing, req);
    created = existing;
  }
  return { name: created.metadata?.name ?? "", uid: created.metadata?.uid ?? "" };
}

/** Upstream ensureCompatible: same subject, signer and key; not already expired. */
async function ensureCompatible(
  existing: Csr,
  req: { pem: string; key: RequestKey; signerName: string; name?: string },
): Promise<void> {
  const x = await x509Library();
  const incompatible = (why: string) =>
    new CsrCreateError(`Certificate signing request ${req.name} exists and is not ours: ${why}`);
  let theirs;
  try {
    theirs = new x.Pkcs10CertificateRequest(atob(existing.spec?.request ?? ""));
  } catch (cause) {
    throw new CsrCreateError(`Certificate signing request ${req.name} does not parse`, { cause });
  }
  const ours = new x.Pkcs10CertificateRequest(req.pem);
  if (theirs.subject !== ours.subject) throw incompatible(`its subject is ${theirs.subject}`);
  const signer = existing.spec?.signerName;
  if (signer && signer !== req.signerName) throw incompatible(`its signer is ${signer}`);
  if (!equalBytes(new Uint8Array(theirs.publicKey.rawData), req.key.spki)) {
    throw incompatible("it is for another key");
  }
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Waits until the CSR `name` (with `uid`) is approved and issued and returns the certificate
 * (PEM), as upstream's WaitForCertificate: a list, then a watch, again after each watch ends.
 * Throws CsrRefusedError when it is denied or failed, or deleted or replaced; aborting the
 * signal (the caller's deadline) ends the wait with the signal's reason.
 */
export async function waitForCertificate(
  client: ApiClient,
  csr: { name: string; uid: string },
  opts: { signal: AbortSignal; onApproved?: () => void },
): Promise<string> {
  const { signal } = opts;
  const fieldSelector = `metadata.name=${csr.name}`;
  let approvedSeen = false;
  const check = (obj: Csr | undefined, deleted = false): string | undefined => {
    if (deleted || obj === undefined) {
      throw new CsrRefusedError(`Certificate signing request ${csr.name} was deleted`);
    }
    if (csr.uid && obj.metadata?.uid && obj.metadata.uid !== csr.uid) {
      throw new CsrRefusedError(`Certificate signing request ${csr.name} changed UIDs`);
    }
    let approved = false;
    for (const c of obj.status?.conditions ?? []) {
      if (c.type === "Denied" || c.type === "Failed") {
        throw new CsrRefusedError(
          `certificate signing request ${csr.name} is ${
            c.type === "Denied" ? "denied" : "failed"
          }` +
            `, reason: ${c.reason ?? ""}, message: ${c.message ?? ""}`,
        );
      }
      if (c.type === "Approved") approved = true;
    }
    if (approved && obj.status?.certificate) return atob(obj.status.certificate);
    if (approved && !approvedSeen) {
      approvedSeen = true;
      opts.onApproved?.();
    }
    return undefined;
  };
  for (;;) {
    signal.throwIfAborted();
    const list = await client.request<{ metadata?: { resourceVersion?: string }; items?: Csr[] }>(
      { method: "GET", path: CSR_PATH, query: { fieldSelector } },
      { signal },
    );
    const issued = check(list.items?.[0]);
    if (issued !== undefined) return issued;
    try {
      for await (
        const ev of client.watch<Csr>(CSR_PATH, {
          signal,
          query: {
            fieldSelector,
            resourceVersion: list.metadata?.resourceVersion,
            allowWatchBookmarks: true,
          },
        })
      ) {
        if (ev.type === "BOOKMARK") continue;
        if (ev.type === "ERROR") break; // a 410 Gone or the like: list again
        const done = check(ev.object, ev.type === "DELETED");
        if (done !== undefined) return done;
      }
    } catch (err) {
      // A broken watch is listed again; anything that says no is the caller's to see.
      if (err instanceof ApiError || signal.aborted) throw err;
    }
  }
}
