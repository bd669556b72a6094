/** The pod cgroup and garbage collection fields of a default AgentConfig, for whole-config tests. */
export const GC_DEFAULTS = {
  cgroupsPerQOS: true,
  cgroupRoot: "/",
  cgroupDriver: "cgroupfs",
  minimumContainerTTLDurationMs: 0,
  maxPerPodContainerCount: 1,
  maxContainerCount: -1,
  imageGCHighThresholdPercent: 85,
  imageGCLowThresholdPercent: 80,
  imageMinimumGCAgeMs: 120_000,
  containerLogMaxSizeBytes: 10 * 1024 * 1024,
  containerLogMaxFiles: 5,
  containerLogMonitorIntervalMs: 10_000,
} as const;
