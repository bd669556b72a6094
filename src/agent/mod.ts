/**
 * Builds the agent from its configuration and runs it until the signal aborts. Containers keep
 * running when the agent stops, as with the upstream kubelet: the next start adopts them.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { AgentConfig } from "../config/types.ts";
import { featureEnabled } from "../config/mod.ts";
import { type Clock, offsetWallClock, processUptimeMs, realClock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { createMetricsRegistry } from "../util/metrics.ts";
import { processCollector } from "../util/process_metrics.ts";
import { createCriClient } from "../cri/mod.ts";
import { CONTAINER_LOGS_DIR, containerSwapBehavior, createLogLinks } from "../runtime/mod.ts";
import { createPleg, createPodStatusCache } from "../pleg/mod.ts";
import { createProbeManager } from "../prober/mod.ts";
import { handlerUserNamespaces, Kubelet } from "../kubelet/mod.ts";
import { openUserNamespaces } from "../userns/mod.ts";
import { createPodAdmission } from "../admission/mod.ts";
import { createAgentObservers } from "./_metrics.ts";
import { nodeIPsFrom } from "./_node_ip.ts";
import { hostAppArmorEnabled, listPodDirs, readResolvConf } from "./_host.ts";
import { buildSources } from "./_sources.ts";
import { buildNodeServices } from "./_node_services.ts";
import { buildNodeShutdown } from "./_node_shutdown.ts";
import { startPullRecords } from "./_pull_records.ts";
import { buildVolumes } from "./_volumes.ts";
import { cgroupSetup } from "./_cgroup_setup.ts";
import { trackRuntimeState } from "./_runtime_state.ts";
import { serveNodeApis } from "./_node_api.ts";
import { buildRuntimeManager } from "./_runtime_manager.ts";
import { openResizeCheckpoints } from "./_resize_checkpoints.ts";
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
  // driver sync again when one registers (these are set once the kubelet and Node status exist).
  const resyncPods = { all: () => {} };
  const nodeStatusUpdate = { request: () => {} };
  const { volumes, csi } = buildVolumes(config, {
    cluster,
    clock,
    logger,
    onChange: () => resyncPods.all(),
    onReadinessChange: () => nodeStatusUpdate.request(),
  });
  const { allocatable, cgroupVersion, swap, cgroupDriver, runtimeConfigAnswer, podCgroups } =
    await cgroupSetup(config, { cri, cluster, clock, logger, signal });

  // In-place resize: what each pod was allocated and what its containers were last told, in
  // upstream's checkpoints under the root dir; a corrupt one stops the start, as upstream.
  const { allocatedState, actuatedState, legacyHashes } = await openResizeCheckpoints(
    config.rootDir,
    { logger },
  );
  const podLevelResize = featureEnabled(config, "InPlacePodLevelResourcesVerticalScaling");
  logger.debug(1, "Start phase: pod cgroups and checkpoints opened", {
    sinceStartMs: processUptimeMs(),
  });

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
  const runtimeStatus = trackRuntimeState({
    cri,
    clock,
    logger,
    cgroupDriver,
    runtimeConfig: runtimeConfigAnswer,
  });
  const runtimeState = runtimeStatus.state;
  // Read at start, as upstream: a `kubelet` user whose subordinate IDs cannot serve maxPods
  // pods stops the agent here.
  const userns = await openUserNamespaces({
    rootDir: config.rootDir,
    logger,
    handlerSupport: async (handler) => {
      // A pod may sync before housekeeping's first Status: ask, rather than refuse it.
      await runtimeStatus.statusOnce(signal);
      return handlerUserNamespaces(runtimeState.capabilities, handler);
    },
  }, { idsPerPod: config.userNamespacesIdsPerPod, maxPods: config.maxPods });
  const runtime = buildRuntimeManager(config, {
    cgroupVersion,
    allocatable,
    swap,
    cri,
    cluster,
    volumes,
    clock,
    logger,
    prober,
    podCgroups,
    pullRecords,
    plugins,
    logLinks,
    runtimeState,
    userns,
    actuatedState,
    legacyHashes,
    podLevelResize,
    hostDNS,
    nodeIPs,
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
    checkRuntime: ({ signal }) => runtimeStatus.refresh(signal),
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

  const servers = await serveNodeApis(config, {
    kubelet,
    runtime,
    cluster,
    node,
    registry,
    nodeIPs,
    cri,
    clock,
    logger,
    signal,
  });

  logger.debug(1, "Start phase: node API listening", { sinceStartMs: processUptimeMs() });
  const background = Promise.all([
    node.run(),
    cluster?.run({ kubelet, nodeStatus: node.nodeStatus, cri }, { signal }),
    csi?.run({ signal }),
    late.shutdown?.run({ signal }),
  ]);
  // As upstream, pods are synced knowing what the runtime can do (handlers, features): one
  // Status before the first sync, briefly; an unreachable runtime is housekeeping's to report.
  await runtimeStatus.refresh(AbortSignal.any([signal, AbortSignal.timeout(5_000)])).then(
    () => logger.debug(1, "Start phase: runtime status read", { sinceStartMs: processUptimeMs() }),
    (err) => logger.debug(1, "The runtime's status is not known yet", { err: errorMessage(err) }),
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
