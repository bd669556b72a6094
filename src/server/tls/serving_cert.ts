/**
 * serverTLSBootstrap: the serving certificate comes from the cluster, as upstream's kubelet
 * server certificate manager gets it. A new ECDSA P-256 key and a CSR for
 * `system:node:<node>` (group `system:nodes`, SANs: the host name and node IPs) with signer
 * `kubernetes.io/kubelet-serving`; someone approves it (an admin, an approver controller); the
 * signed certificate and its key are stored as `<certDir>/kubelet-server-<time>.pem`, linked
 * from `kubelet-server-current.pem`, reused on the next start while valid, and replaced at a
 * random point between 70 % and 90 % of its lifetime. Imported only in API-server mode.
 */
import { posix } from "node:path";
import type { ApiClient } from "../../apiclient/types.ts";
import type { Clock } from "../../util/clock.ts";
import { DenoletError } from "../../util/errors.ts";
import { errorMessage, type Logger } from "../../util/log.ts";
import { pem } from "./_der.ts";
import { createCertificateRequest, generateKeyPair, privateKeyPem } from "./_x509.ts";
import { writeAtomically } from "./self_signed.ts";

export const KUBELET_SERVING_SIGNER = "kubernetes.io/kubelet-serving";
const CSR_PATH = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
/** Upstream waits this long for a CSR to be approved and signed before asking again. */
const ISSUE_TIMEOUT_MS = 15 * 60_000;
const POLL_MS = 1000;
const FIRST_BACKOFF_MS = 2000;
const MAX_BACKOFF_MS = 5 * 60_000;

/** A serving certificate with its key and validity. */
export interface IssuedCertificate {
  /** PEM chain, leaf first. */
  cert: string;
  key: string;
  notBeforeMs: number;
  notAfterMs: number;
}

export interface ServingCertManagerDeps {
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  nodeName: string;
  certDir: string;
  /** The names the certificate is for: the host name(s) and the node's IPs. */
  hosts: readonly string[];
  /** [0, 1); picks the rotation point. Defaults to Math.random. */
  random?: () => number;
}

interface Csr {
  metadata?: { name?: string };
  status?: {
    certificate?: string;
    conditions?: { type: string; status?: string; reason?: string; message?: string }[];
  };
}

/** The CSR was denied or failed: asking again at once would not help. */
export class CsrRefusedError extends DenoletError {}

export class ServingCertManager {
  readonly #d: ServingCertManagerDeps;
  readonly #log: Logger;

  constructor(deps: ServingCertManagerDeps) {
    this.#d = deps;
    this.#log = deps.logger.child({ component: "serving-cert" });
  }

  get currentPath(): string {
    return posix.join(this.#d.certDir, "kubelet-server-current.pem");
  }

  /** The stored certificate when there is one that has not expired. */
  async load(): Promise<IssuedCertificate | undefined> {
    let text: string;
    try {
      text = await Deno.readTextFile(this.currentPath);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw new DenoletError(`Cannot read ${this.currentPath}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    const issued = await parseStored(text);
    if (issued === undefined || issued.notAfterMs <= this.#d.clock.now()) return undefined;
    return issued;
  }

  /** When to replace `c`: a random point in the last 30 % to 10 % of its lifetime. */
  rotationDeadline(c: IssuedCertificate): number {
    const total = c.notAfterMs - c.notBeforeMs;
    return c.notBeforeMs + total * (0.7 + 0.2 * (this.#d.random ?? Math.random)());
  }

  /**
   * Creates a CSR and waits until it is approved and signed, then stores the result. Throws
   * CsrRefusedError when it is denied or fails, DenoletError after 15 minutes without a
   * certificate; aborting stops waiting (the CSR stays for whoever approves it).
   */
  async request(opts: { signal?: AbortSignal } = {}): Promise<IssuedCertificate> {
    const { client, clock } = this.#d;
    const key = await generateKeyPair("ecdsa");
    const der = await createCertificateRequest(key, {
      subject: { commonName: `system:node:${this.#d.nodeName}`, organizations: ["system:nodes"] },
      hosts: this.#d.hosts,
    });
    const created = await client.request<Csr>({
      method: "POST",
      path: CSR_PATH,
      body: {
        apiVersion: "certificates.k8s.io/v1",
        kind: "CertificateSigningRequest",
        metadata: { generateName: "csr-" },
        spec: {
          request: btoa(pem("CERTIFICATE REQUEST", der)),
          signerName: KUBELET_SERVING_SIGNER,
          // What upstream asks for with an ECDSA key (no key encipherment).
          usages: ["digital signature", "server auth"],
        },
      },
    }, { signal: opts.signal });
    const name = created.metadata?.name ?? "";
    this.#log.info("Requested a serving certificate; waiting for approval", { csr: name });
    const deadline = clock.now() + ISSUE_TIMEOUT_MS;
    for (;;) {
      const csr = await client.request<Csr>(
        { method: "GET", path: `${CSR_PATH}/${name}` },
        { signal: opts.signal },
      );
      const refused = csr.status?.conditions?.find((c) =>
        (c.type === "Denied" || c.type === "Failed") && c.status !== "False"
      );
      if (refused) {
        throw new CsrRefusedError(
          `Certificate signing request ${name} was ${refused.type.toLowerCase()}: ` +
            (refused.message || refused.reason || "no reason given"),
        );
      }
      if (csr.status?.certificate) {
        const cert = atob(csr.status.certificate);
        const issued = await parseStored(cert + (await privateKeyPem(key)));
        if (issued === undefined) {
          throw new DenoletError(`Certificate signing request ${name} holds no usable certificate`);
        }
        await this.#store(issued);
        this.#log.info("Serving certificate issued", {
          csr: name,
          expires: new Date(issued.notAfterMs).toISOString(),
        });
        return issued;
      }
      if (clock.now() >= deadline) {
        throw new DenoletError(
          `Certificate signing request ${name} was not approved and signed within 15 minutes`,
        );
      }
      await clock.sleep(POLL_MS, { signal: opts.signal });
    }
  }

  /**
   * Keeps a valid serving certificate until the signal aborts: calls `onCertificate` with the
   * stored one (if valid) and with every newly issued one, renewing at the rotation deadline
   * and retrying failures with back-off (2 s doubling to 5 min). Never rejects.
   */
  async run(
    onCertificate: (c: IssuedCertificate) => void,
    opts: { signal: AbortSignal },
  ): Promise<void> {
    const { clock } = this.#d;
    let current = await this.load().catch((err) => {
      this.#log.warn("Ignoring the stored serving certificate", { err: errorMessage(err) });
      return undefined;
    });
    if (current) onCertificate(current);
    let backoff = FIRST_BACKOFF_MS;
    while (!opts.signal.aborted) {
      try {
        if (current) {
          const wait = this.rotationDeadline(current) - clock.now();
          if (wait > 0) await clock.sleep(wait, { signal: opts.signal });
        }
        current = await this.request({ signal: opts.signal });
        onCertificate(current);
        backoff = FIRST_BACKOFF_MS;
      } catch (err) {
        if (opts.signal.aborted) return;
        this.#log.error("Cannot get a serving certificate", {
          err: errorMessage(err),
          retryIn: backoff,
        });
        await clock.sleep(backoff, { signal: opts.signal }).catch((e) => {
          // Only an abort ends the sleep early; the loop condition then ends the run.
          if (!opts.signal.aborted) throw e;
        });
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  async #store(c: IssuedCertificate): Promise<void> {
    const { certDir, clock } = this.#d;
    await Deno.mkdir(certDir, { recursive: true, mode: 0o755 });
    const stamp = new Date(clock.now()).toISOString().slice(0, 19).replace(/[T:]/g, "-");
    const file = posix.join(certDir, `kubelet-server-${stamp}.pem`);
    await writeAtomically(file, c.cert + c.key, 0o600);
    // Swap the link atomically too, so a reader never finds it missing.
    const tmpLink = `${this.currentPath}.tmp`;
    await Deno.remove(tmpLink).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
    await Deno.symlink(posix.basename(file), tmpLink);
    await Deno.rename(tmpLink, this.currentPath);
  }
}

/**
 * Splits a stored PEM (certificates, then the key) and reads the leaf's validity. node:crypto is
 * loaded here, not at the top: a bundle evaluates every static node: import at start.
 */
export async function parseStored(text: string): Promise<IssuedCertificate | undefined> {
  const blocks = text.match(/-----BEGIN [A-Z ]+-----[\s\S]*?-----END [A-Z ]+-----\n?/g) ?? [];
  const certs = blocks.filter((b) => b.startsWith("-----BEGIN CERTIFICATE-----"));
  const key = blocks.find((b) => /-----BEGIN (EC |RSA )?PRIVATE KEY-----/.test(b));
  if (certs.length === 0 || key === undefined) return undefined;
  const { X509Certificate } = await import("node:crypto");
  const leaf = new X509Certificate(certs[0]);
  return {
    cert: certs.map((c) => (c.endsWith("\n") ? c : `${c}\n`)).join(""),
    key: key.endsWith("\n") ? key : `${key}\n`,
    notBeforeMs: Date.parse(leaf.validFrom),
    notAfterMs: Date.parse(leaf.validTo),
  };
}
