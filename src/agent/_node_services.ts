/**
 * The node-level services around the kubelet core: stats, garbage collection, eviction and the
 * Node status. They read the kubelet's pods and act on them through its narrow methods.
 */
import type { EventRecorder } from "../events/mod.ts";
import type { AgentConfig } from "../config/types.ts";
import type { CriClient } from "../cri/mod.ts";
import type { Kubelet, RuntimeCapabilities } from "../kubelet/mod.ts";
import type { LogLinks } from "../runtime/mod.ts";
import { type CgroupDriver, podCgroupName } from "../cm/mod.ts";
import { createEvictionManager, evictionConfigFrom } from "../eviction/mod.ts";
import { GarbageCollector } from "../gc/mod.ts";
import { createNodeStatusProvider, type MachineInfo } from "../node/mod.ts";
import { createStatsProvider } from "../stats/mod.ts";
import { statfs } from "../util/statfs.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import { VERSION } from "./version.ts";

export interface NodeServicesDeps {
  config: AgentConfig;
  /** The driver the pods' cgroups are made with (the runtime's, or the configured one). */
  cgroupDriver?: CgroupDriver;
  /** The machine facts read at start. */
  machine?: MachineInfo;
  nodeIP: string;
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
  /** The /var/log/containers links, for garbage collection. */
  logLinks?: LogLinks;
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
  });
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
    },
    logPolicy: {
      maxSizeBytes: config.containerLogMaxSizeBytes,
      maxFiles: config.containerLogMaxFiles,
    },
    sandboxImage: config.podInfraContainerImage || undefined,
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
    nodeIPs: deps.nodeIP && !(external && config.nodeIP === "") ? [deps.nodeIP] : [],
    externalCloudProvider: external,
    providedNodeIP: config.nodeIP.split(",").map((s) => s.trim()).filter(Boolean).join(","),
    providerID: config.providerID,
    clock,
    logger,
    agentVersion: VERSION,
    maxPods: config.maxPods,
    port: config.port,
    pressureConditions: () => eviction.conditions(),
    readinessErrors: () => [
      ...k.healthChecks().filter((c) => !c.ok).map((c) => c.message ?? `${c.name} is not healthy`),
      ...(deps.readinessErrors?.() ?? []),
    ],
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
  });
  return {
    stats,
    eviction,
    nodeStatus,
    /** Runs the background loops until the signal aborts; never rejects. */
    run: () => Promise.all([stats.run({ signal }), gc.run({ signal }), eviction.run({ signal })]),
  };
}
