/**
 * The allocation (upstream pkg/kubelet/allocation): the resources each admitted pod was given,
 * kept across restarts in `<root-dir>/allocated_pods_state`, and in-place resize admission:
 * a resize is allocated when it fits, else it stays pending (PodResizePending: Infeasible or
 * Deferred). The runtime manager keeps what it applied in `actuated_pods_state` with the same
 * state type.
 */
export type { PodResourceInfo } from "./types.ts";
export {
  ACTUATED_PODS_STATE_FILE,
  ALLOCATED_PODS_STATE_FILE,
  PodResourceState,
  type PodResourceStateOptions,
} from "./state.ts";
export {
  cpuMemoryChanged,
  podFromAllocation,
  resizableContainers,
  resourceInfoForPod,
  sameList,
  sameQuantity,
  sameRequirements,
} from "./_resources.ts";
export {
  type AdmitVerdict,
  AllocationManager,
  type AllocationManagerDeps,
  INITIAL_RETRY_MS,
  RETRY_MS,
  type RetryTrigger,
} from "./manager.ts";
export {
  type ResizeAdmissionOptions,
  resizeEventMessage,
  resizeInfeasible,
} from "./resize_admission.ts";
export {
  POD_RESIZE_IN_PROGRESS,
  POD_RESIZE_PENDING,
  REASON_DEFERRED,
  REASON_ERROR,
  REASON_INFEASIBLE,
  ResizeConditions,
} from "./resize_conditions.ts";
