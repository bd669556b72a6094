/**
 * Resource usage of the node, its pods and containers: the Summary API (`stats/v1alpha1`)
 * sampled in the background, and its Prometheus rendering for `/metrics/resource`; and
 * `/metrics/cadvisor`, collected on demand by ./cadvisor/ (loaded on its first scrape).
 */
export type * from "./types.ts";
export {
  SYSTEM_CONTAINER_KUBELET,
  SYSTEM_CONTAINER_MISC,
  SYSTEM_CONTAINER_PODS,
  SYSTEM_CONTAINER_RUNTIME,
} from "./types.ts";
export { createStatsProvider, type StatsProviderTestDeps } from "./_provider.ts";
export { containerCgroupPath, DEFAULT_CGROUP_PARENT } from "./_pods.ts";
export { onlyCpuAndMemory } from "./_filter.ts";
export { volumeStatsMetrics } from "./volume_metrics.ts";
export { renderResourceMetrics } from "./_resource_metrics.ts";
export { type CadvisorMetricsDeps, createCadvisorMetrics } from "./_cadvisor_metrics.ts";
export {
  type CgroupMode,
  type CgroupReader,
  createCgroupReader,
  detectCgroupMode,
} from "./_cgroup.ts";
