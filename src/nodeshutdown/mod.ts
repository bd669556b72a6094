/**
 * Graceful node shutdown (upstream pkg/kubelet/nodeshutdown): a logind delay inhibitor holds a
 * shutdown or reboot while the pods stop, group by group, with their hooks and grace periods.
 * Loaded by the agent only when shutdownGracePeriod or shutdownGracePeriodByPodPriority is set.
 */
export {
  DEFAULT_PRIORITY,
  groupByPriority,
  migrateConfig,
  periodRequestedMs,
  podGracePeriodSeconds,
  type ShutdownGroup,
  shutdownPeriods,
  SYSTEM_CRITICAL_PRIORITY,
} from "./_groups.ts";
export { type KillPod, killPods } from "./_kill_pods.ts";
export {
  createShutdownManager,
  NODE_SHUTDOWN_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_REASON,
  NODE_SHUTDOWN_REASON,
  type ShutdownInhibitor,
  type ShutdownManager,
  type ShutdownManagerDeps,
} from "./manager.ts";
export { connectLogind, LOGIND_CONF_DIR, LOGIND_DROP_IN, logindDropIn } from "./_logind.ts";
export { type ShutdownState, shutdownStateStore, STATE_FILE } from "./_state.ts";
