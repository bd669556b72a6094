/** The API-mode fields of a default AgentConfig, for whole-config tests. */
export const CLUSTER_DEFAULTS = {
  kubeconfig: "",
  registerNode: true,
  nodeLabels: {},
  registerWithTaints: [],
  cloudProvider: "",
  providerID: "",
  nodeStatusUpdateFrequencyMs: 10_000,
  nodeStatusReportFrequencyMs: 300_000,
  nodeLeaseDurationSeconds: 40,
  nodeStatusMaxImages: 50,
  kubeReserved: {},
  systemReserved: {},
  apiCheckpoint: true,
  apiCheckpointSecrets: true,
  kubeAPIQPS: 50,
  kubeAPIBurst: 100,
} as const;
