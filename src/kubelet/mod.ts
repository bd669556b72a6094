/** The kubelet core: sync loop, pod workers, pod manager and status. */
export { Kubelet } from "./sync_loop.ts";
export type { HealthCheck, KubeletDeps, PodStatusSink } from "./sync_loop.ts";
export { PodWorkers } from "./pod_workers.ts";
export type {
  PodSyncer,
  PodTarget,
  PodUpdate,
  PodWorkersDeps,
  PodWorkState,
  SyncOutcome,
  UpdateType,
} from "./pod_workers.ts";
export { PodManager } from "./pod_manager.ts";
export type { PodChanges } from "./pod_manager.ts";
export { StatusManager } from "./status_manager.ts";
export { computePodStatus, qosClass } from "./_pod_status.ts";
export {
  handlerSupportsUserNamespaces,
  handlerUserNamespaces,
  type RuntimeCapabilities,
  RuntimeState,
} from "./runtime_state.ts";
