/**
 * Footprint and loop cost at a steady pod count: the agent's RSS and CPU from /proc over a
 * window, and over the same window the PLEG relist and sync loop iteration histograms from its
 * own /metrics (differences of two scrapes, so only the window counts), with the CRI calls and
 * probes run in it.
 */
import { realClock } from "../../src/util/clock.ts";
import type { AgentProcess } from "../support/agent.ts";
import {
  counterDelta,
  countersBy,
  histogram,
  histogramDelta,
  type HistogramSummary,
  summarizeHistogram,
} from "./_metrics.ts";
import { manifest, podNames } from "./_pods.ts";
import {
  type Footprint,
  machineBusyPct,
  machineCpu,
  type MappingBreakdown,
  mappingBreakdown,
  sampleFootprint,
} from "./_proc.ts";
import { waitPodsRunning } from "./_scenarios.ts";

export interface SteadyState {
  pods: number;
  footprint: Footprint;
  /** Resident memory by mapping kind at the end of the window. */
  mappings: MappingBreakdown;
  /** kubelet_pleg_relist_duration_seconds over the window. */
  relist?: HistogramSummary;
  /** denolet_sync_loop_iteration_duration_seconds over the window, when exported. */
  loopIteration?: HistogramSummary;
  /** Seconds between the two /metrics scrapes: the span the per-second rates below cover. */
  metricsSeconds: number;
  /** Sync loop iterations per second over the window. */
  loopIterationsPerSecond?: number;
  /** The agent's CRI calls per second over the window, by operation: what steady state costs. */
  criCallsPerSecond: Record<string, number>;
  /**
   * The whole machine over the window: CPU busy as % of all cores, and the 1-minute load
   * average at its end. What the agent ran beside (the machine is shared), and for the probe
   * load what the runtime's side (runc exec, shims) costs.
   */
  machine: { busyPct: number; loadavg1: number };
  /** prober_probe_total over the window by result (successful, failed, unknown), when any ran. */
  probes?: { perSecond: number; byResult: Record<string, number> };
}

const RELIST = "kubelet_pleg_relist_duration_seconds";
const LOOP = "denolet_sync_loop_iteration_duration_seconds";
const OPS = "kubelet_runtime_operations_total";
const PROBES = "prober_probe_total";
/** After the last pod reports Running, let start-up work (status, first relists) finish. */
const SETTLE_MS = 5_000;

/**
 * Brings the agent to `pods` running footprint pods (adding files; pods from a previous, smaller
 * level stay), lets it settle, then samples for `sampleMs`.
 */
export async function steadyStateAt(
  agent: AgentProcess,
  pods: number,
  opts: { image: string; sampleMs: number },
): Promise<SteadyState> {
  const names = podNames("fp", pods);
  await Promise.all(
    names.map((n) => Deno.writeTextFile(`${agent.manifestDir}/${n}.yaml`, manifest(n, opts.image))),
  );
  if (pods > 0) await waitPodsRunning(agent, names);
  return await measureSteadyState(agent, pods, opts);
}

/**
 * Lets the agent settle (start-up work of the pods just added) for `settleMs` (default 5 s),
 * then samples its footprint and loop cost for `sampleMs`. The caller has brought it to `pods`
 * running pods. With `metricsMs`, the second /metrics scrape is taken that long after the
 * first (if the /proc window has ended by then): a whole number of probe periods, so that
 * probes firing in bursts each count as often as the period says.
 */
export async function measureSteadyState(
  agent: AgentProcess,
  pods: number,
  opts: { sampleMs: number; settleMs?: number; metricsMs?: number },
): Promise<SteadyState> {
  await realClock.sleep(opts.settleMs ?? SETTLE_MS);
  const before = await scrape(agent);
  const cpu0 = await machineCpu();
  const footprint = await sampleFootprint(agent.pid, opts.sampleMs);
  const cpu1 = await machineCpu();
  if (opts.metricsMs) await realClock.sleep(before.at + opts.metricsMs - performance.now());
  const after = await scrape(agent);
  // Counter rates over the time between the scrapes, not the /proc window inside it: on a
  // loaded machine a scrape takes a while, and the counts cover it too.
  const seconds = (after.at - before.at) / 1000;
  const mappings = await mappingBreakdown(agent.pid);
  const delta = (name: string) => {
    const a = histogram(before.text, name);
    const b = histogram(after.text, name);
    return a && b ? histogramDelta(a, b) : undefined;
  };
  const ops = counterDelta(
    countersBy(before.text, OPS, "operation_type"),
    countersBy(after.text, OPS, "operation_type"),
  );
  const probes = counterDelta(
    countersBy(before.text, PROBES, "result"),
    countersBy(after.text, PROBES, "result"),
  );
  const probeCount = Object.values(probes).reduce((a, n) => a + n, 0);
  const relist = delta(RELIST);
  const loop = delta(LOOP);
  return {
    pods,
    footprint,
    mappings,
    machine: { busyPct: machineBusyPct(cpu0, cpu1), loadavg1: Deno.loadavg()[0] },
    relist: relist && summarizeHistogram(relist),
    loopIteration: loop && summarizeHistogram(loop),
    metricsSeconds: seconds,
    loopIterationsPerSecond: loop && loop.count / seconds,
    criCallsPerSecond: Object.fromEntries(
      Object.entries(ops).map(([op, n]) => [op, n / seconds]),
    ),
    probes: probeCount > 0 ? { perSecond: probeCount / seconds, byResult: probes } : undefined,
  };
}

/** Removes every footprint pod's manifest (the caller waits for the sandboxes to go). */
export async function removeFootprintPods(agent: AgentProcess, pods: number): Promise<string[]> {
  const names = podNames("fp", pods);
  await Promise.all(names.map((n) => Deno.remove(`${agent.manifestDir}/${n}.yaml`)));
  return names;
}

/** One /metrics scrape and when it was taken (the middle of the request, performance.now()). */
async function scrape(agent: AgentProcess): Promise<{ text: string; at: number }> {
  const t0 = performance.now();
  const res = await agent.get("/metrics");
  const text = await res.text();
  return { text, at: (t0 + performance.now()) / 2 };
}
