/** Feeds the agent's upstream-named metrics from the hooks the parts expose. */
import {
  type AgentMetrics,
  createAgentMetrics,
  exponentialBuckets,
  type MetricsRegistry,
} from "../util/metrics.ts";

export interface AgentObservers {
  runtimeCall(method: string, ms: number, err?: unknown): void;
  relist(ms: number, err?: unknown): void;
  podWorker(op: string, ms: number): void;
  syncLoop(ms: number): void;
  /** Gauges read at scrape time. */
  counts(fn: () => { pods: number; containers: Record<string, number> }): void;
}

export function createAgentObservers(registry: MetricsRegistry, now: () => number): AgentObservers {
  const m: AgentMetrics = createAgentMetrics(registry);
  const opNames = new Map<string, string>();
  let lastRelist = 0;
  // denolet's own: upstream has no per-iteration histogram, but the loop's cost is a design figure.
  const loop = registry.histogram({
    name: "denolet_sync_loop_iteration_duration_seconds",
    help: "Duration in seconds of one sync loop iteration (handling one source, PLEG, tick or " +
      "housekeeping event).",
    buckets: exponentialBuckets(0.00001, 4, 10),
  });
  return {
    runtimeCall(method, ms, err) {
      let op = opNames.get(method);
      if (!op) {
        // Upstream operation_type values: RunPodSandbox -> run_podsandbox, ListContainers -> list_containers.
        op = method.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase().replace(
          "pod_sandbox",
          "podsandbox",
        );
        opNames.set(method, op);
      }
      m.runtimeOperations.labels(op).inc();
      m.runtimeOperationsDuration.labels(op).observe(ms / 1000);
      if (err) m.runtimeOperationsErrors.labels(op).inc();
    },
    relist(ms) {
      const t = now();
      if (lastRelist) m.plegRelistInterval.observe((t - lastRelist) / 1000);
      lastRelist = t;
      m.plegRelistDuration.observe(ms / 1000);
    },
    syncLoop(ms) {
      loop.observe(ms / 1000);
    },
    podWorker(op, ms) {
      m.podWorkerDuration.labels(op).observe(ms / 1000);
    },
    counts(fn) {
      m.runningPods.setFunction(() => fn().pods);
      for (const state of ["created", "running", "exited", "unknown"]) {
        m.runningContainers.labels(state).setFunction(() => fn().containers[state] ?? 0);
      }
    },
  };
}
