/**
 * Builds the agent from its configuration and runs it until the signal aborts. Containers keep
 * running when the agent stops, as with the upstream kubelet: the next start adopts them.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { AgentConfig } from "../config/types.ts";
import type { Image, RuntimeConfigResponse } from "../cri/types.ts";
import { PullManager, type VerificationPolicy, verificationPolicy } from "../images/mod.ts";
import { featureEnabled } from "../config/mod.ts";
import { type Clock, offsetWallClock, processUptimeMs, realClock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { createMetricsRegistry } from "../util/metrics.ts";
import { processCollector } from "../util/process_metrics.ts";
import { createCriClient } from "../cri/mod.ts";
import {
  CONTAINER_LOGS_DIR,
  containerSwapBehavior,
  createLogLinks,
  createRuntimeManager,
  downwardAPIValues,
  LEGACY_HASHES_FILE,
  LegacyHashes,
} from "../runtime/mod.ts";
import {
  ACTUATED_PODS_STATE_FILE,
  ALLOCATED_PODS_STATE_FILE,
  PodResourceState,
} from "../allocation/mod.ts";
import { createVolumeManager, downwardAPIPlugin } from "../volumes/mod.ts";
import {
  type CgroupDriver,
  DEFAULT_CGROUP_MOUNT,
  detectCgroupVersion,
  dirCgroupFs,
  openPodCgroups,
  resolveCgroupDriver,
  resourceConfigForPod,
} from "../cm/mod.ts";
import { createPleg, createPodStatusCache } from "../pleg/mod.ts";
import { createProbeManager } from "../prober/mod.ts";
import { handlerUserNamespaces, Kubelet, RuntimeState } from "../kubelet/mod.ts";
import { openUserNamespaces } from "../userns/mod.ts";
import { createPodAdmission, ephemeralContainerProblem } from "../admission/mod.ts";
import { isUnimplemented } from "../cri/mod.ts";
import {
  createHealthzHandler,
  createNodeApiHandler,
  serveAuthenticatedNodeApi,
  serveHealthz,
  serveNodeApi,
} from "../server/mod.ts";
import { createAgentObservers } from "./_metrics.ts";
import { nodeIPsFrom } from "./_node_ip.ts";
import { hostAppArmorEnabled, listPodDirs, readResolvConf } from "./_host.ts";
import { buildSources } from "./_sources.ts";
import { buildNodeServices } from "./_node_services.ts";
import { lazyCsi } from "./_csi.ts";
import { nodeAllocatableSetup } from "./_node_allocatable.ts";
import { swapSetup } from "./_swap.ts";
import { buildNodeShutdown } from "./_node_shutdown.ts";
import type { ShutdownManager } from "../nodeshutdown/mod.ts";
import { VERSION } from "./version.ts";

export { VERSION };

export interface RunAgentOptions {
  signal: AbortSignal;
  logger: Logger;
  clock?: Clock;
}

type Admit = (pod: V1Pod) => { admit: boolean; reason?: string; message?: string };

export async function runAgent(config: AgentConfig, opts: RunAgentOptions): Promise<void> {
  const { logger } = opts;
  // A part that cannot go on (no client certificate) stops the agent as a signal would, then
  // runAgent throws its error.
  const failed = new AbortController();
  const signal = AbortSignal.any([opts.signal, failed.signal]);
  const offsetFile = Deno.env.get("DENOLET_TEST_WALL_OFFSET_FILE");
  const clock = opts.clock ?? (offsetFile ? offsetWallClock(offsetFile) : realClock);
  // --node-ip as upstream: one address or a dual-stack pair (primary first), else detected.
  const nodeIPs = nodeIPsFrom(config.nodeIP);
  const nodeIP = nodeIPs[0] ?? "";
  logger.info("Starting denolet", {
    sinceStartMs: processUptimeMs(),
    version: VERSION,
    node: config.nodeName,
    nodeIP: nodeIPs.join(","),
    runtime: config.containerRuntimeEndpoint,
    staticPodPath: config.staticPodPath || undefined,
    staticPodURL: config.staticPodURL || undefined,
  });

  await Deno.mkdir(config.rootDir, { recursive: true, mode: 0o750 });
  await Deno.mkdir(config.podLogsDir, { recursive: true, mode: 0o755 });
  const hostDNS = await readResolvConf(config.resolvConf, logger);
  const registry = createMetricsRegistry();
  // API-server mode: loaded only with --kubeconfig, so a standalone node pays nothing for it.
  const cluster = config.kubeconfig
    ? await (await import("../cluster/mod.ts")).startClusterMode({
      config,
      clock,
      logger,
      nodeIP,
      version: VERSION,
      registry,
      signal,
      fail: (err) => {
        logger.error("Stopping the agent", { err: errorMessage(err) });
        failed.abort(err);
      },
    })
    : undefined;

  // process_* as the Go client gives upstream's /metrics; read only when scraped.
  registry.registerCollector(processCollector());
  const metrics = createAgentObservers(registry, () => clock.monotonic());
  const cri = createCriClient(config.containerRuntimeEndpoint, {
    timeoutMs: config.runtimeRequestTimeoutMs,
    imageEndpoint: config.imageServiceEndpoint || undefined,
    logger,
    onCall: (method, ms, err) => metrics.runtimeCall(method, ms, err),
  });
  const pullRecords = await startPullRecords(config, { cri, clock, logger });
  // Credential provider plugins: loaded only when configured (footprint).
  const plugins = config.imageCredentialProviderConfig || config.imageCredentialProviderBinDir
    ? await (await import("../credentials/plugins/mod.ts")).loadCredentialProviders({
      configPath: config.imageCredentialProviderConfig,
      binDir: config.imageCredentialProviderBinDir,
      clock,
      logger,
      serviceAccountTokens: featureEnabled(
        config,
        "KubeletServiceAccountTokenForCredentialProviders",
      ),
      serviceAccounts: cluster?.serviceAccounts,
    })
    : undefined;
  // CSI (API mode only) loads when a plugin registers or a pod needs it; pods waiting for a
  // driver sync again when one registers.
  const resyncPods = { all: () => {} };
  const nodeStatusUpdate = { request: () => {} };
  const csi = cluster
    ? lazyCsi({
      rootDir: config.rootDir,
      nodeName: config.nodeName,
      client: cluster.client,
      clock,
      logger,
      onChange: () => resyncPods.all(),
      onReadinessChange: () => nodeStatusUpdate.request(),
      nodeUid: () => cluster.admissionNode?.()?.metadata?.uid,
    })
    : undefined;
  // downwardAPI needs no API server; configMap, secret and projected come with the cluster.
  const volumes = createVolumeManager({
    rootDir: config.rootDir,
    logger,
    clock,
    plugins: [downwardAPIPlugin(downwardAPIValues()), ...(cluster?.volumePlugins ?? [])],
    podMemoryLimitBytes: podMemoryLimit,
    claims: cluster?.claims,
    // PersistentVolume node affinity: the Node's labels; before the Node is seen (offline after
    // a reboot), the labels this agent gives it.
    nodeLabels: () => cluster?.admissionNode?.()?.metadata?.labels ?? ownNodeLabels(config),
    csi: csi?.persistent,
    csiInline: csi?.inline,
    csiTearDown: csi?.tearDown,
  });
  const allocatable = await nodeAllocatableSetup(config, { logger });
  // The host's hierarchy, whether or not pod cgroups are on (upstream isCgroup2UnifiedMode).
  const cgroupVersion = await detectCgroupVersion(dirCgroupFs(), DEFAULT_CGROUP_MOUNT);
  const swap = await swapSetup(config, { cgroupVersion, machine: allocatable.machine, logger });
  // The runtime's driver where it says (containerd 2), else the configured one; read once,
  // before any cgroup is made, as upstream does.
  let runtimeConfigAnswer: RuntimeConfigResponse | undefined;
  const cgroupDriver = await resolveCgroupDriver(config.cgroupDriver as CgroupDriver, {
    runtimeConfig: async (o) => {
      // Each try bounded: a runtime still starting must not hold the start for a whole
      // runtime request timeout.
      const bounded = AbortSignal.any([o.signal ?? signal, AbortSignal.timeout(10_000)]);
      runtimeConfigAnswer = await readRuntimeConfig(cri.runtime, bounded);
      return runtimeConfigAnswer;
    },
    logger,
    clock,
    signal,
  });
  const podCgroups = await openPodCgroups({
    cgroupsPerQOS: config.cgroupsPerQOS,
    cgroupRoot: config.cgroupRoot,
    cgroupDriver,
    hugePageSizes: allocatable.hugePageSizes,
  }, {
    logger,
    clock,
    rootDir: config.rootDir,
    podPidsLimit: config.podPidsLimit,
    nodeAllocatable: allocatable.nodeAllocatable,
    reserved: allocatable.reserved,
    nodeEvents: cluster?.events && { events: cluster.events, nodeName: config.nodeName },
  });

  // In-place resize: what each pod was allocated and what its containers were last told, in
  // upstream's checkpoints under the root dir; a corrupt one stops the start, as upstream.
  const allocatedState = await PodResourceState.open({
    path: `${config.rootDir}/${ALLOCATED_PODS_STATE_FILE}`,
    logger,
  });
  const actuatedState = await PodResourceState.open({
    path: `${config.rootDir}/${ACTUATED_PODS_STATE_FILE}`,
    logger,
  });
  const legacyHashes = await LegacyHashes.open({
    path: `${config.rootDir}/${LEGACY_HASHES_FILE}`,
    logger,
  });
  const podLevelResize = featureEnabled(config, "InPlacePodLevelResourcesVerticalScaling");

  // Parts that need each other (the prober reads the kubelet's statuses and reports to it; the
  // kubelet admits through the eviction manager, which needs the kubelet's pods) meet here.
  const late: { kubelet?: Kubelet; admit?: Admit; shutdown?: ShutdownManager } = {};
  const prober = createProbeManager({
    runtime: cri.runtime,
    clock,
    logger,
    getStatus: (uid) => late.kubelet?.statuses.get(uid),
    onUpdate: (u) => late.kubelet?.onProbeUpdate(u),
    metrics: registry,
    events: cluster?.events,
  });
  const logLinks = createLogLinks(CONTAINER_LOGS_DIR, logger);
  // What the runtime can do (CRI Status, RuntimeConfig), refreshed by housekeeping.
  const runtimeState = new RuntimeState({ clock });
  runtimeState.updateConfig(runtimeConfigAnswer);
  runtimeState.onChange((caps) => {
    // Upstream reads the driver once too; a runtime reconfigured since needs an agent restart.
    if (caps.cgroupDriver !== undefined && caps.cgroupDriver !== cgroupDriver) {
      logger.warn(
        "The runtime's cgroup driver is not the one pods' cgroups are made with; " +
          "restart the agent",
        { runtime: caps.cgroupDriver, agent: cgroupDriver },
      );
    }
  });
  // Read at start, as upstream: a `kubelet` user whose subordinate IDs cannot serve maxPods
  // pods stops the agent here.
  let statusRead = false;
  const userns = await openUserNamespaces({
    rootDir: config.rootDir,
    logger,
    handlerSupport: async (handler) => {
      // A pod may sync before housekeeping's first Status: ask, rather than refuse it.
      if (!statusRead) runtimeState.updateStatus(await cri.runtime.status({ signal }));
      statusRead = true;
      return handlerUserNamespaces(runtimeState.capabilities, handler);
    },
  }, { idsPerPod: config.userNamespacesIdsPerPod, maxPods: config.maxPods });
  const runtime = createRuntimeManager({
    node: {
      cgroupVersion,
      seccompDefault: config.seccompDefault,
      hugePageSizes: allocatable.hugePageSizes,
      swap,
    },
    runtime: cri.runtime,
    image: cri.image,
    events: cluster?.events,
    volumes,
    clock,
    logger,
    nodeName: config.nodeName,
    podLogsDir: config.podLogsDir,
    rootDir: config.rootDir,
    runtimeRequestTimeoutMs: config.runtimeRequestTimeoutMs,
    probeFailure: (id) => prober.probeFailure(id),
    startupSucceeded: (id) => prober.startupSucceeded(id),
    podCgroups,
    envObjects: cluster?.objects,
    pullSecrets: cluster?.objects,
    pullRecords,
    imagePulls: {
      serialize: config.serializeImagePulls,
      maxParallel: config.maxParallelImagePulls || undefined,
    },
    imagePullRate: { qps: config.registryPullQPS, burst: config.registryBurst },
    keyrings: plugins ? (pod) => [plugins.keyring(pod)] : undefined,
    services: cluster?.services,
    runtimeHandler: cluster?.runtimeHandler,
    logLinks,
    ephemeralProblem: (pod, name) =>
      ephemeralContainerProblem(pod, name, {
        apiMode: cluster !== undefined,
        runtime: () => runtimeState.capabilities,
      }),
    userns,
    runtimeHandlers: () => runtimeState.capabilities.handlers,
    actuated: actuatedState,
    legacyHashes,
    podLevelResize,
    sandboxOptions: {
      podLogsDir: config.podLogsDir,
      clusterDNS: config.clusterDNS,
      clusterDomain: config.clusterDomain,
      hostDNS,
      resolvConf: config.resolvConf,
      nodeIPs,
      defaultPodSysctls: featureEnabled(config, "DefaultPodSysctls")
        ? config.defaultPodSysctls
        : undefined,
    },
  });
  const cache = createPodStatusCache({ clock });
  const pleg = createPleg({
    runtime,
    cache,
    clock,
    logger,
    onRelist: (ms, err) => metrics.relist(ms, err),
    // Without the gate the PLEG relists every second, as upstream does by default.
    events: featureEnabled(config, "EventedPLEG")
      ? (onEvent, o) => cri.runtime.containerEvents!(onEvent, o)
      : undefined,
  });
  const podAdmission = createPodAdmission({
    apiMode: cluster !== undefined,
    runtime: () => runtimeState.capabilities,
    allowedUnsafeSysctls: config.allowedUnsafeSysctls,
    kernelRelease: Deno.osRelease(),
    appArmorEnabled: hostAppArmorEnabled(),
  });
  // RuntimeConfig is read at start and again whenever the runtime comes back.
  let runtimeConfigStale = true;
  /** CRI Status every housekeeping round; RuntimeConfig at start and after an outage. */
  const refreshRuntime = async (signal: AbortSignal) => {
    try {
      runtimeState.updateStatus(await cri.runtime.status({ signal }));
      statusRead = true;
    } catch (e) {
      runtimeConfigStale = true;
      throw e;
    }
    if (runtimeConfigStale) {
      runtimeState.updateConfig(await readRuntimeConfig(cri.runtime, signal));
      runtimeConfigStale = false;
    }
  };
  const kubelet = new Kubelet({
    sources: [
      ...buildSources(config, { clock, logger, apiMode: cluster !== undefined }),
      ...(cluster?.podSource ? [cluster.podSource] : []),
    ],
    statusSink: cluster?.statusSink,
    events: cluster?.events,
    admissionNode: cluster?.admissionNode,
    runtime,
    pleg,
    cache,
    clock,
    logger,
    prober,
    admit: (pod) => {
      const eviction = late.admit?.(pod);
      if (eviction && !eviction.admit) return eviction;
      const fields = podAdmission(pod);
      if (!fields.admit) return fields;
      // Upstream's shutdown admit handler: no new pods while the node shuts down.
      return late.shutdown?.admit(pod) ?? fields;
    },
    syncFrequencyMs: config.syncFrequencyMs,
    maxPods: config.maxPods,
    allocated: allocatedState,
    resize: {
      podLevel: podLevelResize,
      cgroupVersion,
      swapBehavior: (pod, c) => containerSwapBehavior(pod, c, { swap, cgroupVersion }),
    },
    nodeAllocatable: allocatable.nodeAllocatable,
    nodeIP: nodeIP || undefined,
    nodeIPs,
    podCgroups,
    podDirs: {
      list: () => Promise.resolve(listPodDirs(config.rootDir)),
      remove: async (uid, o) => {
        await volumes.tearDownPod(uid, o);
        // Upstream CleanupOrphanedPodUsernsAllocations: the orphan's range is free again.
        await userns.release(uid);
      },
    },
    checkRuntime: ({ signal }) => refreshRuntime(signal),
    observe: {
      podWorker: (op, ms) => metrics.podWorker(op, ms),
      loopIteration: (ms) => metrics.syncLoop(ms),
    },
  });
  late.kubelet = kubelet;
  resyncPods.all = () =>
    kubelet.podManager.pods().forEach((p) => kubelet.requestSync(p.metadata?.uid ?? ""));
  metrics.counts(() => kubelet.runningCounts());

  const node = buildNodeServices({
    config,
    claimVolumes: cluster ? volumes.claimVolumes : undefined,
    cgroupDriver,
    machine: allocatable.machine,
    nodeIPs,
    cri,
    kubelet,
    clock,
    logger,
    registry,
    signal,
    events: cluster?.events,
    runtime: () => runtimeState.capabilities,
    afterImageGC: pullRecords
      ? (ids, startedAt) => pullRecords.pruneUnknownRecords(ids, startedAt)
      : undefined,
    // Upstream's runtime health checks: the runtime's own conditions and the PLEG's.
    readiness: () => runtimeState.readinessErrors([{ name: "PLEG", ...pleg.healthy() }]),
    logLinks,
    readinessErrors: () => {
      const shutting = late.shutdown?.shutdownStatus();
      // Upstream's order: runtime, network, storage, then node shutdown.
      return [...(csi?.readinessErrors() ?? []), ...(shutting ? [shutting] : [])];
    },
  });
  nodeStatusUpdate.request = () => node.nodeStatus.requestUpdate();
  late.admit = (pod) => node.eviction.admit(pod);
  late.shutdown = await buildNodeShutdown(config, {
    kubelet,
    clock,
    logger,
    registry,
    events: cluster?.events,
    syncNodeStatus: () => node.nodeStatus.requestUpdate(),
  });

  const api = {
    nodeName: config.nodeName,
    pods: () => kubelet.podsWithStatus(),
    runningPods: (o: { signal?: AbortSignal }) =>
      runtime.getPods({ all: false, signal: o?.signal }),
    healthChecks: () => [...kubelet.healthChecks(), ...(cluster?.healthChecks?.() ?? [])],
    manifestProblems: () => kubelet.manifestProblems(),
    metrics: registry,
    stats: node.stats,
    cadvisor: node.cadvisor,
    node: (o: { signal?: AbortSignal }) => node.nodeStatus.node(o),
    logger,
  };
  // Bind before anything runs, so a taken port fails the start cleanly. The read-only port is
  // plain HTTP without authentication; --port is HTTPS with authentication and authorization.
  const servers = [];
  if (config.readOnlyPort !== 0) {
    servers.push(
      await serveNodeApi(createNodeApiHandler(api), {
        address: config.address,
        port: config.readOnlyPort,
        logger,
        signal,
      }),
    );
  }
  if (config.healthzPort !== 0) {
    servers.push(serveHealthz(createHealthzHandler({ logger }), {
      address: config.healthzBindAddress,
      port: config.healthzPort,
      logger,
      clock,
      signal,
    }));
  }
  if (config.port !== 0) {
    // Upstream's flag defaults, kept for compatibility, open exec and logs to anyone who can
    // connect; an installed node's older config may still carry them. Said at every start.
    if (
      config.anonymousAuth && config.authorizationMode === "AlwaysAllow" &&
      config.enableDebuggingHandlers
    ) {
      logger.warn(
        "The node API lets anyone who reaches it read logs and run commands in containers " +
          "(anonymous access with AlwaysAllow); set --anonymous-auth=false with " +
          "--client-ca-file, or --authorization-mode=Webhook",
        { address: `${config.address}:${config.port}` },
      );
    }
    servers.push(
      await serveAuthenticatedNodeApi({
        config,
        nodeIPs,
        api,
        cri,
        clock,
        logger,
        apiClient: cluster?.client,
        reviewClient: cluster?.reviewClient,
        signal,
      }),
    );
  }

  const background = Promise.all([
    node.run(),
    cluster?.run({ kubelet, nodeStatus: node.nodeStatus, cri }, { signal }),
    csi?.run({ signal }),
    late.shutdown?.run({ signal }),
  ]);
  // As upstream, pods are synced knowing what the runtime can do (handlers, features): one
  // Status before the first sync, briefly; an unreachable runtime is housekeeping's to report.
  await refreshRuntime(AbortSignal.any([signal, AbortSignal.timeout(5_000)])).catch((err) =>
    logger.debug(1, "The runtime's status is not known yet", { err: errorMessage(err) })
  );
  logger.debug(1, "Start phase: syncing pods", { sinceStartMs: processUptimeMs() });
  try {
    await kubelet.run(signal);
  } finally {
    await background;
    // What a resize changed last is on disk before the process goes (failures were logged).
    await Promise.allSettled([allocatedState.flush(), actuatedState.flush(), legacyHashes.flush()]);
    prober.stop();
    await Promise.allSettled(servers.map((s) => s.finished));
    cri.close();
    cluster?.close();
    logger.info("denolet stopped; containers keep running");
  }
  if (failed.signal.aborted) throw failed.signal.reason;
}

/** The labels the agent registers its Node with (node_status.ts), before any the API adds. */
function ownNodeLabels(config: AgentConfig): Record<string, string> {
  const arch = ({ x86_64: "amd64", aarch64: "arm64" } as Record<string, string>)[Deno.build.arch] ??
    Deno.build.arch;
  return {
    "kubernetes.io/arch": arch,
    "kubernetes.io/hostname": config.nodeName,
    "kubernetes.io/os": "linux",
    ...config.nodeLabels,
  };
}

/**
 * The pulled-image records under the root dir (KubeletEnsureSecretPulledImages, on by default),
 * with old intents settled; undefined when the gate is off.
 */
async function startPullRecords(
  config: AgentConfig,
  deps: { cri: { image: { listImages(): Promise<Image[]> } }; clock: Clock; logger: Logger },
): Promise<PullManager | undefined> {
  if (!featureEnabled(config, "KubeletEnsureSecretPulledImages")) return undefined;
  const manager = new PullManager({
    rootDir: config.rootDir,
    clock: deps.clock,
    logger: deps.logger.child({ component: "image-pull-records" }),
    requireVerification: verificationPolicy(
      config.imagePullCredentialsVerificationPolicy as VerificationPolicy,
      config.preloadedImagesVerificationAllowlist,
    ),
    listImages: () => deps.cri.image.listImages(),
  });
  await manager.initialize();
  return manager;
}

/** The pod cgroup's memory limit, which caps its Memory-medium volumes; undefined for none. */
function podMemoryLimit(pod: V1Pod): number | undefined {
  try {
    return resourceConfigForPod(pod).memoryLimitBytes;
  } catch {
    // A quantity that does not parse fails the container's config step, which reports it.
    return undefined;
  }
}

/** CRI RuntimeConfig, or undefined from a runtime that predates it (containerd before 2.1). */
async function readRuntimeConfig(
  runtime: { runtimeConfig(o: { signal: AbortSignal }): Promise<RuntimeConfigResponse> },
  signal: AbortSignal,
): Promise<RuntimeConfigResponse | undefined> {
  try {
    return await runtime.runtimeConfig({ signal });
  } catch (e) {
    if (isUnimplemented(e)) return undefined;
    throw e;
  }
}
