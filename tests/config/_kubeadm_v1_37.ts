/**
 * The KubeletConfiguration `kubeadm init` v1.37 writes to /var/lib/kubelet/config.yaml with its
 * defaults (cmd/kubeadm/app/componentconfigs/kubelet.go: clusterDNS from the 10.96.0.0/12
 * service subnet, clusterDomain cluster.local, the CA under /etc/kubernetes/pki, anonymous
 * authentication off, Webhook authentication and authorization, healthz on 127.0.0.1:10248,
 * rotateCertificates, cgroupDriver systemd; kubelet_unix.go: systemd-resolved's resolv.conf;
 * phases/kubelet/config.go: the instance config's containerRuntimeEndpoint patched in). kubeadm
 * marshals the v1beta1 struct without the kubelet's defaulting, so every non-pointer duration is
 * written as `0s`, every struct as `{}` or its zero members, keys in order.
 */
export const KUBEADM_CONFIG = `apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
  webhook:
    cacheAuthorizedTTL: 0s
    cacheUnauthorizedTTL: 0s
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: unix:///var/run/containerd/containerd.sock
cpuManagerReconcilePeriod: 0s
crashLoopBackOff: {}
evictionPressureTransitionPeriod: 0s
fileCheckFrequency: 0s
healthzBindAddress: 127.0.0.1
healthzPort: 10248
httpCheckFrequency: 0s
imageMaximumGCAge: 0s
imageMinimumGCAge: 0s
kind: KubeletConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
memorySwap: {}
nodeStatusReportFrequency: 0s
nodeStatusUpdateFrequency: 0s
resolvConf: /run/systemd/resolve/resolv.conf
rotateCertificates: true
runtimeRequestTimeout: 0s
shutdownGracePeriod: 0s
shutdownGracePeriodCriticalPods: 0s
staticPodPath: /etc/kubernetes/manifests
streamingConnectionIdleTimeout: 0s
syncFrequency: 0s
volumeStatsAggPeriod: 0s
`;

/** kubeadm's systemd drop-in (10-kubeadm.conf) and kubeadm-flags.env, as `kubeadm init` leaves them. */
export const KUBEADM_ARGS = [
  "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
  "--kubeconfig=/etc/kubernetes/kubelet.conf",
  "--config=/var/lib/kubelet/config.yaml",
];

/**
 * The kubelet arguments k3s v1.37 passes (pkg/daemons/agent/agent_linux.go, kubeletArgsAndConfig,
 * on a node with the embedded cloud controller, a credential provider set up and the runtime in
 * the k3s cgroup); its KubeletConfiguration goes to --config-dir.
 */
export const K3S_ARGS = [
  "--cert-dir=/var/lib/rancher/k3s/agent/kubelet/pki",
  "--cloud-provider=external",
  "--config-dir=/var/lib/rancher/k3s/agent/etc/kubelet.conf.d",
  "--hostname-override=edge-1",
  "--image-credential-provider-bin-dir=/var/lib/rancher/credentialprovider/bin",
  "--image-credential-provider-config=/var/lib/rancher/credentialprovider/config.yaml",
  "--kubeconfig=/var/lib/rancher/k3s/agent/kubelet.kubeconfig",
  "--node-ip=10.0.0.5",
  "--node-labels=",
  "--read-only-port=0",
  "--root-dir=/var/lib/rancher/k3s/agent/kubelet",
  "--runtime-cgroups=/k3s",
];
