/**
 * Probe load (issue 3): what 3 probes per pod (exec, HTTP, TCP) every 10 s cost the agent. The
 * same busybox pods are measured twice, first without probes, then with them, each once every
 * pod is Running and Ready, so the difference is the probes' alone (the probe-free pause pods
 * of the footprint have one container per pod, these two). Each set is removed, and its
 * sandboxes gone, before the next starts.
 */
import type { RuntimeService } from "../../src/cri/types.ts";
import type { AgentProcess } from "../support/agent.ts";
import { measureSteadyState, type SteadyState } from "./_footprint.ts";
import {
  manifestText,
  podNames,
  PROBE_PERIOD_SECONDS,
  probePod,
  waitSandboxesGone,
} from "./_pods.ts";
import { waitPodsRunning } from "./_scenarios.ts";

/**
 * From Ready to the window: longer than the footprint's 5 s so that the one-off work for new
 * containers is done before it (log rotation asks each for its log path on its first 10 s
 * pass: 220 ContainerStatus calls at 110 pods, which would land in one window and not the
 * other).
 */
const SETTLE_MS = 15_000;

/** Probes per pod: HTTP readiness and TCP liveness on `web`, exec readiness on `side`. */
export const PROBES_PER_POD = 3;

export interface ProbeLoad {
  pods: number;
  /** Probes configured (PROBES_PER_POD per pod), one third each of exec, HTTP and TCP. */
  probes: number;
  periodSeconds: number;
  /** The same pods without probes. */
  off: SteadyState;
  /** The pods with their probes. */
  on: SteadyState;
  /** What the configuration asks for: probes / periodSeconds. */
  expectedPerSecond: number;
  /** prober_probe_total over the window with probes. */
  probesPerSecond: number;
  /** Results other than `successful` in the window: should be none. */
  unsuccessful: number;
  /** CRI ExecSync calls per second over the window with probes (the exec third). */
  execSyncPerSecond: number;
  /** Container restarts from Ready to the window's end (from /pods): should be none. */
  restarts: number;
  /** Pods not Ready at the window's end: should be none. */
  notReadyAfter: number;
  /** Agent CPU with probes minus without, percentage points of one core. */
  cpuDeltaPct: number;
  /** Agent CPU per probe run (the delta over the probe rate), ms. */
  cpuPerProbeMs: number;
  /** Mean RSS with probes minus without, MB. */
  rssDeltaMB: number;
}

/** What the agent's /pods says about the named pods. */
interface PodsView {
  restarts: number;
  notReady: number;
}

/** Runs both windows and cleans up after each; `pods` > 0. */
export async function probeLoad(
  env: { agent: AgentProcess; runtime: RuntimeService; image: string },
  pods: number,
  opts: { sampleMs: number; progress?: (s: string) => void },
): Promise<ProbeLoad> {
  const progress = opts.progress ?? (() => {});
  progress(`probe load: ${pods} busybox pods without probes`);
  const { steady: off } = await measurePods(env, podNames("pl-off", pods), {
    probes: false,
    sampleMs: opts.sampleMs,
  });
  progress(`probe load: ${pods} pods with ${PROBES_PER_POD} probes each`);
  const { steady: on, before, after } = await measurePods(env, podNames("pl-on", pods), {
    probes: true,
    sampleMs: opts.sampleMs,
  });
  return summarizeProbeLoad(off, on, {
    restarts: after.restarts - before.restarts,
    notReadyAfter: after.notReady,
  });
}

/** The figures derived from the two windows. */
export function summarizeProbeLoad(
  off: SteadyState,
  on: SteadyState,
  seen: { restarts: number; notReadyAfter: number },
): ProbeLoad {
  const probesPerSecond = on.probes?.perSecond ?? 0;
  const unsuccessful = Object.entries(on.probes?.byResult ?? {})
    .filter(([result]) => result !== "successful")
    .reduce((a, [, n]) => a + n, 0);
  const cpuDeltaPct = on.footprint.cpuPct - off.footprint.cpuPct;
  return {
    pods: on.pods,
    probes: on.pods * PROBES_PER_POD,
    periodSeconds: PROBE_PERIOD_SECONDS,
    off,
    on,
    expectedPerSecond: on.pods * PROBES_PER_POD / PROBE_PERIOD_SECONDS,
    probesPerSecond,
    unsuccessful,
    execSyncPerSecond: on.criCallsPerSecond["exec_sync"] ?? 0,
    restarts: seen.restarts,
    notReadyAfter: seen.notReadyAfter,
    cpuDeltaPct,
    // percentage points of a core = cpuDeltaPct * 10 ms of CPU per second.
    cpuPerProbeMs: probesPerSecond > 0 ? cpuDeltaPct * 10 / probesPerSecond : NaN,
    rssDeltaMB: on.footprint.rssMB - off.footprint.rssMB,
  };
}

/** Starts the pods, waits for Running and Ready, measures, then removes them. */
async function measurePods(
  env: { agent: AgentProcess; runtime: RuntimeService; image: string },
  names: string[],
  opts: { probes: boolean; sampleMs: number },
): Promise<{ steady: SteadyState; before: PodsView; after: PodsView }> {
  const { agent } = env;
  const file = (n: string) => `${agent.manifestDir}/${n}.yaml`;
  await Promise.all(
    names.map((n) =>
      Deno.writeTextFile(file(n), manifestText(probePod(n, env.image, { probes: opts.probes })))
    ),
  );
  // Polled slowly: /pods for 110 pods is work for the agent, and start latency is not measured.
  await waitPodsRunning(agent, names, { ready: true, intervalMs: 1000 });
  const before = await podsView(agent, names);
  const period = PROBE_PERIOD_SECONDS * 1000;
  const steady = await measureSteadyState(agent, names.length, {
    sampleMs: opts.sampleMs,
    settleMs: SETTLE_MS,
    // The probes of pods started together fire together; a window of whole periods counts
    // each probe the same number of times (the margin covers the scrapes around /proc's).
    metricsMs: Math.ceil((opts.sampleMs + 2000) / period) * period,
  });
  const after = await podsView(agent, names);
  await Promise.all(names.map((n) => Deno.remove(file(n))));
  await waitSandboxesGone(env.runtime, { node: agent.hostname, names });
  return { steady, before, after };
}

async function podsView(agent: AgentProcess, names: string[]): Promise<PodsView> {
  const wanted = new Set(names.map((n) => `${n}-${agent.hostname}`));
  const pods = (await agent.pods()).items.filter((p) => wanted.has(p.metadata?.name ?? ""));
  const restarts = pods.flatMap((p) => p.status?.containerStatuses ?? [])
    .reduce((a, c) => a + (c.restartCount ?? 0), 0);
  const ready =
    pods.filter((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
      .length;
  return { restarts, notReady: wanted.size - ready };
}
