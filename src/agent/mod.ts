/**
 * Builds the agent from its configuration and runs it until the signal aborts. Containers keep
 * running when the agent stops, as with the upstream kubelet: the next start adopts them.
 */
import type { AgentConfig } from "../config/types.ts";
import type { Clock } from "../util/clock.ts";
import { realClock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { createCriClient } from "../cri/mod.ts";
import { createRuntimeManager, parseResolvConf } from "../runtime/mod.ts";
import { createVolumeManager } from "../volumes/mod.ts";
import { createFileSource, createUrlSource } from "../sources/mod.ts";
import type { PodSource } from "../sources/types.ts";
import { createPleg, createPodStatusCache } from "../pleg/mod.ts";
import { Kubelet } from "../kubelet/mod.ts";
import { createProbeManager } from "../prober/mod.ts";
import { createStatsProvider } from "../stats/mod.ts";
import { createNodeApiHandler, serveNodeApi } from "../server/mod.ts";
import { createMetricsRegistry } from "../util/metrics.ts";
import { createAgentObservers } from "./_metrics.ts";
import { detectNodeIP } from "./_node_ip.ts";
import { VERSION } from "./version.ts";

export { VERSION };

export interface RunAgentOptions {
  signal: AbortSignal;
  logger: Logger;
  clock?: Clock;
}

export async function runAgent(config: AgentConfig, opts: RunAgentOptions): Promise<void> {
  const { signal, logger } = opts;
  const clock = opts.clock ?? realClock;
  const nodeIP = config.nodeIP || detectNodeIP() || "";
  logger.info("Starting denolet", {
    version: VERSION,
    node: config.nodeName,
    nodeIP,
    runtime: config.containerRuntimeEndpoint,
    staticPodPath: config.staticPodPath || undefined,
    staticPodURL: config.staticPodURL || undefined,
  });

  await Deno.mkdir(config.rootDir, { recursive: true, mode: 0o750 });
  await Deno.mkdir(config.podLogsDir, { recursive: true, mode: 0o755 });
  const hostDNS = await readResolvConf(config.resolvConf, logger);

  const registry = createMetricsRegistry();
  const metrics = createAgentObservers(registry, () => clock.now());

  const cri = createCriClient(config.containerRuntimeEndpoint, {
    timeoutMs: config.runtimeRequestTimeoutMs,
    imageEndpoint: config.imageServiceEndpoint || undefined,
    logger,
    onCall: (method, ms, err) => metrics.runtimeCall(method, ms, err),
  });
  const volumes = createVolumeManager({ rootDir: config.rootDir, logger });
  // The prober and the kubelet need each other: the prober reads statuses and reports changes.
  let kubelet: Kubelet | undefined;
  const prober = createProbeManager({
    runtime: cri.runtime,
    clock,
    logger,
    getStatus: (uid) => kubelet?.statuses.get(uid),
    onUpdate: (u) => kubelet?.onProbeUpdate(u),
    metrics: registry,
  });
  const runtime = createRuntimeManager({
    runtime: cri.runtime,
    image: cri.image,
    volumes,
    clock,
    logger,
    nodeName: config.nodeName,
    podLogsDir: config.podLogsDir,
    rootDir: config.rootDir,
    runtimeRequestTimeoutMs: config.runtimeRequestTimeoutMs,
    probeFailure: (id) => prober.probeFailure(id),
    sandboxOptions: {
      podLogsDir: config.podLogsDir,
      clusterDNS: config.clusterDNS,
      clusterDomain: config.clusterDomain,
      hostDNS,
      resolvConf: config.resolvConf,
      nodeIPs: nodeIP ? [nodeIP] : [],
    },
  });
  const cache = createPodStatusCache({ clock });
  const pleg = createPleg({
    runtime,
    cache,
    clock,
    logger,
    onRelist: (ms, err) => metrics.relist(ms, err),
  });

  const sources: PodSource[] = [];
  if (config.staticPodPath) {
    sources.push(createFileSource(config.staticPodPath, {
      nodeName: config.nodeName,
      checkFrequencyMs: config.fileCheckFrequencyMs,
      clock,
      logger,
    }));
  }
  if (config.staticPodURL) {
    sources.push(createUrlSource(config.staticPodURL, {
      nodeName: config.nodeName,
      headers: config.staticPodURLHeader,
      checkFrequencyMs: config.httpCheckFrequencyMs,
      clock,
      logger,
    }));
  }
  if (sources.length === 0) logger.warn("No pod source configured; the agent will run no pods");

  kubelet = new Kubelet({
    sources,
    prober,
    runtime,
    pleg,
    cache,
    clock,
    logger,
    syncFrequencyMs: config.syncFrequencyMs,
    nodeIP: nodeIP || undefined,
    podDirs: {
      list: () => listPodDirs(config.rootDir),
      remove: (uid, o) => volumes.tearDownPod(uid, o),
    },
    checkRuntime: async ({ signal }) => {
      await cri.runtime.status({ signal });
    },
    observe: {
      podWorker: (op, ms) => metrics.podWorker(op, ms),
      loopIteration: (ms) => metrics.syncLoop(ms),
    },
  });
  const k = kubelet;
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
  });
  metrics.counts(() => k.runningCounts());

  const handler = createNodeApiHandler({
    nodeName: config.nodeName,
    pods: () => k.podsWithStatus(),
    runningPods: (o) => runtime.getPods({ all: false, signal: o?.signal }),
    healthChecks: () => k.healthChecks(),
    manifestProblems: () => k.manifestProblems(),
    metrics: registry,
    stats,
    logger,
  });
  const servers = [];
  for (const port of new Set([config.port, config.readOnlyPort])) {
    if (port === 0) continue;
    servers.push(await serveNodeApi(handler, { address: config.address, port, logger, signal }));
  }

  const statsRun = stats.run({ signal });
  try {
    await k.run(signal);
  } finally {
    await statsRun;
    prober.stop();
    await Promise.allSettled(servers.map((s) => s.finished));
    cri.close();
    logger.info("denolet stopped; containers keep running");
  }
}

async function listPodDirs(rootDir: string): Promise<string[]> {
  const uids: string[] = [];
  try {
    for await (const e of Deno.readDir(`${rootDir}/pods`)) if (e.isDirectory) uids.push(e.name);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return uids;
}

async function readResolvConf(path: string, logger: Logger) {
  if (!path) return { servers: [], searches: [], options: [] };
  try {
    return parseResolvConf(await Deno.readTextFile(path));
  } catch (e) {
    logger.warn("Cannot read resolv.conf; pods with dnsPolicy Default get no DNS config", {
      path,
      err: e,
    });
    return { servers: [], searches: [], options: [] };
  }
}
