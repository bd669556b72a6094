/**
 * The runtime manager: what to do for a pod and doing it through the CRI.
 *
 * `createRuntimeManager(deps)` gives the `PodRuntime` the pod workers drive;
 * `computePodActions` is the pure decision step, exported for tests and diagnostics.
 */
export type * from "./types.ts";
export {
  type CgroupValues,
  createRuntimeManager,
  type PodCgroupHooks,
  RuntimeManager,
  type RuntimeManagerDeps,
} from "./_runtime_manager.ts";
export {
  computePodActions,
  type ComputePodActionsOptions,
  type ContainerToKill,
  type KillReason,
  type PodActions,
  type ProbeFailure,
} from "./_pod_actions.ts";
export { ImagePuller, type ImagePullerDeps, type PullPolicy } from "./_image_puller.ts";
export { MIN_GRACE_PERIOD_SECONDS } from "./_kill.ts";
export { parseResolvConf, podLogDirectory, type SandboxConfigOptions } from "./_sandbox_config.ts";
export {
  containerHash,
  LABEL_CONTAINER_NAME,
  LABEL_NODE_NAME,
  LABEL_POD_NAME,
  LABEL_POD_NAMESPACE,
  LABEL_POD_UID,
  legacyContainerHash,
  parseContainerLabels,
  parseSandboxLabels,
} from "./_labels.ts";
export {
  containerOOMScoreAdj,
  containerSwapBehavior,
  cpuLimitMilli,
  cpuRequestMilli,
  memoryLimitBytes,
  memoryRequestBytes,
  milliCPUToQuota,
  milliCPUToShares,
  QUOTA_PERIOD_US,
  resourceBytes,
  type SwapSettings,
} from "./_resources.ts";
// Kept for importers of the runtime's surface; the implementations live in util.
export { type QOSClass, qosClass as podQOS } from "../util/qos.ts";
export { quantityMilliValue, quantityValue } from "../util/quantity.ts";
export { toRunningPod } from "./_status.ts";
export { type EnvObjects, EnvSourceError } from "./_env.ts";
export { downwardAPIValues } from "./_downward_api.ts";
export { type ServiceLookup, ServicesNotSyncedError } from "./_service_env.ts";
export { normalizeSysctlName, podSysctls } from "./_sysctls.ts";
export {
  CONTAINER_LOGS_DIR,
  createLogLinks,
  type LogLinkName,
  logLinkPath,
  type LogLinks,
} from "./log_links.ts";
export { appArmorProfileOf, appArmorRequired, containerAppArmor } from "./_apparmor.ts";
export { idmapMounts, type PodUserNamespaces } from "./_userns.ts";
export { LEGACY_HASHES_FILE, LegacyHashes } from "./_legacy_hashes.ts";
