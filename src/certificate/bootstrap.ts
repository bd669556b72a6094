/**
 * TLS bootstrapping of the kubelet's client certificate (upstream pkg/kubelet/certificate/
 * bootstrap): when the --kubeconfig file is missing or its client certificate has expired, the
 * --bootstrap-kubeconfig credentials (a bootstrap token) ask for a certificate for
 * `system:node:<name>` in `system:nodes`; it is stored under --cert-dir as
 * `kubelet-client-<time>.pem` behind `kubelet-client-current.pem`, and the kubeconfig is written
 * to point at that link, with the bootstrap kubeconfig's server and CA.
 */
import { posix } from "node:path";
import { stringify as toYaml } from "yaml";
import type { ApiClient } from "../apiclient/types.ts";
import { type Connection, resolveKubeconfig } from "../apiclient/mod.ts";
import { DenoletError } from "../util/errors.ts";
import { deadlineSignal } from "../util/clock.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { generateRequestKey, importRequestKey, type RequestKey } from "./keys.ts";
import { parseCertificates } from "./pem.ts";
import {
  createCsr,
  CsrRefusedError,
  type KeyUsage,
  KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
  kubeletClientUsages,
  makeCsrPem,
  waitForCertificate,
} from "./request.ts";
import { CertificateFileStore } from "./store.ts";

/** The client certificate's store prefix under --cert-dir. */
export const CLIENT_PREFIX = "kubelet-client";
/** Where a key waits for its certificate, so a restart asks again with the same key. */
const PENDING_KEY = "kubelet-client.key.tmp";
/** Upstream waits up to an hour for the bootstrap CSR. */
export const BOOTSTRAP_WAIT_MS = 3_600_000;

/** Bootstrapping cannot go on: the file or the request at fault and why. */
export class BootstrapError extends DenoletError {}

/** The subject of every kubelet client certificate. */
export function nodeClientTemplate(nodeName: string) {
  return { commonName: `system:node:${nodeName}`, organizations: ["system:nodes"] };
}

/**
 * Upstream isClientConfigStillValid: whether `path` exists and holds a client certificate
 * (inline or in files) none of whose certificates has expired. A file that does not parse is
 * not valid (logged), not an error; one that cannot be read for another reason than absence is.
 */
export async function isClientConfigStillValid(
  path: string,
  opts: { now: number; logger: Logger },
): Promise<boolean> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw new BootstrapError(`Cannot read the existing kubeconfig ${path}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  try {
    const { connection: c } = resolveKubeconfig(text, { path });
    const certPem = c.clientCert ?? (c.clientCertFile && await Deno.readTextFile(c.clientCertFile));
    if (!certPem) throw new Error("it has no client certificate");
    for (const cert of await parseCertificates(certPem)) {
      if (opts.now > cert.notAfterMs) {
        throw new Error(
          `part of its client certificate expired at ${new Date(cert.notAfterMs).toISOString()}`,
        );
      }
    }
    return true;
  } catch (err) {
    opts.logger.warn("The kubeconfig cannot be used as it is", { path, err: errorMessage(err) });
    return false;
  }
}

/**
 * Upstream writeKubeconfigFromBootstrapping: a kubeconfig for the bootstrap kubeconfig's server
 * and CA (its file when it names one, its data otherwise) whose user is the pair at `pemPath`.
 * Written 0600 through a temporary file and a rename.
 */
export async function writeKubeconfigFromBootstrap(
  bootstrapPath: string,
  opts: { kubeconfig: string; pemPath: string },
): Promise<void> {
  const { connection, files } = resolveKubeconfig(
    await readBootstrap(bootstrapPath),
    { path: bootstrapPath },
  );
  const cluster: Record<string, string> = { server: connection.server };
  if (files.ca) cluster["certificate-authority"] = files.ca;
  else if (connection.caCert) cluster["certificate-authority-data"] = btoa(connection.caCert);
  const doc = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "default-cluster", cluster }],
    contexts: [{
      name: "default-context",
      context: { cluster: "default-cluster", namespace: "default", user: "default-auth" },
    }],
    "current-context": "default-context",
    preferences: {},
    users: [{
      name: "default-auth",
      user: { "client-certificate": opts.pemPath, "client-key": opts.pemPath },
    }],
  };
  const dir = posix.dirname(opts.kubeconfig);
  const tmp = `${opts.kubeconfig}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.mkdir(dir, { recursive: true, mode: 0o755 });
    await Deno.writeTextFile(tmp, toYaml(doc), { mode: 0o600 });
    await Deno.rename(tmp, opts.kubeconfig);
  } catch (err) {
    await Deno.remove(tmp).catch(() => undefined); // it may not have been written at all
    throw new BootstrapError(
      `Cannot write the kubeconfig ${opts.kubeconfig}: ${errorMessage(err)}`,
      {
        cause: err,
      },
    );
  }
}

async function readBootstrap(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    throw new BootstrapError(
      `unable to load bootstrap kubeconfig: cannot read ${path}: ${errorMessage(err)}`,
      { cause: err },
    );
  }
}

export interface ClientCertOptions {
  kubeconfig: string;
  bootstrapKubeconfig: string;
  certDir: string;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /** An API client for a connection (the bootstrap kubeconfig's). */
  connect: (conn: Connection) => ApiClient;
  /** Loads a kubeconfig into a connection (apiclient's loadKubeconfig). */
  load: (path: string) => Promise<Connection>;
  /** How to tell the user what to do when the CSR is stuck. */
  hint?: (csr: string, what: "denied" | "not approved" | "not issued") => string;
  signal: AbortSignal;
}

/**
 * Upstream LoadClientCert (bootstrapping without --rotate-certificates): unless the kubeconfig
 * is still valid, asks for a certificate with the bootstrap credentials, waits up to an hour for
 * it, stores it and writes the kubeconfig. The pending key is kept in `kubelet-client.key.tmp`
 * until then, and the CSR is named after the key and subject, so a restart picks up the same
 * request. Throws BootstrapError saying why it could not.
 */
export async function loadClientCert(o: ClientCertOptions): Promise<void> {
  const log = o.logger.child({ certificate: CLIENT_PREFIX });
  if (await isClientConfigStillValid(o.kubeconfig, { now: o.clock.now(), logger: log })) {
    log.debug(2, "Kubeconfig exists and is valid, skipping bootstrap", { path: o.kubeconfig });
    return;
  }
  log.info("Using the bootstrap kubeconfig to request a client certificate", {
    bootstrapKubeconfig: o.bootstrapKubeconfig,
    certDir: o.certDir,
  });
  let client: ApiClient;
  try {
    client = o.connect(await o.load(o.bootstrapKubeconfig));
  } catch (err) {
    throw new BootstrapError(`unable to load bootstrap kubeconfig: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const store = new CertificateFileStore({
    prefix: CLIENT_PREFIX,
    dir: o.certDir,
    now: () => o.clock.now(),
  });
  try {
    const key = await pendingKey(o.certDir, store, log);
    const template = nodeClientTemplate(o.nodeName);
    const usages = kubeletClientUsages(key.kind);
    const pem = await makeCsrPem(key, template);
    const csr = await createCsr(client, {
      pem,
      key,
      name: await digestedName(key.spki, template, usages),
      signerName: KUBE_APISERVER_CLIENT_KUBELET_SIGNER,
      usages,
      signal: o.signal,
    });
    log.info("Waiting for the client certificate to be issued", { csr: csr.name });
    const deadline = deadlineSignal(o.clock, BOOTSTRAP_WAIT_MS, { parent: o.signal });
    let certPem: string;
    let approved = false;
    try {
      certPem = await waitForCertificate(client, csr, {
        signal: deadline.signal,
        onApproved: () => (approved = true),
      });
    } catch (err) {
      if (o.signal.aborted) throw err;
      const what = err instanceof CsrRefusedError
        ? "denied"
        : approved
        ? "not issued"
        : "not approved";
      const why = deadline.signal.aborted
        ? `was ${what} within an hour`
        : `failed: ${errorMessage(err)}`;
      throw new BootstrapError(
        `Certificate signing request ${csr.name} ${why}. ${o.hint?.(csr.name, what) ?? ""}`.trim(),
        { cause: err },
      );
    } finally {
      deadline.cancel();
    }
    await store.update(certPem, key.pem);
    await Deno.remove(posix.join(o.certDir, PENDING_KEY)).catch((err) =>
      log.debug(2, "Cannot remove the pending key", { err: errorMessage(err) })
    );
    await writeKubeconfigFromBootstrap(o.bootstrapKubeconfig, {
      kubeconfig: o.kubeconfig,
      pemPath: store.currentPath,
    });
    log.info("Client certificate issued; kubeconfig written", {
      csr: csr.name,
      kubeconfig: o.kubeconfig,
    });
  } finally {
    client.close();
  }
}

/**
 * The key to ask with: the current pair's (expired, but its key is still ours), else the
 * pending one left by an earlier attempt, else a new one written there first (upstream's
 * LoadOrGenerateKeyFile), so an interrupted bootstrap reuses its CSR.
 */
async function pendingKey(
  certDir: string,
  store: CertificateFileStore,
  log: Logger,
): Promise<RequestKey> {
  const current = await store.current().catch((err) => {
    log.debug(2, "No usable stored client certificate", { err: errorMessage(err) });
    return undefined;
  });
  if (current) return await importRequestKey(current.keyPem);
  const file = posix.join(certDir, PENDING_KEY);
  try {
    return await importRequestKey(await Deno.readTextFile(file));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      log.warn("Replacing the unreadable pending key", { file, err: errorMessage(err) });
    }
  }
  const key = await generateRequestKey();
  await Deno.mkdir(certDir, { recursive: true, mode: 0o755 });
  await Deno.writeTextFile(file, key.pem, { mode: 0o600 });
  return key;
}

/**
 * Upstream digestedName: `node-csr-` and the SHA-512/256 of the public key, subject and usages
 * (each base64url-encoded and ended by `|`), so the same key asks under the same name.
 */
export async function digestedName(
  spki: Uint8Array,
  subject: { commonName: string; organizations: readonly string[] },
  usages: readonly KeyUsage[],
): Promise<string> {
  // node:crypto on use: a bundle hoists static node: imports to its start (WebCrypto has no
  // SHA-512/256).
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha512-256");
  const write = (data: Uint8Array) => hash.update(`${base64url(data)}|`);
  const text = (s: string) => write(new TextEncoder().encode(s));
  write(spki);
  text(subject.commonName);
  subject.organizations.forEach(text);
  usages.forEach(text);
  return `node-csr-${base64url(new Uint8Array(hash.digest()))}`;
}

function base64url(data: Uint8Array): string {
  let bin = "";
  for (const b of data) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
