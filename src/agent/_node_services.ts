/**
 * The node-level services around the kubelet core: stats, garbage collection, eviction and the
 * Node status. They read the kubelet's pods and act on them through its narrow methods.
 */
import type { EventRecorder } from "../events/mod.ts";
import type { AgentConfig } from "../config/types.ts";
import type { CriClient } from "../cri/mod.ts";
import type { Kubelet, RuntimeCapabilities } from "../kubelet/mod.ts";
import type { LogLinks } from "../runtime/mod.ts";
import { type CgroupDriver, kubepodsCgroupName, podCgroupName } from "../cm/mod.ts";
import { createEvictionManager, evictionConfigFrom } from "../eviction/mod.ts";
import { GarbageCollector } from "../gc/mod.ts";
import { createNodeStatusProvider, type MachineInfo } from "../node/mod.ts";
import { createCadvisorMetrics, createStatsProvider, volumeStatsMetrics } from "../stats/mod.ts";
import type { ClaimVolume } from "../volumes/mod.ts";

/** How often kubelet_volume_stats_* follow the stats provider's samples. */
const VOLUME_METRICS_MS = 10_000;
import { statfs } from "../util/statfs.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import { KUBELET_VERSION } from "./version.ts";
import { declaredFeatures } from "../node/mod.ts";

export interface NodeServicesDeps {
  config: AgentConfig;
  /** The pods' claim volumes as mounted (volume stats with a pvcRef). */
  claimVolumes?: (uid: string) => ClaimVolume[];
  /** The driver the pods' cgroups are made with (the runtime's, or the configured one). */
  cgroupDriver?: CgroupDriver;
  /** The machine facts read at start. */
  machine?: MachineInfo;
  /** The node's IPs, primary first (InternalIP addresses). */
  nodeIPs: string[];
  cri: CriClient;
  kubelet: Kubelet;
  clock: Clock;
  logger: Logger;
  registry: MetricsRegistry;
  signal: AbortSignal;
  /** Events to the API server (API mode). */
  events?: EventRecorder;
  /** The runtime's handlers and features, for the Node's status. */
  runtime?: () => RuntimeCapabilities;
  /** After image GC freed space (the pulled-image records forget removed images). */
  afterImageGC?: (remainingIds: string[], startedAt: number) => Promise<void>;
  /** The /var/log/containers links, for garbage collection. */
  logLinks?: LogLinks;
  /** Why the node is not ready (the runtime's conditions, the PLEG); empty when it is. */
  readiness: () => string[];
  /** More reasons the Node is not Ready (the node shutting down). Cheap. */
  readinessErrors?: () => string[];
}

export function buildNodeServices(deps: NodeServicesDeps) {
  const { config, cri, kubelet: k, clock, logger, signal } = deps;
  const stats = createStatsProvider({
    runtime: cri.runtime,
    image: cri.image,
    clock,
    logger,
    nodeName: config.nodeName,
    rootDir: config.rootDir,
    podLogsDir: config.podLogsDir,
    pods: () => k.podsWithStatus(),
    runtimeEndpoint: config.containerRuntimeEndpoint,
    podCgroupPath: config.cgroupsPerQOS
      ? (pod) => podCgroupName(pod, config.cgroupRoot, deps.cgroupDriver)
      : undefined,
    claimVolumes: deps.claimVolumes,
  });
  // kubelet_volume_stats_* from the latest sample (upstream computes them from its summary);
  // claims exist in API mode only, so a standalone node registers nothing.
  if (deps.claimVolumes) {
    const setVolumeStats = volumeStatsMetrics(deps.registry);
    clock.every(VOLUME_METRICS_MS, () => setVolumeStats(stats.latest()), { signal });
  }
  const gc = new GarbageCollector({
    runtime: cri.runtime,
    image: cri.image,
    clock,
    logger,
    nodeName: config.nodeName,
    podLogsDir: config.podLogsDir,
    podState: {
      shouldPodContentBeRemoved: (uid) => !k.isPodDesired(uid) && k.podWorkState(uid) === undefined,
      shouldPodRuntimeBeRemoved: (uid) => {
        const st = k.podWorkState(uid);
        return st === undefined || st === "terminated";
      },
    },
    sourcesReady: () => k.sourcesReady(),
    containerPolicy: {
      minAgeMs: config.minimumContainerTTLDurationMs,
      maxPerPodContainer: config.maxPerPodContainerCount,
      maxContainers: config.maxContainerCount,
    },
    imagePolicy: {
      highThresholdPercent: config.imageGCHighThresholdPercent,
      lowThresholdPercent: config.imageGCLowThresholdPercent,
      minAgeMs: config.imageMinimumGCAgeMs,
      maxAgeMs: config.imageMaximumGCAgeMs,
    },
    logPolicy: {
      maxSizeBytes: config.containerLogMaxSizeBytes,
      maxFiles: config.containerLogMaxFiles,
    },
    sandboxImage: config.podInfraContainerImage || undefined,
    afterImageGC: deps.afterImageGC,
    periods: { logsMs: config.containerLogMonitorIntervalMs },
    logLinks: deps.logLinks,
  });
  const evictionConfig = evictionConfigFrom(config);
  const eviction = createEvictionManager({
    stats,
    reclaimer: {
      collectContainers: async (o) => void await gc.collectContainers(o),
      collectImages: async (o) => void await gc.collectImages(o),
    },
    pods: () => k.activePods(),
    evictPod: (pod, o) =>
      k.evictPod(pod.metadata!.uid!, {
        reason: o.reason,
        message: o.message,
        gracePeriodSeconds: o.gracePeriodSeconds,
        condition: o.condition,
        signal: o.signal ? AbortSignal.any([signal, o.signal]) : signal,
      }),
    clock,
    logger,
    metrics: deps.registry,
    config: evictionConfig,
    events: deps.events,
    nodeName: config.nodeName,
  });
  // An external cloud provider sets the addresses itself unless --node-ip says them (upstream
  // then reports only the hostname, not a guessed address).
  const external = config.cloudProvider === "external";
  const nodeStatus = createNodeStatusProvider({
    nodeName: config.nodeName,
    hostname: config.nodeName,
    machine: deps.machine,
    localStorageCapacityIsolation: config.localStorageCapacityIsolation,
    // An external cloud provider sets the addresses itself unless --node-ip says them.
    nodeIPs: external && config.nodeIP === "" ? [] : deps.nodeIPs,
    externalCloudProvider: external,
    providedNodeIP: config.nodeIP.split(",").map((s) => s.trim()).filter(Boolean).join(","),
    providerID: config.providerID,
    clock,
    logger,
    agentVersion: KUBELET_VERSION,
    maxPods: config.maxPods,
    port: config.port,
    pressureConditions: () => eviction.conditions(),
    readinessErrors: () => [...deps.readiness(), ...(deps.readinessErrors?.() ?? [])],
    runtimeVersion: async ({ signal }) => {
      const v = await cri.runtime.version({ signal });
      return `${v.runtimeName}://${v.runtimeVersion}`;
    },
    // The first stats sample may not be there yet; statfs keeps the Node from waiting for it.
    nodeFsCapacityBytes: async ({ signal }) =>
      stats.latestNode()?.fs?.capacityBytes ??
        (await statfs(config.rootDir, { signal })).capacityBytes,
    hardThresholds: evictionConfig.thresholds,
    kubeReserved: config.kubeReserved,
    systemReserved: config.systemReserved,
    nodeLabels: config.nodeLabels,
    taints: config.registerWithTaints,
    listImages: ({ signal }) => cri.image.listImages({ signal }),
    maxImages: config.nodeStatusMaxImages,
    runtime: deps.runtime,
    declaredFeatures: () => declaredFeatures(config.featureGates, deps.runtime?.().features),
  });
  // Reads nothing (and loads no code) until /metrics/cadvisor is scraped.
  const cadvisor = createCadvisorMetrics({
    runtime: cri.runtime,
    image: cri.image,
    clock,
    logger,
    nodeName: config.nodeName,
    pods: () => k.podsWithStatus(),
    podsCgroupRoot: config.cgroupsPerQOS
      ? kubepodsCgroupName(config.cgroupRoot, deps.cgroupDriver)
      : undefined,
    sandboxImage: config.podInfraContainerImage || undefined,
  });
  return {
    stats,
    cadvisor,
    eviction,
    nodeStatus,
    /** Runs the background loops until the signal aborts; never rejects. */
    run: () => Promise.all([stats.run({ signal }), gc.run({ signal }), eviction.run({ signal })]),
  };
}
