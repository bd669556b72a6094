/** The eviction fields of a default AgentConfig, for tests that compare whole configs. */
export const EVICTION_DEFAULTS = {
  evictionHard: {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
  },
  evictionSoft: {},
  evictionSoftGracePeriod: {},
  evictionMinimumReclaim: {},
  evictionPressureTransitionPeriodMs: 300_000,
  evictionMaxPodGracePeriod: 0,
  mergeDefaultEvictionSettings: false,
  evictStaticPods: false,
} as const;
