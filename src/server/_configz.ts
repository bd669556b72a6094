/**
 * `/configz`: the running configuration under upstream's KubeletConfiguration names (durations
 * as Go strings), the way `kubectl get --raw /api/v1/nodes/<node>/proxy/configz` shows a
 * kubelet's. Flag-only settings (root dir, node name, kubeconfig, ...) are not part of it.
 */
import type { AgentConfig } from "../config/types.ts";
import { formatDuration } from "../config/duration.ts";

export function configzView(c: AgentConfig): Record<string, unknown> {
  const d = formatDuration;
  return {
    enableServer: true,
    staticPodPath: c.staticPodPath,
    podLogsDir: c.podLogsDir,
    syncFrequency: d(c.syncFrequencyMs),
    fileCheckFrequency: d(c.fileCheckFrequencyMs),
    httpCheckFrequency: d(c.httpCheckFrequencyMs),
    staticPodURL: c.staticPodURL,
    staticPodURLHeader: c.staticPodURLHeader,
    address: c.address,
    port: c.port,
    readOnlyPort: c.readOnlyPort,
    healthzPort: c.healthzPort,
    healthzBindAddress: c.healthzBindAddress,
    tlsCertFile: c.tlsCertFile,
    tlsPrivateKeyFile: c.tlsPrivateKeyFile,
    tlsCipherSuites: c.tlsCipherSuites,
    tlsMinVersion: c.tlsMinVersion,
    serverTLSBootstrap: c.serverTLSBootstrap,
    authentication: {
      x509: { clientCAFile: c.clientCAFile },
      webhook: {
        enabled: c.authenticationTokenWebhook,
        cacheTTL: d(c.authenticationTokenWebhookCacheTTLMs),
      },
      anonymous: { enabled: c.anonymousAuth },
    },
    authorization: {
      mode: c.authorizationMode,
      webhook: {
        cacheAuthorizedTTL: d(c.authorizationWebhookCacheAuthorizedTTLMs),
        cacheUnauthorizedTTL: d(c.authorizationWebhookCacheUnauthorizedTTLMs),
      },
    },
    enableDebuggingHandlers: c.enableDebuggingHandlers,
    enableSystemLogHandler: c.enableSystemLogHandler,
    clusterDomain: c.clusterDomain,
    clusterDNS: c.clusterDNS,
    registerNode: c.registerNode,
    registerWithTaints: c.registerWithTaints,
    providerID: c.providerID,
    nodeStatusUpdateFrequency: d(c.nodeStatusUpdateFrequencyMs),
    nodeStatusReportFrequency: d(c.nodeStatusReportFrequencyMs),
    nodeLeaseDurationSeconds: c.nodeLeaseDurationSeconds,
    nodeStatusMaxImages: c.nodeStatusMaxImages,
    kubeAPIQPS: c.kubeAPIQPS,
    kubeAPIBurst: c.kubeAPIBurst,
    maxPods: c.maxPods,
    kubeReserved: c.kubeReserved,
    systemReserved: c.systemReserved,
    runtimeRequestTimeout: d(c.runtimeRequestTimeoutMs),
    resolvConf: c.resolvConf,
    cgroupsPerQOS: c.cgroupsPerQOS,
    cgroupRoot: c.cgroupRoot,
    cgroupDriver: c.cgroupDriver,
    evictionHard: c.evictionHard,
    evictionSoft: c.evictionSoft,
    evictionSoftGracePeriod: c.evictionSoftGracePeriod,
    evictionMinimumReclaim: c.evictionMinimumReclaim,
    evictionPressureTransitionPeriod: d(c.evictionPressureTransitionPeriodMs),
    evictionMaxPodGracePeriod: c.evictionMaxPodGracePeriod,
    imageGCHighThresholdPercent: c.imageGCHighThresholdPercent,
    imageGCLowThresholdPercent: c.imageGCLowThresholdPercent,
    imageMinimumGCAge: d(c.imageMinimumGCAgeMs),
    containerRuntimeEndpoint: c.containerRuntimeEndpoint,
    imageServiceEndpoint: c.imageServiceEndpoint,
    containerLogMaxSize: String(c.containerLogMaxSizeBytes),
    containerLogMaxFiles: c.containerLogMaxFiles,
    containerLogMonitorInterval: d(c.containerLogMonitorIntervalMs),
    seccompDefault: c.seccompDefault,
    logging: { format: "text", verbosity: c.verbosity },
  };
}
