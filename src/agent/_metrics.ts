/** Feeds the agent's upstream-named metrics from the hooks the parts expose. */
import { type AgentMetrics, createAgentMetrics, type MetricsRegistry } from "../util/metrics.ts";

export interface AgentObservers {
  runtimeCall(method: string, ms: number, err?: unknown): void;
  relist(ms: number, err?: unknown): void;
  podWorker(op: string, ms: number): void;
  /** Gauges read at scrape time. */
  counts(fn: () => { pods: number; containers: number }): void;
}

export function createAgentObservers(registry: MetricsRegistry, now: () => number): AgentObservers {
  const m: AgentMetrics = createAgentMetrics(registry);
  const opNames = new Map<string, string>();
  let lastRelist = 0;
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
    podWorker(op, ms) {
      m.podWorkerDuration.labels(op).observe(ms / 1000);
    },
    counts(fn) {
      m.runningPods.setFunction(() => fn().pods);
      m.runningContainers.labels("running").setFunction(() => fn().containers);
    },
  };
}
