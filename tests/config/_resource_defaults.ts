/** The resource fields of a default AgentConfig, for whole-config tests. */
export const RESOURCE_DEFAULTS = {
  podPidsLimit: -1,
  enforceNodeAllocatable: ["pods"],
  kubeReservedCgroup: "",
  systemReservedCgroup: "",
  localStorageCapacityIsolation: true,
  failSwapOn: true,
  memorySwapBehavior: "",
} as const;
