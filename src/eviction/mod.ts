/**
 * The eviction manager: thresholds on memory, disk and PID signals, node pressure conditions,
 * node-level reclaim before pod eviction, and admission under pressure (upstream
 * pkg/kubelet/eviction).
 */
export { createEvictionManager, MONITORING_INTERVAL_MS } from "./manager.ts";
export {
  DEFAULT_EVICTION_HARD,
  parseThresholdConfig,
  SIGNALS,
  type ThresholdInput,
  type ThresholdInputNames,
  thresholdQuantity,
} from "./thresholds.ts";
export { evictionConfigFrom } from "./config.ts";
export { isCriticalPod } from "./_rank.ts";
export { isStaticPod } from "../util/static_pod.ts";
export { formatQuantity } from "../util/quantity.ts";
export type {
  AdmitResult,
  EvictionConfig,
  EvictionManager,
  EvictionManagerDeps,
  EvictionStats,
  EvictionSummary,
  EvictPodOptions,
  NodeConditionSnapshot,
  NodeReclaimer,
  PressureCondition,
  Signal,
  Threshold,
  ThresholdValue,
} from "./types.ts";
