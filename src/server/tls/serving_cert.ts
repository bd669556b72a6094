/**
 * serverTLSBootstrap: the serving certificate comes from the cluster, as upstream's kubelet
 * server certificate manager gets it: the certificate manager (src/certificate) asks for a
 * `kubernetes.io/kubelet-serving` certificate for `system:node:<node>` (group `system:nodes`,
 * SANs: the host name and the node IPs, sorted as upstream's), stores it as
 * `<certDir>/kubelet-server-<time>.pem` behind `kubelet-server-current.pem`, reuses it on the next
 * start while valid, and replaces it at a random point between 70 % and 90 % of its lifetime (or
 * at once when the node's names changed). Imported only in API-server mode with the flag on.
 */
import { isIP } from "node:net";
import type { ApiClient } from "../../apiclient/types.ts";
import {
  CertificateFileStore,
  CertificateManager,
  type CertificateTemplate,
  type KeyPair,
  KUBELET_SERVING_SIGNER,
  kubeletServingUsages,
  normalizeIP,
} from "../../certificate/mod.ts";
import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";

export { KUBELET_SERVING_SIGNER };

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

export class ServingCertManager {
  readonly #m: CertificateManager;
  readonly currentPath: string;

  private constructor(m: CertificateManager, currentPath: string) {
    this.#m = m;
    this.currentPath = currentPath;
  }

  /** Reads the stored certificate; throws when one is there but cannot be read. */
  static async open(deps: ServingCertManagerDeps): Promise<ServingCertManager> {
    const store = new CertificateFileStore({
      prefix: "kubelet-server",
      dir: deps.certDir,
      now: () => deps.clock.now(),
    });
    const template = servingTemplate(deps.nodeName, deps.hosts);
    const m = await CertificateManager.open({
      name: "kubelet-serving",
      store,
      signerName: KUBELET_SERVING_SIGNER,
      template: () => template,
      usages: kubeletServingUsages,
      client: () => deps.client,
      clock: deps.clock,
      logger: deps.logger,
      random: deps.random,
    });
    return new ServingCertManager(m, store.currentPath);
  }

  /** The stored or last issued certificate while it is valid. */
  current(): IssuedCertificate | undefined {
    const pair = this.#m.current();
    return pair && issued(pair);
  }

  /**
   * Keeps a valid serving certificate until the signal aborts, calling `onCertificate` with
   * every newly issued one. Never rejects.
   */
  async run(
    onCertificate: (c: IssuedCertificate) => void,
    opts: { signal: AbortSignal },
  ): Promise<void> {
    this.#m.onRotate((pair) => onCertificate(issued(pair)));
    await this.#m.run(opts);
  }
}

function issued(pair: KeyPair): IssuedCertificate {
  return {
    cert: pair.certPem,
    key: pair.keyPem,
    notBeforeMs: pair.leaf.notBeforeMs,
    notAfterMs: pair.leaf.notAfterMs,
  };
}

/** Upstream newGetTemplateFn: host names and IPs, each sorted, without duplicates. */
export function servingTemplate(nodeName: string, hosts: readonly string[]): CertificateTemplate {
  const names = new Set<string>();
  const ips = new Set<string>();
  for (const h of hosts) {
    if (h === "") continue;
    if (isIP(h)) ips.add(normalizeIP(h));
    else names.add(h);
  }
  return {
    commonName: `system:node:${nodeName}`,
    organizations: ["system:nodes"],
    dnsNames: [...names].sort(),
    ipAddresses: [...ips].sort(),
  };
}
