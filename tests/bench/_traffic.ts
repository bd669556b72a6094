/**
 * The edge uplink and the start (issue 31): what a node agent in API mode sends to and receives
 * from the API server, and how soon its Node is Ready, side by side with the upstream kubelet.
 *
 * One test control plane (its audit log on for the `system:nodes` group) and one private
 * containerd; each agent alone in turn, joined through a TCP proxy that counts the bytes both ways
 * (TLS records included, as a metered link bills them). For each: the time from its spawn to a
 * watch on the API server seeing its Node Ready, then windows idle and with each pod level
 * (pods created through the API, bound to the node, all Running and Ready, then 20 s to settle):
 * KB per minute up and down, the API server's count of its requests by verb and resource, and its
 * own client metrics (rest_client_*; denolet's body bytes by verb and resource too). Then more
 * starts of each, alternating, for start-to-Ready medians, and the packed single file's first
 * start (it unpacks) and later starts.
 */
import { detectNodeIP } from "../../src/agent/_node_ip.ts";
import { type ApiClient, createApiClient, loadKubeconfig } from "../../src/apiclient/mod.ts";
import { createCriClient } from "../../src/cri/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { ensureContainerd, stopContainerd } from "../support/containerd.ts";
import { startControlPlane } from "../support/control_plane.ts";
import { PACK_TARGETS } from "../support/_package_runtime.ts";
import { buildPackages } from "../support/package.ts";
import { startTcpProxy } from "../support/tcp_proxy.ts";
import { removeEverySandbox } from "../support/upstream_kubelet.ts";
import { auditCounts, auditFlags, NODE_AUDIT_POLICY } from "./_audit.ts";
import { deleteAll, podNames, timedStarts } from "./_api_mode.ts";
import { watchNodeReady } from "./_node_ready.ts";
import { sampleFootprint } from "./_proc.ts";
import {
  startTrafficNode,
  type TrafficNode,
  type TrafficNodeOptions,
  type TrafficSide,
} from "./_traffic_nodes.ts";
import {
  clientScrape,
  type ProxyCounts,
  startPhases,
  type TrafficResult,
  type TrafficSideResult,
  type TrafficWindow,
  trafficWindow,
} from "./_traffic_report.ts";
import { benchRuntime } from "./_upstream.ts";

export interface TrafficOptions {
  /** Pod levels after the idle window, e.g. 10, 110. */
  pods: number[];
  windowMs: number;
  /** After the pods are Ready (or the Node, for the idle window), before the window opens. */
  settleMs: number;
  /** Start-only rounds of each agent after the windows (start-to-Ready medians). */
  starts: number;
  /** The pods' image (present in the runtime, never pulled). */
  image: string;
  /** denolet's program (`--agent bundle`); default main.ts. */
  agentMain?: string;
  agentEnv?: Record<string, string>;
  /** Measure the packed single file's starts too (builds it for this machine). */
  packed: boolean;
  progress: (s: string) => void;
}

const READY_TIMEOUT_MS = 120_000;
const SIDES: readonly TrafficSide[] = ["kubelet", "denolet"];

export async function trafficBench(o: TrafficOptions): Promise<TrafficResult> {
  const { progress } = o;
  const loadBefore = Deno.loadavg();
  const nodeIP = detectNodeIP();
  if (!nodeIP) throw new Error("The traffic bench needs a non-loopback address for the nodes");
  const tmp = await Deno.makeTempDir({ prefix: "denolet-traffic-" });
  await using _tmp = { [Symbol.asyncDispose]: () => Deno.remove(tmp, { recursive: true }) };
  await Deno.writeTextFile(`${tmp}/audit-policy.json`, NODE_AUDIT_POLICY);
  const auditLog = `${tmp}/audit.log`;

  const own = benchRuntime("traffic");
  const runtime = await ensureContainerd({ ...own, log: progress });
  const cri = createCriClient(runtime.endpoint, { timeoutMs: 120_000 });
  await using _runtime = {
    async [Symbol.asyncDispose]() {
      cri.close();
      await stopContainerd({ dir: own.dir, log: progress });
    },
  };
  // The runtime is this part's alone: whatever an interrupted run left there goes first.
  await removeEverySandbox(cri.runtime);

  progress("traffic: starting the control plane");
  await using cp = await startControlPlane({
    log: progress,
    apiServerArgs: auditFlags(`${tmp}/audit-policy.json`, auditLog),
  });
  const admin = createApiClient(await loadKubeconfig(cp.adminKubeconfig), {
    clock: realClock,
    logger: nullLogger,
    qps: 0,
    burst: 0,
    userAgent: "denolet-bench",
  });
  await using _admin = { [Symbol.asyncDispose]: () => Promise.resolve(admin.close()) };
  const kubeletVersion = await new Deno.Command(cp.binaries.kubelet, { args: ["--version"] })
    .output().then((r) => new TextDecoder().decode(r.stdout).trim());

  let n = 0;
  const base = (name: string): TrafficNodeOptions => ({
    cp,
    runtime,
    rs: cri.runtime,
    apiServerURL: "",
    nodeIP,
    name: `${name}-${Deno.pid}-${++n}`,
    agentMain: o.agentMain,
    agentEnv: o.agentEnv,
  });
  const ctx: SideContext = { admin, auditLog, o };

  const sides = {} as Record<TrafficSide, TrafficSideResult>;
  for (const side of SIDES) {
    progress(`traffic: ${side}`);
    sides[side] = await measureSide(side, base(`traffic-${side}`), ctx);
  }

  const starts: TrafficResult["starts"] = { kubelet: [], denolet: [] };
  let packed: TrafficResult["packed"];
  let packedFile: string | undefined;
  if (o.packed) {
    progress("traffic: building the packed single file for this machine");
    const target = PACK_TARGETS.find((t) => t.machines.includes(Deno.build.arch));
    if (!target) throw new Error(`No packed target for ${Deno.build.arch}`);
    const built = await buildPackages({ targets: [target], outDir: `${tmp}/dist`, log: progress });
    packedFile = built.packages[0].path;
    const unpackDir = `${tmp}/unpack`;
    progress("traffic: the packed file's first start");
    const first = await startToReady("denolet", {
      ...base("traffic-packed"),
      packed: { file: packedFile, unpackDir },
    }, admin);
    packed = { firstMs: first.ms, firstPhases: first.phases, laterMs: [], laterPhases: [] };
  }
  for (let round = 0; round < o.starts; round++) {
    progress(`traffic: start round ${round + 1} of ${o.starts}`);
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const side of order) {
      starts[side].push((await startToReady(side, base(`traffic-start-${side}`), admin)).ms);
    }
    if (packed && packedFile) {
      const later = await startToReady("denolet", {
        ...base("traffic-packed"),
        packed: { file: packedFile, unpackDir: `${tmp}/unpack` },
      }, admin);
      packed.laterMs.push(later.ms);
      packed.laterPhases.push(later.phases);
    }
  }
  return {
    kubeletVersion,
    denoletForm: o.agentMain ? "bundle" : "source",
    windowSeconds: o.windowMs / 1000,
    settleSeconds: o.settleMs / 1000,
    kubelet: sides.kubelet,
    denolet: sides.denolet,
    starts,
    packed,
    loadavg: { before: loadBefore, after: Deno.loadavg() },
  };
}

interface SideContext {
  admin: ApiClient;
  auditLog: string;
  o: TrafficOptions;
}

/** One agent alone: its start to Ready, then a window idle and at each pod level. */
async function measureSide(
  side: TrafficSide,
  opts: TrafficNodeOptions,
  { admin, auditLog, o }: SideContext,
): Promise<TrafficSideResult> {
  await using proxy = countingProxy(opts.cp.server);
  const up = await startUp(side, { ...opts, apiServerURL: proxy.url }, admin);
  const { node } = up;
  const windows: TrafficWindow[] = [];
  let running = 0;
  const names: string[] = [];
  let last: ReturnType<typeof clientScrape> | undefined;
  try {
    for (const pods of [0, ...o.pods]) {
      if (pods > running) {
        o.progress(`traffic: ${side}: ${pods} pods`);
        const more = podNames(`${side}-traffic`, pods).slice(running);
        await timedStarts(admin, node.name, more, { image: o.image, ratePerSecond: 0 });
        names.push(...more);
        running = pods;
      }
      await realClock.sleep(o.settleMs);
      o.progress(`traffic: ${side}: ${pods} pods, ${o.windowMs / 1000} s window`);
      // The scrapes stay outside the window: the kubelet's authorizes its scrape on the uplink.
      const before = clientScrape(await node.metrics());
      const counts0 = proxy.counts();
      const from = realClock.now();
      // /proc only: nothing of it crosses the uplink.
      const footprint = await sampleFootprint(node.pid, o.windowMs);
      const counts1 = proxy.counts();
      const to = realClock.now();
      const after = last = clientScrape(await node.metrics());
      windows.push(trafficWindow({
        pods,
        ms: to - from,
        counts: [counts0, counts1],
        scrapes: [before, after],
        audit: { log: await Deno.readTextFile(auditLog), user: `system:node:${node.name}` },
        window: [from, to],
        footprint,
      }));
    }
    if (names.length > 0) {
      o.progress(`traffic: ${side}: deleting the pods`);
      await deleteAll(admin, names);
    }
  } finally {
    await node.stop();
  }
  // Everything it asked from spawn to stop: which watches it keeps, what its start costs.
  const requests = auditCounts(await Deno.readTextFile(auditLog), {
    user: `system:node:${node.name}`,
    fromMs: 0,
    toMs: Infinity,
  });
  return {
    node: node.name,
    startToReadyMs: up.ms,
    startPhases: up.phases,
    windows,
    requests,
    bodyBytes: last && Object.keys(last.body).length ? last.body : undefined,
  };
}

/** A counting proxy in front of `server`, made per agent so that its counts are the agent's. */
function countingProxy(server: string) {
  const url = new URL(server);
  const proxy = startTcpProxy({ hostname: url.hostname, port: Number(url.port) });
  return {
    url: `https://127.0.0.1:${proxy.port}`,
    counts: (): ProxyCounts => ({ ...proxy.bytes, connections: proxy.accepted }),
    [Symbol.asyncDispose]: () => proxy.close(),
  };
}

interface StartedNode {
  node: TrafficNode;
  /** Spawn to the Node seen Ready, ms. */
  ms: number;
  /** denolet's start phases (sinceStartMs by log message). */
  phases?: Record<string, number>;
}

/** Starts the agent and waits for the API server to show its Node Ready; it keeps running. */
async function startUp(
  side: TrafficSide,
  opts: TrafficNodeOptions,
  admin: ApiClient,
): Promise<StartedNode> {
  const watch = watchNodeReady(admin, opts.name);
  try {
    const node = await startTrafficNode(side, opts);
    try {
      const at = await readyOrFail(watch.ready, node, READY_TIMEOUT_MS);
      const phases = side === "denolet"
        ? startPhases(await Deno.readTextFile(node.logFile))
        : undefined;
      return { node, ms: at - node.startedAt, phases };
    } catch (err) {
      await node.stop();
      throw err;
    }
  } finally {
    await watch.stop();
  }
}

/** `ready`'s time, or an error when the node exits or `timeoutMs` passes first. */
function readyOrFail(ready: Promise<number>, node: TrafficNode, timeoutMs: number) {
  const done = new AbortController();
  return new Promise<number>((resolve, reject) => {
    ready.then(resolve, reject);
    node.exited.then(() => reject(new Error(`${node.name} exited before its Node was Ready`)));
    realClock.sleep(timeoutMs, { signal: done.signal }).then(
      () => reject(new Error(`${node.name}: no Ready Node within ${timeoutMs / 1000} s`)),
      () => undefined, // settled first
    );
  }).finally(() => done.abort());
}

/** A start alone, through a proxy as in the windows: spawn to Ready, then stopped. */
async function startToReady(
  side: TrafficSide,
  opts: TrafficNodeOptions,
  admin: ApiClient,
): Promise<{ ms: number; phases?: Record<string, number> }> {
  await using proxy = countingProxy(opts.cp.server);
  const up = await startUp(side, { ...opts, apiServerURL: proxy.url }, admin);
  await up.node.stop();
  return { ms: up.ms, phases: up.phases };
}
