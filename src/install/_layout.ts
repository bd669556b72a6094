/**
 * Where an installed denolet lives, with the modes upstream uses: kubeadm writes static pod
 * manifests into a 0700 directory, the kubelet creates its root directory 0750 and the pod log
 * directory 0755. The default configuration is the one `deno task compile` bakes the permission
 * set for, so an installed binary and its config agree.
 */
import { stringify } from "yaml";

export const LAYOUT = {
  binDir: "/usr/local/bin",
  binName: "denolet",
  unitFile: "/etc/systemd/system/denolet.service",
  configDir: "/etc/denolet",
  configFile: "/etc/denolet/config.yaml",
  /** A standalone node's client CA and its administrator's certificate (root only). */
  pkiDir: "/etc/denolet/pki",
  clientCAFile: "/etc/denolet/pki/client-ca.crt",
  adminCertFile: "/etc/denolet/pki/admin.crt",
  adminKeyFile: "/etc/denolet/pki/admin.key",
  manifestDir: "/etc/kubernetes/manifests",
  rootDir: "/var/lib/kubelet",
  podLogsDir: "/var/log/pods",
  /**
   * Where a packed denolet (`deno task package`) unpacks its runtime and bundle when run as root,
   * one directory per build. A cache: removed with the binary, recreated on the next start.
   */
  unpackDir: "/var/cache/denolet",
} as const;

export const MODES = {
  binary: 0o755,
  unit: 0o644,
  configDir: 0o755,
  /** May hold manifest URL headers (tokens). */
  config: 0o600,
  /** The administrator's key opens exec into every container: root only. */
  pkiDir: 0o700,
  pkiFile: 0o600,
  manifestDir: 0o700,
  rootDir: 0o750,
  podLogsDir: 0o755,
} as const;

/** How an installed node is reached, which decides how its node API is protected. */
export interface ConfigOptions {
  /**
   * The node's kubeconfig (API-server mode): the node API listens on every interface with
   * Webhook authentication and authorization, client certificates checked against
   * `clientCAFile`. Without it (standalone) the node API listens on loopback only.
   */
  kubeconfig?: string;
  /** The cluster CA that signs the API server's client certificate (kubeadm's path). */
  clientCAFile?: string;
}

/** kubeadm keeps the cluster CA here; the API server's kubelet client certificate chains to it. */
export const DEFAULT_CLIENT_CA_FILE = "/etc/kubernetes/pki/ca.crt";

/**
 * The KubeletConfiguration `denolet install` writes (kept if one exists). Nothing is served
 * without authentication: the read-only port is off, and --port either checks every request
 * with the API server (API-server mode) or, standalone, is bound to loopback and takes only the
 * client certificate the install made for root (`LAYOUT.adminCertFile`): no anonymous caller,
 * not even a local user or a hostNetwork pod, reaches pods, logs or exec.
 */
export function defaultConfigYaml(opts: ConfigOptions = {}): string {
  const common = {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    staticPodPath: LAYOUT.manifestDir,
    containerRuntimeEndpoint: "unix:///run/containerd/containerd.sock",
    podLogsDir: LAYOUT.podLogsDir,
  };
  const header =
    "# denolet configuration (KubeletConfiguration, kubelet.config.k8s.io/v1beta1).\n" +
    "# Paths, ports and endpoints here are baked into the binary's permissions: changing them\n" +
    "# needs a binary built for them (deno task compile -- --config <this file>).\n";
  if (opts.kubeconfig) {
    return header +
      "# API-server mode: every node API request is authenticated (client certificates signed\n" +
      "# by the cluster CA, bearer tokens through TokenReview) and authorized by the API server.\n" +
      stringify({
        ...common,
        address: "0.0.0.0",
        port: 10250,
        readOnlyPort: 0,
        authentication: {
          anonymous: { enabled: false },
          webhook: { enabled: true, cacheTTL: "2m0s" },
          x509: { clientCAFile: opts.clientCAFile ?? DEFAULT_CLIENT_CA_FILE },
        },
        authorization: { mode: "Webhook" },
      });
  }
  return header +
    "# Standalone: no API server can vouch for callers, so the node API answers on loopback\n" +
    `# only, to the client certificate install made for root (${LAYOUT.adminCertFile}, key\n` +
    `# beside it), e.g. curl --cacert /var/lib/kubelet/pki/kubelet.crt --cert ${LAYOUT.adminCertFile}\n` +
    `#   --key ${LAYOUT.adminKeyFile} https://127.0.0.1:10250/pods\n` +
    `# Other users: append their CA to ${LAYOUT.clientCAFile}. To open the API to the network,\n` +
    "# change address (every caller still needs such a certificate).\n" +
    stringify({
      ...common,
      address: "127.0.0.1",
      port: 10250,
      readOnlyPort: 0,
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: false },
        x509: { clientCAFile: LAYOUT.clientCAFile },
      },
      authorization: { mode: "AlwaysAllow" },
    });
}
