/**
 * The node's own status as a v1 Node object (capacity, allocatable, conditions, addresses,
 * nodeInfo), served on the node API's `/node` since a standalone agent has no API server.
 */
export {
  allocatable,
  capacityOf,
  createNodeStatusProvider,
  DEFAULT_MAX_PODS,
  type NodeStatusDeps,
  type NodeStatusProvider,
} from "./node_status.ts";
export { type MachineInfo, type MachineRoots, readMachineInfo } from "./_machine.ts";
