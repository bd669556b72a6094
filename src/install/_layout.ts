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
  manifestDir: "/etc/kubernetes/manifests",
  rootDir: "/var/lib/kubelet",
  podLogsDir: "/var/log/pods",
} as const;

export const MODES = {
  binary: 0o755,
  unit: 0o644,
  configDir: 0o755,
  /** May hold manifest URL headers (tokens). */
  config: 0o600,
  manifestDir: 0o700,
  rootDir: 0o750,
  podLogsDir: 0o755,
} as const;

/** The KubeletConfiguration `denolet install` writes (kept if one exists). */
export function defaultConfigYaml(): string {
  return "# denolet configuration (KubeletConfiguration, kubelet.config.k8s.io/v1beta1).\n" +
    "# Paths, ports and endpoints here are baked into the binary's permissions: changing them\n" +
    "# needs a binary built for them (deno task compile -- --config <this file>).\n" +
    stringify({
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      staticPodPath: LAYOUT.manifestDir,
      containerRuntimeEndpoint: "unix:///run/containerd/containerd.sock",
      podLogsDir: LAYOUT.podLogsDir,
      address: "0.0.0.0",
      port: 10250,
      readOnlyPort: 10255,
    });
}
