/** The agent's own metrics, under the upstream kubelet names (pkg/kubelet/metrics). */
import {
  type Counter,
  exponentialBuckets,
  type Gauge,
  type Histogram,
  type MetricsRegistry,
  type Vec,
} from "./metrics.ts";

/** The agent's metrics, named, labelled and bucketed as upstream's pkg/kubelet/metrics. */
export interface AgentMetrics {
  /** kubelet_running_pods: pods with a running sandbox. */
  runningPods: Gauge;
  /** kubelet_running_containers{container_state}: created, running, exited, unknown. */
  runningContainers: Vec<Gauge>;
  /** kubelet_pleg_relist_duration_seconds */
  plegRelistDuration: Histogram;
  /** kubelet_pleg_relist_interval_seconds: time between the starts of two relists. */
  plegRelistInterval: Histogram;
  /** kubelet_pod_worker_duration_seconds{operation_type}: create, update or sync. */
  podWorkerDuration: Vec<Histogram>;
  /** kubelet_runtime_operations_total{operation_type}: CRI method, e.g. "list_podsandbox". */
  runtimeOperations: Vec<Counter>;
  /** kubelet_runtime_operations_errors_total{operation_type} */
  runtimeOperationsErrors: Vec<Counter>;
  /** kubelet_runtime_operations_duration_seconds{operation_type} */
  runtimeOperationsDuration: Vec<Histogram>;
  /** kubelet_started_pods_total: sandbox creations. */
  startedPods: Counter;
  /** kubelet_started_containers_total{container_type}: container, init_container. */
  startedContainers: Vec<Counter>;
}

/** Registers the agent's metrics on `registry` and returns typed handles to them. */
export function createAgentMetrics(registry: MetricsRegistry): AgentMetrics {
  const alpha = "ALPHA" as const;
  const op = ["operation_type"] as const;
  return {
    runningPods: registry.gauge({
      name: "kubelet_running_pods",
      help: "Number of pods that have a running pod sandbox",
      stability: alpha,
    }),
    runningContainers: registry.gaugeVec({
      name: "kubelet_running_containers",
      help: "Number of containers currently running",
      labelNames: ["container_state"],
      stability: alpha,
    }),
    plegRelistDuration: registry.histogram({
      name: "kubelet_pleg_relist_duration_seconds",
      help: "Duration in seconds for relisting pods in PLEG.",
      stability: alpha,
    }),
    plegRelistInterval: registry.histogram({
      name: "kubelet_pleg_relist_interval_seconds",
      help: "Interval in seconds between relisting in PLEG.",
      stability: alpha,
    }),
    podWorkerDuration: registry.histogramVec({
      name: "kubelet_pod_worker_duration_seconds",
      help: "Duration in seconds to sync a single pod. Broken down by operation type: create, " +
        "update, or sync",
      labelNames: op,
      stability: alpha,
    }),
    runtimeOperations: registry.counterVec({
      name: "kubelet_runtime_operations_total",
      help: "Cumulative number of runtime operations by operation type.",
      labelNames: op,
      stability: alpha,
    }),
    runtimeOperationsErrors: registry.counterVec({
      name: "kubelet_runtime_operations_errors_total",
      help: "Cumulative number of runtime operation errors by operation type.",
      labelNames: op,
      stability: alpha,
    }),
    runtimeOperationsDuration: registry.histogramVec({
      name: "kubelet_runtime_operations_duration_seconds",
      help: "Duration in seconds of runtime operations. Broken down by operation type.",
      labelNames: op,
      buckets: exponentialBuckets(0.005, 2.5, 14),
      stability: alpha,
    }),
    startedPods: registry.counter({
      name: "kubelet_started_pods_total",
      help: "Cumulative number of pods started",
      stability: alpha,
    }),
    startedContainers: registry.counterVec({
      name: "kubelet_started_containers_total",
      help: "Cumulative number of containers started",
      labelNames: ["container_type"],
      stability: alpha,
    }),
  };
}
