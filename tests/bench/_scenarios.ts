/**
 * The timed scenarios, each in an agent and a baseline flavour measured the same way: start
 * latency from ContainerStatus.startedAt (the runtime's record) against the moment the pod was
 * asked for (file written / first call made), teardown until ListPodSandbox shows none of the
 * pods, polled at the same rate for both so both pay the same observer load.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { CriClient } from "../../src/cri/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import type { AgentProcess } from "../support/agent.ts";
import { waitFor } from "../support/wait.ts";
import type { Baseline, StartedPod } from "./_baseline.ts";
import { counterDelta, countersBy } from "./_metrics.ts";
import {
  manifest,
  sandboxCreatedAt,
  startTimes,
  waitContainersRunning,
  waitSandboxesGone,
} from "./_pods.ts";

export interface BenchContext {
  cri: CriClient;
  agent: AgentProcess;
  baseline: Baseline;
  /** The pause-like image of every pod. */
  image: string;
}

export interface BurstResult {
  /** File write (or first call) to the last container started, ms. */
  running: number;
  /** File write (or first call) to the median pod's container started, ms (issue 14). */
  medianPod: number;
  /** File write to /pods showing every pod Running, ms (agent only). */
  reported?: number;
  /** Files removed (or first stop call) to no sandbox left, ms. */
  teardown: number;
  /** CRI calls per pod by operation for start and teardown (agent: from its /metrics). */
  startCalls: Record<string, number>;
  teardownCalls: Record<string, number>;
}

export interface ThroughputResult {
  /** Per pod: file written (or first call) to its container started, ms. */
  latencies: number[];
  /** Per pod: file written (or first call) to its sandbox's createdAt, ms. */
  toSandbox: number[];
  teardown: number;
}

const OPS = "kubelet_runtime_operations_total";

/** The median of `xs` (the lower one of an even count, as the report's p50). */
function medianOf(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/** N manifests written at once; waits for CRI and /pods, then removes them. */
export async function agentBurst(ctx: BenchContext, names: string[]): Promise<BurstResult> {
  const { agent } = ctx;
  const ops0 = await agentOps(agent);
  const t0 = realClock.now();
  await Promise.all(names.map((n) => writeManifest(ctx, n)));
  const [starts, reportedAt] = await Promise.all([
    waitContainersRunning(ctx.cri.runtime, { node: agent.hostname, names }),
    waitPodsRunning(agent, names),
  ]);
  const ops1 = await agentOps(agent);
  const t1 = realClock.now();
  await Promise.all(names.map((n) => Deno.remove(`${agent.manifestDir}/${n}.yaml`)));
  const gone = await waitSandboxesGone(ctx.cri.runtime, { node: agent.hostname, names });
  // Removal can trail the last sandbox's disappearance from the list by a few calls.
  await realClock.sleep(500);
  const ops2 = await agentOps(agent);
  return {
    running: Math.max(...starts.values()) - t0,
    medianPod: medianOf([...starts.values()]) - t0,
    reported: reportedAt - t0,
    teardown: gone - t1,
    startCalls: perPod(counterDelta(ops0, ops1), names.length),
    teardownCalls: perPod(counterDelta(ops1, ops2), names.length),
  };
}

/** The same N pods through the bare CRI client, all at once. */
export async function baselineBurst(ctx: BenchContext, names: string[]): Promise<BurstResult> {
  const { baseline } = ctx;
  const prepared = await baseline.prepare(names);
  const calls0 = { ...baseline.calls };
  const t0 = realClock.now();
  const [started, starts] = await Promise.all([
    Promise.all(prepared.map((p) => baseline.start(p))),
    waitContainersRunning(ctx.cri.runtime, { node: baseline.node, names }),
  ]);
  const calls1 = { ...baseline.calls };
  const gone = await teardownBaseline(ctx, started);
  return {
    running: Math.max(...starts.values()) - t0,
    medianPod: medianOf([...starts.values()]) - t0,
    teardown: gone,
    startCalls: perPod(counterDelta(calls0, calls1), names.length),
    teardownCalls: perPod(counterDelta(calls1, baseline.calls), names.length),
  };
}

/** Manifests written one by one at `perSecond`; each pod's latency, then teardown of all. */
export async function agentThroughput(
  ctx: BenchContext,
  names: string[],
  perSecond: number,
): Promise<ThroughputResult> {
  const { agent } = ctx;
  const asked = await paced(names, perSecond, (n) => writeManifest(ctx, n));
  const starts = await waitContainersRunning(ctx.cri.runtime, { node: agent.hostname, names });
  const created = await sandboxCreatedAt(ctx.cri.runtime, { node: agent.hostname, names });
  const t1 = realClock.now();
  await Promise.all(names.map((n) => Deno.remove(`${agent.manifestDir}/${n}.yaml`)));
  const gone = await waitSandboxesGone(ctx.cri.runtime, { node: agent.hostname, names });
  return {
    latencies: names.map((n) => starts.get(n)! - asked.get(n)!),
    toSandbox: names.map((n) => created.get(n)! - asked.get(n)!),
    teardown: gone - t1,
  };
}

/** The same pacing through the bare CRI client. */
export async function baselineThroughput(
  ctx: BenchContext,
  names: string[],
  perSecond: number,
): Promise<ThroughputResult> {
  const { baseline } = ctx;
  const prepared = new Map((await baseline.prepare(names)).map((p) => [p.name, p]));
  // Settled, not bare, promises: a start that fails while later ones are still being paced
  // must not be an unhandled rejection (it would end the process without cleaning up).
  const inFlight: Promise<PromiseSettledResult<StartedPod>>[] = [];
  const asked = await paced(names, perSecond, (n) => {
    inFlight.push(
      baseline.start(prepared.get(n)!).then(
        (value) => ({ status: "fulfilled", value }),
        (reason) => ({ status: "rejected", reason }),
      ),
    );
    return Promise.resolve();
  });
  const started = (await Promise.all(inFlight)).map((r) => {
    if (r.status === "rejected") throw r.reason;
    return r.value;
  });
  const starts = await startTimes(
    ctx.cri.runtime,
    new Map(started.map((s) => [s.name, s.containerId])),
  );
  const created = await sandboxCreatedAt(ctx.cri.runtime, { node: baseline.node, names });
  const teardown = await teardownBaseline(ctx, started);
  return {
    latencies: names.map((n) => starts.get(n)! - asked.get(n)!),
    toSandbox: names.map((n) => created.get(n)! - asked.get(n)!),
    teardown,
  };
}

/** Calls `fn(name)` at `perSecond` on a fixed schedule; when each call was made. */
async function paced(
  names: string[],
  perSecond: number,
  fn: (name: string) => Promise<void>,
): Promise<Map<string, number>> {
  const asked = new Map<string, number>();
  const t0 = realClock.now();
  for (const [i, n] of names.entries()) {
    // A fixed schedule, not a fixed gap: a slow write does not slow the arrival rate.
    await realClock.sleep(t0 + (i * 1000) / perSecond - realClock.now());
    asked.set(n, realClock.now());
    await fn(n);
  }
  return asked;
}

async function teardownBaseline(ctx: BenchContext, started: StartedPod[]): Promise<number> {
  const t1 = realClock.now();
  const names = started.map((s) => s.name);
  const [, gone] = await Promise.all([
    Promise.all(started.map((s) => ctx.baseline.teardown(s))),
    waitSandboxesGone(ctx.cri.runtime, { node: ctx.baseline.node, names }),
  ]);
  return gone - t1;
}

function writeManifest(ctx: BenchContext, name: string): Promise<void> {
  return Deno.writeTextFile(`${ctx.agent.manifestDir}/${name}.yaml`, manifest(name, ctx.image));
}

/**
 * When /pods first showed every named pod Running (ms since the epoch); with `ready`, also with
 * its Ready condition True (readiness probes passed).
 */
export async function waitPodsRunning(
  agent: AgentProcess,
  names: string[],
  opts: { timeoutMs?: number; intervalMs?: number; ready?: boolean; signal?: AbortSignal } = {},
): Promise<number> {
  const wanted = names.map((n) => `${n}-${agent.hostname}`);
  const ok = (p: V1Pod) =>
    p.status?.phase === "Running" &&
    (!opts.ready || p.status.conditions?.some((c) => c.type === "Ready" && c.status === "True"));
  await waitFor(async () => {
    const pods = await agent.pods();
    const good = new Set(pods.items.filter(ok).map((p) => p.metadata!.name));
    return wanted.every((n) => good.has(n));
  }, {
    timeoutMs: opts.timeoutMs ?? 300_000,
    intervalMs: opts.intervalMs ?? 50,
    what: `${names.length} pods Running${opts.ready ? " and Ready" : ""} on /pods`,
    signal: opts.signal,
  });
  return realClock.now();
}

/** The agent's CRI call counters by upstream operation name (run_podsandbox, ...). */
export async function agentOps(agent: AgentProcess): Promise<Record<string, number>> {
  const res = await agent.get("/metrics");
  return countersBy(await res.text(), OPS, "operation_type");
}

function perPod(calls: Record<string, number>, n: number): Record<string, number> {
  return Object.fromEntries(Object.entries(calls).map(([k, v]) => [k, v / n]));
}
