import { DEFAULT_EVICTION_HARD } from "../eviction/thresholds.ts";
import { serverDefaults } from "./_server_flags.ts";
import { resourceDefaults } from "./_resource_flags.ts";
import type { AgentConfig } from "./types.ts";

/** Upstream `ports.KubeletReadOnlyPort`: the flag default, kept for command-line compatibility. */
export const LEGACY_READ_ONLY_PORT = 10255;

export const DEFAULT_RUNTIME_ENDPOINT = "unix:///run/containerd/containerd.sock";

/**
 * The configuration before the config file and flags are applied. Upstream builds the flag
 * defaults from the v1beta1 defaults plus "legacy" overrides (applyLegacyDefaults); when a
 * --config file is given, the file is defaulted with the plain v1beta1 defaults instead. The only
 * difference among the fields denolet supports is readOnlyPort: 10255 without a file, 0 with one.
 * nodeName is left empty here; the loader fills it from the hostname.
 */
export function defaultConfig(opts: { withConfigFile: boolean }): AgentConfig {
  return {
    staticPodPath: "",
    staticPodURL: "",
    staticPodURLHeader: {},
    containerRuntimeEndpoint: DEFAULT_RUNTIME_ENDPOINT,
    imageServiceEndpoint: "",
    rootDir: "/var/lib/kubelet",
    podLogsDir: "/var/log/pods",
    nodeName: "",
    nodeIP: "",
    syncFrequencyMs: 60_000,
    fileCheckFrequencyMs: 20_000,
    httpCheckFrequencyMs: 20_000,
    address: "0.0.0.0",
    port: 10250,
    readOnlyPort: opts.withConfigFile ? 0 : LEGACY_READ_ONLY_PORT,
    healthzPort: 10248,
    healthzBindAddress: "127.0.0.1",
    runtimeRequestTimeoutMs: 120_000,
    maxPods: 110,
    kubeconfig: "",
    bootstrapKubeconfig: "",
    rotateCertificates: false,
    registerNode: true,
    nodeLabels: {},
    registerWithTaints: [],
    cloudProvider: "",
    providerID: "",
    nodeStatusUpdateFrequencyMs: 10_000,
    nodeStatusReportFrequencyMs: 5 * 60_000,
    nodeLeaseDurationSeconds: 40,
    nodeStatusMaxImages: 50,
    kubeReserved: {},
    systemReserved: {},
    apiCheckpoint: true,
    apiCheckpointSecrets: true,
    kubeAPIQPS: 50,
    kubeAPIBurst: 100,
    clusterDNS: [],
    clusterDomain: "",
    resolvConf: "/etc/resolv.conf",
    podInfraContainerImage: "",
    verbosity: 0,
    evictionHard: { ...DEFAULT_EVICTION_HARD },
    evictionSoft: {},
    evictionSoftGracePeriod: {},
    evictionMinimumReclaim: {},
    evictionPressureTransitionPeriodMs: 5 * 60_000,
    evictionMaxPodGracePeriod: 0,
    mergeDefaultEvictionSettings: false,
    evictStaticPods: false,
    featureGates: {},
    cgroupsPerQOS: true,
    cgroupRoot: "/",
    // Upstream's default is also cgroupfs; kubeadm and k3s nodes set systemd.
    cgroupDriver: "cgroupfs",
    minimumContainerTTLDurationMs: 0,
    maxPerPodContainerCount: 1,
    maxContainerCount: -1,
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    imageMinimumGCAgeMs: 120_000,
    containerLogMaxSizeBytes: 10 * 1024 * 1024,
    containerLogMaxFiles: 5,
    containerLogMonitorIntervalMs: 10_000,
    seccompDefault: false,
    allowedUnsafeSysctls: [],
    defaultPodSysctls: {},
    imagePullCredentialsVerificationPolicy: "NeverVerifyPreloadedImages",
    preloadedImagesVerificationAllowlist: [],
    serializeImagePulls: true,
    maxParallelImagePulls: 0,
    registryPullQPS: 5,
    registryBurst: 10,
    imageMaximumGCAgeMs: 0,
    imageCredentialProviderConfig: "",
    imageCredentialProviderBinDir: "",
    userNamespacesIdsPerPod: 65536,
    shutdownGracePeriodMs: 0,
    shutdownGracePeriodCriticalPodsMs: 0,
    shutdownGracePeriodByPodPriority: [],
    ...resourceDefaults(),
    ...serverDefaults(opts),
  };
}
