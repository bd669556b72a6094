/** The graceful node shutdown fields of a default AgentConfig (off), for whole-config tests. */
export const SHUTDOWN_DEFAULTS = {
  shutdownGracePeriodMs: 0,
  shutdownGracePeriodCriticalPodsMs: 0,
  shutdownGracePeriodByPodPriority: [],
};
