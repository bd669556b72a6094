/**
 * The agent's effective configuration after the config file and flags are merged.
 * Field names follow KubeletConfiguration (kubelet.config.k8s.io/v1beta1) where one exists;
 * durations are milliseconds here (Go duration strings on the wire).
 */
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
}
