/**
 * Footprint and loop cost at a steady pod count: the agent's RSS and CPU from /proc over a
 * window, and over the same window the PLEG relist and sync loop iteration histograms from its
 * own /metrics (differences of two scrapes, so only the window counts).
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
  /** Sync loop iterations per second over the window. */
  loopIterationsPerSecond?: number;
  /** The agent's CRI calls per second over the window, by operation: what steady state costs. */
  criCallsPerSecond: Record<string, number>;
}

const RELIST = "kubelet_pleg_relist_duration_seconds";
const LOOP = "denolet_sync_loop_iteration_duration_seconds";
const OPS = "kubelet_runtime_operations_total";
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
  await realClock.sleep(SETTLE_MS);
  const before = await scrape(agent);
  const footprint = await sampleFootprint(agent.pid, opts.sampleMs);
  const after = await scrape(agent);
  const mappings = await mappingBreakdown(agent.pid);
  const delta = (name: string) => {
    const a = histogram(before, name);
    const b = histogram(after, name);
    return a && b ? histogramDelta(a, b) : undefined;
  };
  const ops = counterDelta(
    countersBy(before, OPS, "operation_type"),
    countersBy(after, OPS, "operation_type"),
  );
  const relist = delta(RELIST);
  const loop = delta(LOOP);
  return {
    pods,
    footprint,
    mappings,
    relist: relist && summarizeHistogram(relist),
    loopIteration: loop && summarizeHistogram(loop),
    loopIterationsPerSecond: loop && loop.count / footprint.seconds,
    criCallsPerSecond: Object.fromEntries(
      Object.entries(ops).map(([op, n]) => [op, n / footprint.seconds]),
    ),
  };
}

/** Removes every footprint pod's manifest (the caller waits for the sandboxes to go). */
export async function removeFootprintPods(agent: AgentProcess, pods: number): Promise<string[]> {
  const names = podNames("fp", pods);
  await Promise.all(names.map((n) => Deno.remove(`${agent.manifestDir}/${n}.yaml`)));
  return names;
}

async function scrape(agent: AgentProcess): Promise<string> {
  const res = await agent.get("/metrics");
  return await res.text();
}
