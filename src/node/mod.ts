/**
 * The node's own status as a v1 Node object (capacity, allocatable, conditions, addresses,
 * nodeInfo, images), served on the node API's `/node`. The API mode's registrar and lease
 * controller (`registrar.ts`, `lease.ts`) are imported by path from the cluster module, so a
 * standalone agent never loads API code through this entry.
 */
export {
  createNodeStatusProvider,
  DEFAULT_MAX_PODS,
  IMAGE_LIST_PERIOD_MS,
  type NodeStatusDeps,
  type NodeStatusProvider,
} from "./node_status.ts";
export {
  allocatable,
  type Amounts,
  capacityOf,
  formatAmounts,
  hugePageSizes,
  type PodsAllocatable,
  podsAllocatable,
  reservationProblems,
} from "./_allocatable.ts";
export { DEFAULT_MAX_IMAGES, nodeImages } from "./_images.ts";
export { type MachineInfo, type MachineRoots, readMachineInfo } from "./_machine.ts";
export { declaredFeatures } from "./_declared_features.ts";
