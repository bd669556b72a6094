/**
 * client-go's certificate manager, for the kubelet's client certificate and its serving one:
 * holds the current pair, asks for a new one (a new ECDSA P-256 key and a CSR for the template)
 * at a random point between 70 % and 90 % of the current one's lifetime, or at once when there is
 * none, it has expired or it no longer fits the template, stores what is issued and tells the
 * listeners (the API clients close their connections, the node API serves the new pair).
 * Failures are retried after 2, 4, 8 and 16 s (±10 %), then every 32 s, as upstream's.
 */
import type { ApiClient } from "../apiclient/types.ts";
import { isApiStatus } from "../apiclient/types.ts";
import type { Clock } from "../util/clock.ts";
import { deadlineSignal } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { generateRequestKey, type KeyKind, type RequestKey } from "./keys.ts";
import { type KeyPair, loadKeyPair } from "./pem.ts";
import {
  type CertificateTemplate,
  createCsr,
  CsrCreateError,
  CsrRefusedError,
  type KeyUsage,
  makeCsrPem,
  waitForCertificate,
} from "./request.ts";
import type { CertificateFileStore } from "./store.ts";

/** Upstream certificateWaitTimeout: how long one CSR may take to be approved and issued. */
export const CERTIFICATE_WAIT_MS = 15 * 60_000;
const BACKOFF_STEPS = [2_000, 4_000, 8_000, 16_000];
const POLL_MS = 32_000;
/** The longest single wait for the rotation deadline. */
const RECHECK_MS = 3_600_000;

export interface CertificateManagerOptions {
  /** For logs: `kubelet-client` or `kubelet-server`. */
  name: string;
  store: CertificateFileStore;
  signerName: string;
  /** What to ask for; undefined while it cannot be known yet (no addresses): no request then. */
  template: () => CertificateTemplate | undefined;
  usages: (kind: KeyKind) => KeyUsage[];
  /**
   * The client to send CSRs with, given the current pair (undefined when there is none or it
   * expired): the node's own credentials while they are valid, the bootstrap ones otherwise.
   */
  client: (current: KeyPair | undefined) => ApiClient;
  /** A pair given inline (kubeadm's kubeconfig data): stored and rotated out at once. */
  bootstrap?: { certPem: string; keyPem: string };
  clock: Clock;
  logger: Logger;
  /** [0, 1); picks the rotation point and the retry jitter. Defaults to Math.random. */
  random?: () => number;
  /** How long one CSR may wait; default 15 min. */
  waitTimeoutMs?: number;
  /** The key for each request; default a new ECDSA P-256 key. */
  generateKey?: () => Promise<RequestKey>;
  /** Text added to the log line when a request is denied or not issued in time. */
  hint?: (csr: string, what: "denied" | "not approved" | "not issued") => string;
}

export class CertificateManager {
  readonly #o: CertificateManagerOptions;
  readonly #log: Logger;
  #cert?: KeyPair;
  #forceRotation: boolean;
  #serverHealthy = false;
  readonly #listeners: Array<(pair: KeyPair) => void> = [];

  private constructor(o: CertificateManagerOptions, cert: KeyPair | undefined, force: boolean) {
    this.#o = o;
    this.#log = o.logger.child({ certificate: o.name });
    this.#cert = cert;
    this.#forceRotation = force;
  }

  /**
   * Upstream NewManager: the stored pair when it is still valid, else the bootstrap pair
   * (stored, then rotated at once), else none (a request is made at once). Throws for a stored
   * pair that cannot be read.
   */
  static async open(o: CertificateManagerOptions): Promise<CertificateManager> {
    const stored = await o.store.current();
    if (stored && o.clock.now() < stored.leaf.notAfterMs) {
      return new CertificateManager(o, stored, false);
    }
    if (!o.bootstrap) return new CertificateManager(o, undefined, true);
    const pair = await loadKeyPair(o.bootstrap.certPem, o.bootstrap.keyPem);
    await o.store.update(o.bootstrap.certPem, o.bootstrap.keyPem).catch((err) =>
      o.logger.warn("Cannot store the bootstrap certificate", { err: errorMessage(err) })
    );
    return new CertificateManager(o, pair, true);
  }

  /** The current pair, or undefined when there is none or it has expired. Never blocks. */
  current(): KeyPair | undefined {
    const c = this.#cert;
    if (c && this.#o.clock.now() > c.leaf.notAfterMs) return undefined;
    return c;
  }

  /** Whether the API server answered the last request in a way that shows it works. */
  get serverHealthy(): boolean {
    return this.#serverHealthy;
  }

  /** Calls `fn` with every newly issued pair. */
  onRotate(fn: (pair: KeyPair) => void): void {
    this.#listeners.push(fn);
  }

  /** When to ask for the next certificate: now, or 70–90 % into the current one's life. */
  nextRotationDeadline(): number {
    const now = this.#o.clock.now();
    if (this.#forceRotation) {
      this.#forceRotation = false;
      return now;
    }
    const c = this.#cert;
    if (!c || !this.#satisfiesTemplate(c)) return now;
    const total = c.leaf.notAfterMs - c.leaf.notBeforeMs;
    const deadline = c.leaf.notBeforeMs + total * (0.7 + 0.2 * this.#random());
    this.#log.debug(2, "Certificate rotation deadline determined", {
      expiration: new Date(c.leaf.notAfterMs).toISOString(),
      deadline: new Date(deadline).toISOString(),
    });
    return deadline;
  }

  /**
   * Keeps a valid certificate until the signal aborts: waits for the rotation deadline, then
   * requests until one is issued (with upstream's back-off). Never rejects.
   */
  async run(opts: { signal: AbortSignal }): Promise<void> {
    const { signal } = opts;
    const { clock } = this.#o;
    const sleep = (ms: number) => clock.sleep(ms, { signal }).then(() => true, () => false);
    while (!signal.aborted) {
      const deadline = this.nextRotationDeadline();
      const wait = deadline - clock.now();
      if (wait > 0) {
        this.#log.debug(2, "Waiting for next certificate rotation", { sleepMs: Math.round(wait) });
      }
      // The deadline is a wall time (the certificate's): waited for in pieces of at most an
      // hour, so that a wall clock NTP steps (a box that booted in the past) is followed.
      for (let left = wait; left > 0; left = deadline - clock.now()) {
        if (!await sleep(Math.min(left, RECHECK_MS))) return;
      }
      if (this.#o.template() !== undefined) {
        for (let attempt = 0; !signal.aborted; attempt++) {
          if (await this.rotate({ signal })) break;
          const step = BACKOFF_STEPS[attempt];
          if (step === undefined && attempt === BACKOFF_STEPS.length) {
            this.#log.error("Reached backoff limit, still unable to rotate certs");
          }
          const delay = step === undefined ? POLL_MS : step * (1 + 0.1 * this.#random());
          if (!await sleep(delay)) return;
        }
      }
      if (!await sleep(1_000)) return;
    }
  }

  /**
   * One request (upstream rotateCerts): a new key and CSR, waiting up to 15 minutes for the
   * certificate, then stored and made current. Returns false after a failure, which it logs.
   */
  async rotate(opts: { signal: AbortSignal }): Promise<boolean> {
    const o = this.#o;
    this.#log.debug(2, "Rotating certificates");
    const template = o.template();
    if (!template) return false;
    let key: RequestKey;
    let pem: string;
    try {
      key = await (o.generateKey ?? generateRequestKey)();
      pem = await makeCsrPem(key, template);
    } catch (err) {
      this.#log.error("Unable to generate a certificate signing request", {
        err: errorMessage(err),
      });
      return false;
    }
    const client = o.client(this.current());
    let csr: { name: string; uid: string };
    try {
      csr = await createCsr(client, {
        pem,
        key,
        signerName: o.signerName,
        usages: o.usages(key.kind),
        signal: opts.signal,
      });
      this.#serverHealthy = true;
    } catch (err) {
      this.#updateServerError(err);
      if (!opts.signal.aborted) {
        this.#log.error("Failed while requesting a signed certificate from the control plane", {
          err: errorMessage(err),
        });
      }
      return false;
    }
    this.#log.info("Certificate signing request created; waiting for approval", {
      csr: csr.name,
      signer: o.signerName,
    });
    let certPem: string;
    const timeoutMs = o.waitTimeoutMs ?? CERTIFICATE_WAIT_MS;
    const deadline = deadlineSignal(o.clock, timeoutMs, { parent: opts.signal });
    let approved = false;
    try {
      certPem = await waitForCertificate(client, csr, {
        signal: deadline.signal,
        onApproved: () => {
          approved = true;
          this.#log.debug(2, "Certificate signing request is approved, waiting to be issued", {
            csr: csr.name,
          });
        },
      });
    } catch (err) {
      if (opts.signal.aborted) return false;
      const what = err instanceof CsrRefusedError
        ? "denied"
        : approved
        ? "not issued"
        : "not approved";
      this.#log.error("Certificate request was not signed", {
        csr: csr.name,
        err: deadline.signal.aborted
          ? `not ${approved ? "issued" : "approved"} within ${Math.round(timeoutMs / 60_000)} min`
          : errorMessage(err),
        hint: o.hint?.(csr.name, what),
      });
      return false;
    } finally {
      deadline.cancel();
    }
    try {
      const pair = await o.store.update(certPem, key.pem);
      this.#cert = pair;
      this.#serverHealthy = true;
      this.#log.info("Certificate issued", {
        csr: csr.name,
        expires: new Date(pair.leaf.notAfterMs).toISOString(),
      });
      for (const fn of this.#listeners) fn(pair);
      return true;
    } catch (err) {
      this.#log.error("Unable to store the new cert/key pair", { err: errorMessage(err) });
      return false;
    }
  }

  /** Upstream updateServerError: which failures still show a working API server. */
  #updateServerError(err: unknown): void {
    const cause = err instanceof CsrCreateError ? err.cause : err;
    this.#serverHealthy = isApiStatus(cause, 401) || isApiStatus(cause, 403) ||
      isApiStatus(cause, 404);
  }

  /** Upstream certSatisfiesTemplate: same CN, and no requested name or org missing. */
  #satisfiesTemplate(c: KeyPair): boolean {
    const t = this.#o.template();
    if (!t) return true;
    const missing = (want: readonly string[] | undefined, have: readonly string[]) =>
      (want ?? []).some((w) => !have.includes(w));
    return t.commonName === c.leaf.commonName &&
      !missing(t.dnsNames, c.leaf.dnsNames) &&
      !missing(t.ipAddresses, c.leaf.ipAddresses) &&
      !missing(t.organizations, c.leaf.organizations);
  }

  #random(): number {
    return (this.#o.random ?? Math.random)();
  }
}
