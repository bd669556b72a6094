/**
 * The configuration as a KubeletConfiguration document (v1beta1 JSON names, durations as Go
 * strings): every field the config file reader takes, so that reading the document back gives
 * the same configuration. What --config-dir drop-ins are merged into (upstream merges them into
 * the versioned JSON of the configuration so far) and what /configz shows.
 */
import { formatDuration } from "./duration.ts";
import type { AgentConfig } from "./types.ts";

export type ConfigDocument = Record<string, unknown>;

export function configDocument(c: AgentConfig): ConfigDocument {
  const d = formatDuration;
  return {
    staticPodPath: c.staticPodPath,
    staticPodURL: c.staticPodURL,
    staticPodURLHeader: structuredClone(c.staticPodURLHeader),
    containerRuntimeEndpoint: c.containerRuntimeEndpoint,
    imageServiceEndpoint: c.imageServiceEndpoint,
    podLogsDir: c.podLogsDir,
    syncFrequency: d(c.syncFrequencyMs),
    fileCheckFrequency: d(c.fileCheckFrequencyMs),
    httpCheckFrequency: d(c.httpCheckFrequencyMs),
    address: c.address,
    port: c.port,
    readOnlyPort: c.readOnlyPort,
    healthzPort: c.healthzPort,
    healthzBindAddress: c.healthzBindAddress,
    runtimeRequestTimeout: d(c.runtimeRequestTimeoutMs),
    maxPods: c.maxPods,
    registerNode: c.registerNode,
    rotateCertificates: c.rotateCertificates,
    registerWithTaints: c.registerWithTaints.map((t) => ({ ...t })),
    providerID: c.providerID,
    nodeStatusUpdateFrequency: d(c.nodeStatusUpdateFrequencyMs),
    nodeStatusReportFrequency: d(c.nodeStatusReportFrequencyMs),
    nodeLeaseDurationSeconds: c.nodeLeaseDurationSeconds,
    nodeStatusMaxImages: c.nodeStatusMaxImages,
    kubeReserved: { ...c.kubeReserved },
    systemReserved: { ...c.systemReserved },
    kubeAPIQPS: c.kubeAPIQPS,
    kubeAPIBurst: c.kubeAPIBurst,
    clusterDNS: [...c.clusterDNS],
    clusterDomain: c.clusterDomain,
    resolvConf: c.resolvConf,
    logging: { format: "text", verbosity: c.verbosity },
    evictionHard: { ...c.evictionHard },
    evictionSoft: { ...c.evictionSoft },
    evictionSoftGracePeriod: { ...c.evictionSoftGracePeriod },
    evictionMinimumReclaim: { ...c.evictionMinimumReclaim },
    evictionPressureTransitionPeriod: d(c.evictionPressureTransitionPeriodMs),
    evictionMaxPodGracePeriod: c.evictionMaxPodGracePeriod,
    mergeDefaultEvictionSettings: c.mergeDefaultEvictionSettings,
    featureGates: { ...c.featureGates },
    cgroupsPerQOS: c.cgroupsPerQOS,
    cgroupRoot: c.cgroupRoot,
    cgroupDriver: c.cgroupDriver,
    podPidsLimit: c.podPidsLimit,
    enforceNodeAllocatable: [...c.enforceNodeAllocatable],
    kubeReservedCgroup: c.kubeReservedCgroup,
    systemReservedCgroup: c.systemReservedCgroup,
    localStorageCapacityIsolation: c.localStorageCapacityIsolation,
    failSwapOn: c.failSwapOn,
    memorySwap: { swapBehavior: c.memorySwapBehavior },
    imageGCHighThresholdPercent: c.imageGCHighThresholdPercent,
    imageGCLowThresholdPercent: c.imageGCLowThresholdPercent,
    imageMinimumGCAge: d(c.imageMinimumGCAgeMs),
    containerLogMaxSize: byteQuantity(c.containerLogMaxSizeBytes),
    containerLogMaxFiles: c.containerLogMaxFiles,
    containerLogMonitorInterval: d(c.containerLogMonitorIntervalMs),
    seccompDefault: c.seccompDefault,
    allowedUnsafeSysctls: [...c.allowedUnsafeSysctls],
    defaultPodSysctls: { ...c.defaultPodSysctls },
    userNamespaces: { idsPerPod: c.userNamespacesIdsPerPod },
    imagePullCredentialsVerificationPolicy: c.imagePullCredentialsVerificationPolicy,
    preloadedImagesVerificationAllowlist: [...c.preloadedImagesVerificationAllowlist],
    serializeImagePulls: c.serializeImagePulls,
    // A pointer upstream: unset (0 here) is null, which the reader takes as absent.
    maxParallelImagePulls: c.maxParallelImagePulls || null,
    registryPullQPS: c.registryPullQPS,
    registryBurst: c.registryBurst,
    imageMaximumGCAge: d(c.imageMaximumGCAgeMs),
    shutdownGracePeriod: d(c.shutdownGracePeriodMs),
    shutdownGracePeriodCriticalPods: d(c.shutdownGracePeriodCriticalPodsMs),
    shutdownGracePeriodByPodPriority: c.shutdownGracePeriodByPodPriority.map((e) => ({ ...e })),
    tlsCertFile: c.tlsCertFile,
    tlsPrivateKeyFile: c.tlsPrivateKeyFile,
    tlsCipherSuites: [...c.tlsCipherSuites],
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
  };
}

/** Bytes as a quantity in the largest binary unit that divides them ("10Mi"). */
function byteQuantity(bytes: number): string {
  for (const [unit, size] of [["Gi", 2 ** 30], ["Mi", 2 ** 20], ["Ki", 2 ** 10]] as const) {
    if (bytes > 0 && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/**
 * RFC 7386 JSON merge patch (what upstream merges drop-ins with): objects merge key by key,
 * `null` removes a key, anything else (lists too) replaces.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
