/**
 * The upstream kubelet's configuration for a standalone run beside the agent (the bench's
 * `upstream` part: no API server, static pods only) or joined to the test control plane (the
 * conformance run), and nothing shared with any other user of the machine — its own runtime,
 * cgroup root, root dir, pod log dir and ports. Pure, so a test can check every field that keeps
 * it away from the shared runtime.
 */

export interface UpstreamKubeletConfigOptions {
  /** The static pod directory (`staticPodPath`). */
  manifestDir: string;
  /** `unix:///...` of the runtime this kubelet may own; never the shared dev containerd's. */
  runtimeEndpoint: string;
  /** The cgroup the kubelet's `kubepods` tree goes under; it must exist before start. */
  cgroupRoot: string;
  /** `podLogsDir`: a private one, since its GC removes the log dirs of pods it does not know. */
  podLogsDir: string;
  /** The authenticated server's port (bound to 127.0.0.1). */
  port: number;
  /** /healthz port (127.0.0.1). */
  healthzPort: number;
  /** The host uses cgroup v1, which the kubelet refuses since v1.35 unless told otherwise. */
  cgroupV1: boolean;
  /**
   * Joined to an API server: the node API listens on every interface (the API server dials the
   * node's InternalIP) and authenticates clients as a kubelet set up by kubeadm does.
   */
  cluster?: { clientCAFile: string };
}

/** KubeletConfiguration (kubelet.config.k8s.io/v1beta1) as JSON, which the kubelet reads as YAML. */
export function renderKubeletConfig(o: UpstreamKubeletConfigOptions): string {
  const config = {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    staticPodPath: o.manifestDir,
    // The agent's bench arguments: the upstream default for both.
    fileCheckFrequency: "20s",
    containerRuntimeEndpoint: o.runtimeEndpoint,
    // As the agent: cgroupfs with a QoS tree (cgroupsPerQOS) under its own root.
    cgroupDriver: "cgroupfs",
    cgroupsPerQOS: true,
    cgroupRoot: o.cgroupRoot,
    ...(o.cgroupV1 ? { failCgroupV1: false } : {}),
    podLogsDir: o.podLogsDir,
    failSwapOn: false,
    address: o.cluster ? "0.0.0.0" : "127.0.0.1",
    port: o.port,
    healthzBindAddress: "127.0.0.1",
    healthzPort: o.healthzPort,
    readOnlyPort: 0,
    ...(o.cluster
      ? {
        // Client certificates from the cluster CA (the API server's), tokens and authorization
        // through the API server's TokenReview and SubjectAccessReview.
        authentication: {
          anonymous: { enabled: false },
          webhook: { enabled: true },
          x509: { clientCAFile: o.cluster.clientCAFile },
        },
        authorization: { mode: "Webhook" },
      }
      : {
        // Standalone: no API server to ask for webhook authn/authz.
        authentication: { anonymous: { enabled: true }, webhook: { enabled: false } },
        authorization: { mode: "AlwaysAllow" },
      }),
    // 100 % never triggers image GC: the test images cannot be pulled back from a registry.
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
  };
  return JSON.stringify(config, null, 2) + "\n";
}

/**
 * Host sysctls the kubelet sets at start (`setupKernelTunables` with protectKernelDefaults off):
 * saved before it starts and written back after it stops, so the shared machine keeps its own.
 */
export const KUBELET_SYSCTLS = [
  "vm/overcommit_memory",
  "vm/panic_on_oom",
  "kernel/panic",
  "kernel/panic_on_oops",
  "kernel/keys/root_maxkeys",
  "kernel/keys/root_maxbytes",
] as const;
