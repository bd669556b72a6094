/**
 * `deno task bench`: the agent against the physical limit set by the runtime (issue 6).
 * A benchmark, not a test: it reports, it does not pass or fail.
 *
 * On the dev containerd (provisioned or reused), in one run:
 * - pod start: N pause pods written at once (default 1, 10, 30) until every container runs
 *   (ContainerStatus.startedAt) and until /pods says Running; teardown until no sandbox is left;
 * - node throughput: pods written one by one at a fixed rate (default 100 at 5/s), per-pod
 *   latency file written → container started;
 * each beside the baseline (`_baseline.ts`: the same CRI calls through a bare client, same
 * pods, same concurrency), alternating which goes first. The first round is a warm-up.
 * Then steady state: the agent's RSS/CPU (/proc) and PLEG relist / sync loop cost (/metrics)
 * with 0 pods, each `--footprint` level, then the probe load (`--probe-pods` busybox pods
 * without probes, then with 3 probes each: exec, HTTP, TCP every 10 s; issue 3), and 0 pods
 * again after the workload.
 *
 *   deno task bench [--quick] [--rounds 4] [--pods 1,10,30] [--throughput 100] [--rate 5]
 *                   [--sample 60] [--footprint 30,110] [--probe-pods 110]
 *                   [--upstream-pods 30,110] [--traffic-pods 10,110] [--traffic-window 120]
 *                   [--traffic-starts 3] [--traffic-packed true|false]
 *                   [--only start,throughput,footprint,probes,api,upstream,traffic,pulls]
 *                   [--out dist/bench.json]
 *                   [--v8-flags --lite-mode,...] [--agent-env MALLOC_ARENA_MAX=2,...]
 *                   [--agent source|bundle] [--containerd system|upstream]
 *
 * `--quick` (about 4 minutes): 2 rounds, 30 pods of throughput, 10 s samples, footprint 30,
 * probe load with 30 pods. `--only probes` runs the probe load alone.
 * `api` (issue 10): a real control plane and a second agent joined to it: 30 pods created in the
 * API server at once and 100 at `--rate`/s, each timed until the API reports it Running and
 * Ready (p50, p99, all), and the agent's RSS and CPU idle and with 110 pods.
 * `upstream` (issue 14, `_upstream.ts`): the agent and the upstream kubelet one after the other
 * on a private containerd, `--upstream-pods` pause pods written at once (p50 pod, all started),
 * then RSS and CPU of each at 0 and the `--footprint` pod counts.
 * `traffic` (issue 31, `_traffic.ts`): on one control plane and a private containerd, the upstream
 * kubelet and then the agent in API mode, each alone behind a byte-counting TCP proxy: start to
 * Ready Node, then KB per minute to and from the API server idle and at each `--traffic-pods`
 * level over `--traffic-window` seconds, with where the bytes go; then `--traffic-starts` more
 * starts of each for start-to-Ready medians, and the packed single file's first and later starts.
 * `pulls` (issue 28, `_pulls.ts`): 6 pods at once, each its own never-pulled 6 MiB image from a
 * local registry, with serializeImagePulls true and then false; both times and their ratio.
 * `--containerd upstream` runs everything on containerd v2 (tests/support/containerd.ts), whose
 * container events drive the agent's PLEG; the default is Debian's containerd 1.6, which relists.
 */
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import { parseArgs } from "node:util";
import { createCriClient, type RuntimeService } from "../../src/cri/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { errorMessage } from "../../src/util/log.ts";
import { devContainerd, ensureContainerd } from "../support/containerd.ts";
import { removeAgentSandboxes, startAgent } from "../support/agent.ts";
import { Baseline } from "./_baseline.ts";
import { removeFootprintPods, type SteadyState, steadyStateAt } from "./_footprint.ts";
import { podNames, waitSandboxesGone } from "./_pods.ts";
import { type ProbeLoad, probeLoad } from "./_probe_load.ts";
import { apiModeBench } from "./_api_mode.ts";
import { upstreamBench } from "./_upstream.ts";
import { trafficBench } from "./_traffic.ts";
import { pullsBench } from "./_pulls.ts";
import { buildAgentBundle, parseAgentForm } from "./_agent_bundle.ts";
import { upstreamTargets } from "./_upstream_report.ts";
import { trafficTargets } from "./_traffic_report.ts";
import { formatReport, type Machine, type Report, Samples } from "./_report.ts";
import {
  agentBurst,
  agentThroughput,
  baselineBurst,
  baselineThroughput,
  type BenchContext,
  type BurstResult,
} from "./_scenarios.ts";

/** The parts `--only` selects; the steady-state windows at 0 pods go with `footprint`. */
const SCENARIOS = [
  "start",
  "throughput",
  "footprint",
  "probes",
  "api",
  "upstream",
  "traffic",
  "pulls",
] as const;
type Scenario = typeof SCENARIOS[number];

const { values } = parseArgs({
  args: Deno.args,
  options: {
    quick: { type: "boolean", default: false },
    rounds: { type: "string" },
    pods: { type: "string", default: "1,10,30" },
    throughput: { type: "string" },
    rate: { type: "string", default: "5" },
    sample: { type: "string" },
    footprint: { type: "string" },
    "probe-pods": { type: "string" },
    "upstream-pods": { type: "string" },
    "traffic-pods": { type: "string" },
    "traffic-window": { type: "string" },
    "traffic-starts": { type: "string" },
    "traffic-packed": { type: "string", default: "true" },
    only: { type: "string", default: SCENARIOS.join(",") },
    // The flags the agent ships with; `--v8-flags=` (empty) measures V8's defaults instead.
    "v8-flags": { type: "string", default: AGENT_V8_FLAGS },
    "agent-env": { type: "string", default: "" },
    // `bundle`: the package's minified bundle, as the single file runs it (_agent_bundle.ts).
    agent: { type: "string", default: "source" },
    // `upstream`: containerd v2 built from the Go module proxy, which serves container events.
    containerd: { type: "string" },
    out: { type: "string", default: "dist/bench.json" },
  },
});
const quick = values.quick!;
const settings = {
  quick,
  rounds: Number(values.rounds ?? (quick ? 2 : 4)),
  burst: values.pods!.split(",").map(Number),
  throughput: Number(values.throughput ?? (quick ? 30 : 100)),
  ratePerSecond: Number(values.rate),
  sampleSeconds: Number(values.sample ?? (quick ? 10 : 60)),
  footprint: (values.footprint ?? (quick ? "30" : "30,110")).split(",").map(Number),
  /** Pods in the probe load, 3 probes each; 0 skips it. */
  probePods: Number(values["probe-pods"] ?? (quick ? 30 : 110)),
  /** API mode: pods created at once, paced pods, and the steady-state pod count. */
  api: { burst: 30, paced: quick ? 30 : 100, loaded: quick ? 30 : 110 },
  only: parseOnly(values.only!),
  /** Upstream kubelet side by side: burst sizes (steady state at 0 and `footprint`). */
  upstreamPods: (values["upstream-pods"] ?? (quick ? "30" : "30,110")).split(",").map(Number),
  /** API traffic side by side: pod levels after idle, window and start-only rounds. */
  traffic: {
    pods: (values["traffic-pods"] ?? (quick ? "10" : "10,110")).split(",").map(Number),
    windowSeconds: Number(values["traffic-window"] ?? (quick ? 30 : 120)),
    starts: Number(values["traffic-starts"] ?? (quick ? 1 : 3)),
    packed: values["traffic-packed"] !== "false",
  },
  /** Upstream defaults where the e2e harness differs (it polls files every 2 s, logs at -v 2). */
  agentArgs: ["--file-check-frequency", "20s", "-v", "0"],
  /** The agent's V8 flags only, to judge a flag's memory/CPU trade (e.g. --lite-mode). */
  agentV8Flags: values["v8-flags"]!,
  /** What runs as the agent: main.ts from source, or the package's bundle. */
  agentForm: parseAgentForm(values.agent!),
  /** Extra agent environment, `K=V,K=V` (e.g. MALLOC_ARENA_MAX=2). */
  agentEnv: Object.fromEntries(
    values["agent-env"]!.split(",").filter((kv) => kv.includes("=")).map((kv) => {
      const i = kv.indexOf("=");
      return [kv.slice(0, i), kv.slice(i + 1)];
    }),
  ),
};
const progress = (s: string) => console.error(`[bench] ${s}`);
// A failure during the run whose clean-up then fails too surfaces as a bare "SuppressedError":
// print both, the run's own error first.
for (const type of ["error", "unhandledrejection"] as const) {
  globalThis.addEventListener(type, (e) => {
    const err = "reason" in e ? e.reason : (e as ErrorEvent).error;
    if (!(err instanceof SuppressedError)) return;
    console.error("[bench] the run failed:", err.suppressed);
    console.error("[bench] and its clean-up failed:", err.error);
  });
}

// Set before any runtime is touched: the API-mode cluster and the upstream comparison follow it.
if (values.containerd) Deno.env.set("DENOLET_DEV_CONTAINERD", values.containerd);
devContainerd(); // rejects an unknown flavour before anything starts
const rt = await ensureContainerd();
const cri = createCriClient(rt.endpoint, { timeoutMs: 120_000 });
// Disposed last (after the agent), so the agent's clean-up can still use it.
await using _cri = { [Symbol.asyncDispose]: () => Promise.resolve(cri.close()) };
const workDir = await Deno.makeTempDir({ prefix: "denolet-bench-" });
const baseline = new Baseline({
  runtime: cri.runtime,
  image: cri.image,
  node: `bench-base-${Deno.pid}`,
  workDir,
  podImage: rt.images.pause,
});
await using _base = {
  async [Symbol.asyncDispose]() {
    await removeAgentSandboxes(cri.runtime, baseline.node);
    await Deno.remove(workDir, { recursive: true });
  },
};
const agentMain = settings.agentForm === "bundle"
  ? await buildAgentBundle(workDir, { v8Flags: settings.agentV8Flags })
  : undefined;
await using agent = await startAgent({
  runtime: rt,
  cleanupWith: cri.runtime,
  mainModule: agentMain,
  extraArgs: settings.agentArgs,
  v8Flags: settings.agentV8Flags,
  env: settings.agentEnv,
});
await agent.waitHealthy({ timeoutMs: 60_000 });
const ctx: BenchContext = { cri, agent, baseline, image: rt.images.pause };
const ours = [agent.hostname, baseline.node];
const machineBefore = await machine(cri.runtime, ours);
const sampleMs = settings.sampleSeconds * 1000;

const runs = (s: Scenario) => settings.only.includes(s);

const steadyState: Record<string, SteadyState> = {};
if (runs("footprint")) {
  progress(`idle footprint (${settings.sampleSeconds} s)`);
  steadyState["0 pods (fresh)"] = await steadyStateAt(agent, 0, { image: ctx.image, sampleMs });
}

const samples = new Samples();
const criCallsPerPod: Report["criCallsPerPod"] = {};
const rounds = runs("start") || runs("throughput") ? settings.rounds : 0;
for (let round = 0; round < rounds; round++) {
  const warmUp = round === 0;
  const agentFirst = round % 2 === 0;
  for (const n of runs("start") ? settings.burst : []) {
    const names = podNames(`r${round}-n${n}`, n);
    progress(`round ${round}${warmUp ? " (warm-up)" : ""}: start ${n} pods`);
    let a: BurstResult | undefined;
    let b: BurstResult | undefined;
    for (const side of agentFirst ? ["agent", "baseline"] : ["baseline", "agent"]) {
      if (side === "agent") a = await agentBurst(ctx, names);
      else b = await baselineBurst(ctx, names);
    }
    if (warmUp) continue;
    samples.add(`start ${n} pods: containers running`, "agent", a!.running);
    samples.add(`start ${n} pods: containers running`, "baseline", b!.running);
    if (n > 1) {
      samples.add(`start ${n} pods: median pod running`, "agent", a!.medianPod);
      samples.add(`start ${n} pods: median pod running`, "baseline", b!.medianPod);
    }
    samples.add(`start ${n} pods: /pods Running`, "agent", a!.reported!);
    samples.add(`start ${n} pods: /pods Running`, "baseline", b!.running);
    samples.add(`teardown ${n} pods`, "agent", a!.teardown);
    samples.add(`teardown ${n} pods`, "baseline", b!.teardown);
    criCallsPerPod[`start ${n} pods`] = { agent: a!.startCalls, baseline: b!.startCalls };
    criCallsPerPod[`teardown ${n} pods`] = { agent: a!.teardownCalls, baseline: b!.teardownCalls };
  }
  const t = runs("throughput") ? settings.throughput : 0;
  if (t > 0) {
    const names = podNames(`r${round}-t`, t);
    progress(
      `round ${round}${warmUp ? " (warm-up)" : ""}: ${t} pods at ${settings.ratePerSecond}/s`,
    );
    const row = `throughput ${t} pods @${settings.ratePerSecond}/s: per pod`;
    for (const side of agentFirst ? ["agent", "baseline"] : ["baseline", "agent"]) {
      const r = side === "agent"
        ? await agentThroughput(ctx, names, settings.ratePerSecond)
        : await baselineThroughput(ctx, names, settings.ratePerSecond);
      if (warmUp) continue;
      const s = side as "agent" | "baseline";
      samples.add(row, s, ...r.latencies);
      samples.add(`throughput: to sandbox createdAt`, s, ...r.toSandbox);
      samples.add(`teardown ${t} pods (throughput set)`, s, r.teardown);
    }
  }
}

let level = 0;
for (const pods of runs("footprint") ? settings.footprint : []) {
  progress(`steady state with ${pods} pods (${settings.sampleSeconds} s)`);
  steadyState[`${pods} pods`] = await steadyStateAt(agent, pods, { image: ctx.image, sampleMs });
  level = Math.max(level, pods);
}
if (level > 0) {
  const names = await removeFootprintPods(agent, level);
  await waitSandboxesGone(cri.runtime, { node: agent.hostname, names });
}
let probes: ProbeLoad | undefined;
if (runs("probes") && settings.probePods > 0) {
  probes = await probeLoad(
    { agent, runtime: cri.runtime, image: rt.images.busybox },
    settings.probePods,
    { sampleMs, progress },
  );
}
if (runs("footprint") && (level > 0 || probes)) {
  progress(`idle footprint after the workload (${settings.sampleSeconds} s)`);
  steadyState["0 pods (after)"] = await steadyStateAt(agent, 0, { image: ctx.image, sampleMs });
}
// The two long scenarios at the end: one failing keeps what the run measured so far.
const failures: string[] = [];
async function scenario<T>(name: string, run: () => Promise<T>): Promise<T | undefined> {
  try {
    return await run();
  } catch (err) {
    failures.push(`${name}: ${errorMessage(err)}`);
    console.error(`[bench] ${name} failed:`, err);
    return undefined;
  }
}

const apiMode = runs("api")
  ? await scenario("api", () =>
    apiModeBench({
      image: rt.images.pause,
      sampleMs,
      burst: settings.api.burst,
      paced: settings.api.paced,
      ratePerSecond: settings.ratePerSecond,
      loaded: settings.api.loaded,
      progress,
      agentMain,
    }))
  : undefined;

const upstream = runs("upstream")
  ? await scenario("upstream", () =>
    upstreamBench({
      bursts: settings.upstreamPods,
      rounds: settings.rounds,
      steady: [0, ...settings.footprint],
      sampleMs,
      agentArgs: settings.agentArgs,
      agentMain,
      agentEnv: settings.agentEnv,
      agentV8Flags: settings.agentV8Flags,
      progress,
    }))
  : undefined;

const traffic = runs("traffic")
  ? await scenario("traffic", () =>
    trafficBench({
      pods: settings.traffic.pods,
      windowMs: settings.traffic.windowSeconds * 1000,
      settleMs: 20_000,
      starts: settings.traffic.starts,
      packed: settings.traffic.packed,
      image: rt.images.pause,
      agentMain,
      agentEnv: settings.agentEnv,
      progress,
    }))
  : undefined;

const pulls = runs("pulls")
  ? await scenario("pulls", () => pullsBench({ runtime: rt, cri, agentMain, progress }))
  : undefined;

const latency = samples.rows();
const report: Report = {
  when: new Date(realClock.now()).toISOString(),
  settings,
  machineBefore,
  machineAfter: await machine(cri.runtime, ours),
  latency,
  criCallsPerPod,
  steadyState,
  probeLoad: probes,
  apiMode,
  upstream,
  traffic,
  pulls,
  targets: {
    ...targets(latency, steadyState),
    ...(upstream ? upstreamTargets(upstream) : {}),
    ...(traffic ? trafficTargets(traffic) : {}),
  },
  failures: failures.length ? failures : undefined,
};
await Deno.mkdir(new URL("../../dist", import.meta.url), { recursive: true });
await Deno.writeTextFile(values.out!, JSON.stringify(report, null, 2));
console.log(formatReport(report));
console.log(`written ${values.out}`);
if (failures.length) Deno.exitCode = 1;

function parseOnly(list: string): Scenario[] {
  const names = list.split(",").map((s) => s.trim()).filter((s) => s !== "");
  for (const n of names) {
    if (!(SCENARIOS as readonly string[]).includes(n)) {
      throw new Error(`--only: unknown scenario "${n}" (known: ${SCENARIOS.join(", ")})`);
    }
  }
  return names as Scenario[];
}

async function machine(rs: RuntimeService, ourNodes: string[]): Promise<Machine> {
  const v = await rs.version();
  const sandboxes = await rs.listPodSandbox();
  return {
    cores: navigator.hardwareConcurrency,
    memTotalMB: Deno.systemMemoryInfo().total / 1024 / 1024,
    kernel: Deno.osRelease(),
    deno: Deno.version.deno,
    runtime: `${v.runtimeName} ${v.runtimeVersion}`,
    loadavg: Deno.loadavg(),
    foreignSandboxes: sandboxes.filter((s) => !ourNodes.some((n) => s.metadata.name.endsWith(n)))
      .length,
  };
}

function targets(
  latency: Report["latency"],
  steady: Record<string, SteadyState>,
): Report["targets"] {
  const out: Report["targets"] = {};
  const maxBurst = Math.max(...settings.burst);
  const start = latency[`start ${maxBurst} pods: containers running`]?.ratio?.median;
  if (start !== undefined) {
    out[`start ${maxBurst} pods, agent/baseline (median)`] = {
      value: start,
      target: "<= 1.10",
      met: start <= 1.1,
    };
  }
  const tp = Object.entries(latency).find(([k]) => k.startsWith("throughput"))?.[1]?.ratio?.p99;
  if (tp !== undefined) {
    out["throughput p99, agent/baseline"] = { value: tp, target: "<= 1.10", met: tp <= 1.1 };
  }
  const idle = steady["0 pods (fresh)"]?.footprint.rssMB;
  if (idle !== undefined) out["RSS idle, MB"] = { value: idle, target: "<= 56", met: idle <= 56 };
  const top = steady["110 pods"];
  if (top) {
    // Issue 14's targets (issue 6 asked for 80 MB and 1 %).
    out["RSS with 110 pods, MB"] = {
      value: top.footprint.rssMB,
      target: "<= 70",
      met: top.footprint.rssMB <= 70,
    };
    out["CPU with 110 pods, % of one core"] = {
      value: top.footprint.cpuPct,
      target: "<= 2",
      met: top.footprint.cpuPct <= 2,
    };
  }
  return out;
}
