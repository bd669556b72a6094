/**
 * The agent's effective configuration after the config file and flags are merged.
 * Field names follow KubeletConfiguration (kubelet.config.k8s.io/v1beta1) where one exists;
 * durations are milliseconds here (Go duration strings on the wire).
 */
/** A node taint (core/v1 Taint) for --register-with-taints. */
export interface Taint {
  key: string;
  value?: string;
  effect: string;
}

export interface AgentConfig {
  /** --pod-manifest-path / staticPodPath: directory or single file; "" = none. */
  staticPodPath: string;
  /** --manifest-url / staticPodURL; "" = none. */
  staticPodURL: string;
  /** --manifest-url-header / staticPodURLHeader: header name -> values. */
  staticPodURLHeader: Record<string, string[]>;
  /** --container-runtime-endpoint / containerRuntimeEndpoint, e.g. unix:///run/containerd/containerd.sock */
  containerRuntimeEndpoint: string;
  /** --image-service-endpoint / imageServiceEndpoint; "" = same as the runtime endpoint. */
  imageServiceEndpoint: string;
  /** --root-dir (flag only upstream); default /var/lib/kubelet. */
  rootDir: string;
  /** podLogsDir; default /var/log/pods. */
  podLogsDir: string;
  /** --hostname-override, else the lowercased hostname. */
  nodeName: string;
  /** --node-ip; "" = detect the first non-loopback address. */
  nodeIP: string;
  /** syncFrequency, default 1m. */
  syncFrequencyMs: number;
  /** fileCheckFrequency, default 20s. */
  fileCheckFrequencyMs: number;
  /** httpCheckFrequency, default 20s. */
  httpCheckFrequencyMs: number;
  /** address to bind the node API, default 0.0.0.0. */
  address: string;
  /** port, default 10250; 0 disables. */
  port: number;
  /**
   * readOnlyPort; 0 disables. As upstream: 10255 when no --config file is given (the legacy flag
   * default), 0 when one is (the v1beta1 file default); a flag or file value overrides either.
   */
  readOnlyPort: number;
  /** --healthz-port / healthzPort: the plain-HTTP /healthz endpoint, default 10248; 0 disables. */
  healthzPort: number;
  /** --healthz-bind-address / healthzBindAddress: where /healthz listens, default 127.0.0.1. */
  healthzBindAddress: string;
  /** --kubeconfig (flag only); "" runs standalone, without an API server. */
  kubeconfig: string;
  /**
   * --bootstrap-kubeconfig (flag only): credentials (a bootstrap token) to ask for the client
   * certificate with when the --kubeconfig file is missing or its certificate has expired; the
   * certificate goes to --cert-dir and the kubeconfig is written. "" = none.
   */
  bootstrapKubeconfig: string;
  /**
   * --rotate-certificates / rotateCertificates, default false: renew the client certificate
   * through a CSR at 70–90 % of its lifetime.
   */
  rotateCertificates: boolean;
  /** --register-node / registerNode, default true. */
  registerNode: boolean;
  /** --node-labels (flag only): added to the registered Node. */
  nodeLabels: Record<string, string>;
  /**
   * --cloud-provider (flag only): "" or "external" (a cloud controller manager initializes the
   * Node: the uninitialized taint at registration, the provided-node-ip annotation).
   */
  cloudProvider: string;
  /** --provider-id / providerID: the Node's spec.providerID at registration; "" = none. */
  providerID: string;
  /** --register-with-taints / registerWithTaints. */
  registerWithTaints: Taint[];
  /** --node-status-update-frequency / nodeStatusUpdateFrequency, default 10s. */
  nodeStatusUpdateFrequencyMs: number;
  /** nodeStatusReportFrequency, default 5m (or the update frequency when only that is set). */
  nodeStatusReportFrequencyMs: number;
  /** nodeLeaseDurationSeconds, default 40; the lease is renewed every quarter of it. */
  nodeLeaseDurationSeconds: number;
  /** nodeStatusMaxImages, default 50; -1 reports every image. */
  nodeStatusMaxImages: number;
  /** --kube-reserved / kubeReserved and --system-reserved / systemReserved: name -> quantity. */
  kubeReserved: Record<string, string>;
  systemReserved: Record<string, string>;
  /**
   * --api-checkpoint (denolet only, flag only, default true): keep the pods bound to the node and
   * the objects they use under <rootDir>/checkpoint and run them when the agent starts without
   * the API server. false: upstream behaviour (only static pods without the API server).
   */
  apiCheckpoint: boolean;
  /**
   * --api-checkpoint-secrets (denolet only, flag only, default true): with apiCheckpoint, keep
   * the Secrets and service-account tokens too. false: they never reach the disk.
   */
  apiCheckpointSecrets: boolean;
  /** --kube-api-qps / kubeAPIQPS (default 50) and --kube-api-burst / kubeAPIBurst (100). */
  kubeAPIQPS: number;
  kubeAPIBurst: number;
  /** --max-pods / maxPods, default 110: pods beyond it are refused with OutOfpods. */
  maxPods: number;
  /** runtimeRequestTimeout, default 2m. */
  runtimeRequestTimeoutMs: number;
  /** clusterDNS / clusterDomain: used for dnsPolicy ClusterFirst. */
  clusterDNS: string[];
  clusterDomain: string;
  /** resolvConf, default /etc/resolv.conf. */
  resolvConf: string;
  /** Sandbox (pause) image the runtime uses; informational (never garbage-collected). */
  podInfraContainerImage: string;
  /** klog verbosity (-v). */
  verbosity: number;
  /** --eviction-hard / evictionHard: signal -> threshold ("100Mi", "10%"); upstream defaults. */
  evictionHard: Record<string, string>;
  /** --eviction-soft / evictionSoft: signal -> threshold; each needs a grace period. */
  evictionSoft: Record<string, string>;
  /** --eviction-soft-grace-period / evictionSoftGracePeriod: signal -> Go duration. */
  evictionSoftGracePeriod: Record<string, string>;
  /** --eviction-minimum-reclaim / evictionMinimumReclaim: signal -> quantity or percentage. */
  evictionMinimumReclaim: Record<string, string>;
  /** --eviction-pressure-transition-period / evictionPressureTransitionPeriod, default 5m. */
  evictionPressureTransitionPeriodMs: number;
  /** --eviction-max-pod-grace-period / evictionMaxPodGracePeriod (seconds), default 0. */
  evictionMaxPodGracePeriod: number;
  /** mergeDefaultEvictionSettings (file only): a partial evictionHard keeps the other defaults. */
  mergeDefaultEvictionSettings: boolean;
  /** --evict-static-pods (denolet only, default false): static pods are not critical for eviction. */
  evictStaticPods: boolean;
  /**
   * --feature-gates / featureGates: the gates set, by name (a gate not named has denolet's
   * default; read them with `featureEnabled`).
   */
  featureGates: Record<string, boolean>;
  /** --cgroups-per-qos / cgroupsPerQOS, default true: pod cgroups under kubepods. */
  cgroupsPerQOS: boolean;
  /** --cgroup-root / cgroupRoot, default "/" ("" as given upstream means "/" too). */
  cgroupRoot: string;
  /**
   * --cgroup-driver / cgroupDriver: "cgroupfs" (the default) or "systemd"; a runtime that says
   * which it uses (CRI RuntimeConfig, containerd 2) decides instead.
   */
  cgroupDriver: string;
  /**
   * --pod-max-pids / podPidsLimit, default -1: pids.max of each pod cgroup when positive;
   * otherwise pods are bounded by the node's pid capacity only.
   */
  podPidsLimit: number;
  /**
   * --enforce-node-allocatable / enforceNodeAllocatable, default ["pods"]: "pods" sizes kubepods
   * to capacity less the reservations; "kube-reserved", "system-reserved" (and "-compressible",
   * cpu only) limit those cgroups to their reservations; "none" or [] enforces nothing.
   */
  enforceNodeAllocatable: string[];
  /** --kube-reserved-cgroup / kubeReservedCgroup: absolute cgroupfs name; "" = none. */
  kubeReservedCgroup: string;
  /** --system-reserved-cgroup / systemReservedCgroup: absolute cgroupfs name; "" = none. */
  systemReservedCgroup: string;
  /**
   * --local-storage-capacity-isolation / localStorageCapacityIsolation, default true: pods over
   * their emptyDir sizeLimit or ephemeral-storage limits are evicted, and the Node reports its
   * ephemeral-storage capacity (needed for Ready).
   */
  localStorageCapacityIsolation: boolean;
  /** --fail-swap-on / failSwapOn, default true: the agent refuses to start while swap is on. */
  failSwapOn: boolean;
  /**
   * memorySwap.swapBehavior (file only): "" or "NoSwap" (containers get no swap),
   * "LimitedSwap" (Burstable containers get swap in proportion to their memory request,
   * cgroup v2 only).
   */
  memorySwapBehavior: string;
  /** --minimum-container-ttl-duration (flag only), default 0. */
  minimumContainerTTLDurationMs: number;
  /** --maximum-dead-containers-per-container (flag only), default 1. */
  maxPerPodContainerCount: number;
  /** --maximum-dead-containers (flag only), default -1 (no limit). */
  maxContainerCount: number;
  /** --image-gc-high-threshold / imageGCHighThresholdPercent, default 85. */
  imageGCHighThresholdPercent: number;
  /** --image-gc-low-threshold / imageGCLowThresholdPercent, default 80. */
  imageGCLowThresholdPercent: number;
  /** --image-minimum-gc-age / imageMinimumGCAge, default 2m. */
  imageMinimumGCAgeMs: number;
  /** --container-log-max-size / containerLogMaxSize in bytes, default 10Mi. */
  containerLogMaxSizeBytes: number;
  /** --container-log-max-files / containerLogMaxFiles, default 5. */
  containerLogMaxFiles: number;
  /** containerLogMonitorInterval (file only), default 10s. */
  containerLogMonitorIntervalMs: number;
  /**
   * --seccomp-default / seccompDefault, default false: containers whose pod and container name no
   * seccompProfile run with the runtime's default profile instead of unconfined.
   */
  seccompDefault: boolean;
  /**
   * --allowed-unsafe-sysctls / allowedUnsafeSysctls: sysctls (or prefixes ending in `*`) pods may
   * set beyond the safe set; default none.
   */
  allowedUnsafeSysctls: string[];
  /** defaultPodSysctls (file only, with the DefaultPodSysctls gate): sysctls for every pod. */
  defaultPodSysctls: Record<string, string>;
  /** userNamespaces.idsPerPod (file only): host IDs per pod with `hostUsers: false`; 65536. */
  userNamespacesIdsPerPod: number;
  /**
   * shutdownGracePeriod (default 0: off): how long logind is asked to hold a shutdown while
   * pods terminate; shutdownGracePeriodCriticalPods of it is kept for critical pods.
   */
  shutdownGracePeriodMs: number;
  shutdownGracePeriodCriticalPodsMs: number;
  /** shutdownGracePeriodByPodPriority: grace periods by priority (instead of the two above). */
  shutdownGracePeriodByPodPriority: ShutdownGracePeriodByPodPriority[];
  /** --tls-cert-file / tlsCertFile: the node API's serving certificate; "" = self-signed. */
  tlsCertFile: string;
  /** --tls-private-key-file / tlsPrivateKeyFile. */
  tlsPrivateKeyFile: string;
  /** --cert-dir (flag only): the generated or bootstrapped serving pair; default <rootDir>/pki. */
  certDir: string;
  /** --tls-min-version / tlsMinVersion (Go names, VersionTLS12 ...); "" = TLS 1.2. */
  tlsMinVersion: string;
  /** --tls-cipher-suites / tlsCipherSuites (Go names); empty = the TLS stack's secure set. */
  tlsCipherSuites: string[];
  /** --rotate-server-certificates / serverTLSBootstrap: serving certificate through a CSR. */
  serverTLSBootstrap: boolean;
  /** --anonymous-auth / authentication.anonymous.enabled (true without a config file). */
  anonymousAuth: boolean;
  /** --client-ca-file / authentication.x509.clientCAFile; "" = no client certificates. */
  clientCAFile: string;
  /** --authentication-token-webhook / authentication.webhook.enabled (true with a config file). */
  authenticationTokenWebhook: boolean;
  /** authentication.webhook.cacheTTL, default 2m. */
  authenticationTokenWebhookCacheTTLMs: number;
  /** --authorization-mode / authorization.mode: AlwaysAllow, or Webhook (with a config file). */
  authorizationMode: "AlwaysAllow" | "Webhook";
  /** authorization.webhook.cacheAuthorizedTTL, default 5m. */
  authorizationWebhookCacheAuthorizedTTLMs: number;
  /** authorization.webhook.cacheUnauthorizedTTL, default 30s. */
  authorizationWebhookCacheUnauthorizedTTLMs: number;
  /** --enable-debugging-handlers / enableDebuggingHandlers: logs, exec, attach, port-forward. */
  enableDebuggingHandlers: boolean;
  /** enableSystemLogHandler: /logs/ (needs the debugging handlers too). */
  enableSystemLogHandler: boolean;
  /**
   * imagePullCredentialsVerificationPolicy (file only, with KubeletEnsureSecretPulledImages):
   * when a pod must show the credentials an image on the node was pulled with; default
   * NeverVerifyPreloadedImages.
   */
  imagePullCredentialsVerificationPolicy: string;
  /** preloadedImagesVerificationAllowlist (file only): images exempt under NeverVerifyAllowlistedImages. */
  preloadedImagesVerificationAllowlist: string[];
  /** --serialize-image-pulls / serializeImagePulls: one pull at a time (default true). */
  serializeImagePulls: boolean;
  /** maxParallelImagePulls (file only): pulls at once when not serialized; 0 = unset (no limit). */
  maxParallelImagePulls: number;
  /** --registry-qps / registryPullQPS: pulls started per second, default 5; 0 = no limit. */
  registryPullQPS: number;
  /** --registry-burst / registryBurst: pulls started at once above the QPS, default 10. */
  registryBurst: number;
  /** imageMaximumGCAge (file only): unused images older than this are removed; 0 = never. */
  imageMaximumGCAgeMs: number;
  /** --image-credential-provider-config: the CredentialProviderConfig file; "" = no plugins. */
  imageCredentialProviderConfig: string;
  /** --image-credential-provider-bin-dir: where the plugins' executables are. */
  imageCredentialProviderBinDir: string;
}

/** One entry of shutdownGracePeriodByPodPriority: pods from `priority` up get these seconds. */
export interface ShutdownGracePeriodByPodPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}
