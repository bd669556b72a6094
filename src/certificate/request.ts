/**
 * Certificate signing requests through the API server, as client-go's csr package does them:
 * write the PKCS#10 request, create the CertificateSigningRequest (reusing
 * one of the same name made earlier for the same key), then list and watch it until it is issued,
 * denied or failed.
 */
import type { ApiClient } from "../apiclient/types.ts";
import { ApiError, isApiStatus } from "../apiclient/types.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import type { KeyKind, RequestKey } from "./keys.ts";
import { createCertificateRequest } from "../server/tls/_x509.ts";
import { pem, requestParts } from "../server/tls/_der.ts";

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
  const der = await createCertificateRequest(
    { commonName: template.commonName, organizations: template.organizations },
    { kind: key.kind, privateKey: key.keys.privateKey, spki: new Uint8Array(key.spki) },
    [...(template.dnsNames ?? []), ...(template.ipAddresses ?? [])],
  );
  return pem("CERTIFICATE REQUEST", der);
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
    ensureCompatible(existing, req);
    created = existing;
  }
  return { name: created.metadata?.name ?? "", uid: created.metadata?.uid ?? "" };
}

/** Upstream ensureCompatible: same subject, signer and key; not already expired. */
function ensureCompatible(
  existing: Csr,
  req: { pem: string; key: RequestKey; signerName: string; name?: string },
): void {
  const incompatible = (why: string) =>
    new CsrCreateError(`Certificate signing request ${req.name} exists and is not ours: ${why}`);
  // spec.request is the PEM text, base64-encoded as JSON carries bytes.
  const theirs = requestParts(pemBytes(new TextDecoder().decode(
    base64Bytes(existing.spec?.request ?? ""),
  )));
  if (theirs === undefined) {
    throw new CsrCreateError(`Certificate signing request ${req.name} does not parse`);
  }
  const ours = requestParts(pemBytes(req.pem))!;
  const text = (s: [string, string][]) => s.map(([oid, v]) => `${OID_NAMES[oid] ?? oid}=${v}`);
  if (text(theirs.subject).join(",") !== text(ours.subject).join(",")) {
    throw incompatible(`its subject is ${text(theirs.subject).join(", ")}`);
  }
  const signer = existing.spec?.signerName;
  if (signer && signer !== req.signerName) throw incompatible(`its signer is ${signer}`);
  if (!equalBytes(theirs.spki, req.key.spki)) throw incompatible("it is for another key");
}

const OID_NAMES: Record<string, string> = { "2.5.4.3": "CN", "2.5.4.10": "O" };

/** The bytes of base64 text; none for text that is not base64. */
function base64Bytes(b64: string): Uint8Array {
  try {
    return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

/** The bytes of a PEM block's base64 body. */
function pemBytes(text: string): Uint8Array {
  return base64Bytes(text.replace(/-----[^-]+-----/g, "").replace(/\s+/g, ""));
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
