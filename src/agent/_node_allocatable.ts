/**
 * The container manager's start-up part of node allocatable (upstream NewContainerManager and
 * containerManagerImpl.Start): the machine is read once, a reservation larger than the capacity
 * stops the agent as it stops the kubelet, and the pods' cgroup gets its size.
 */
import type { AgentConfig } from "../config/types.ts";
import { ENFORCE_PODS, type NodeAllocatable, type ReservedCgroupsConfig } from "../cm/mod.ts";
import { evictionConfigFrom } from "../eviction/mod.ts";
import {
  capacityOf,
  hugePageSizes,
  type MachineInfo,
  podsAllocatable,
  readMachineInfo,
  reservationProblems,
} from "../node/mod.ts";
import { ConfigError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { statfs } from "../util/statfs.ts";

export interface NodeAllocatableSetup {
  /** The machine facts, shared with the Node status. */
  machine: MachineInfo;
  /** What kubepods is sized to. */
  nodeAllocatable: NodeAllocatable;
  /** The host's huge page sizes ("2MB", "1GB") for hugetlb limits. */
  hugePageSizes: string[];
  /** The reserved cgroups to limit, when --enforce-node-allocatable names them. */
  reserved?: ReservedCgroupsConfig;
}

/**
 * Reads the machine and checks the reservations against it. Throws ConfigError with upstream's
 * message ("invalid Node Allocatable configuration. Resource ...") when they do not fit.
 */
export async function nodeAllocatableSetup(
  config: AgentConfig,
  opts: { logger: Logger },
): Promise<NodeAllocatableSetup> {
  const machine = await readMachineInfo({}, { logger: opts.logger });
  let nodeFsBytes: number | undefined;
  try {
    // Without local storage isolation the node has no ephemeral-storage capacity to check.
    if (config.localStorageCapacityIsolation) {
      nodeFsBytes = (await statfs(config.rootDir)).capacityBytes;
    }
  } catch (err) {
    opts.logger.debug(2, "Cannot read the node filesystem's capacity", { err: errorMessage(err) });
  }
  const problems = reservationProblems(capacityOf(machine, config.maxPods, nodeFsBytes), {
    hard: evictionConfigFrom(config).thresholds,
    kubeReserved: config.kubeReserved,
    systemReserved: config.systemReserved,
  });
  if (problems.length > 0) {
    throw new ConfigError(
      "kubeReserved/systemReserved",
      `invalid Node Allocatable configuration. ${problems.join(" ")}`,
    );
  }
  const enforce = config.enforceNodeAllocatable;
  const reservedEnforced = enforce.some((k) => k !== ENFORCE_PODS && k !== "none");
  return {
    machine,
    hugePageSizes: hugePageSizes(machine),
    nodeAllocatable: podsAllocatable(machine, {
      enforce: config.cgroupsPerQOS && enforce.includes(ENFORCE_PODS),
      kubeReserved: config.kubeReserved,
      systemReserved: config.systemReserved,
    }),
    reserved: reservedEnforced
      ? {
        enforce,
        kubeReservedCgroup: config.kubeReservedCgroup,
        systemReservedCgroup: config.systemReservedCgroup,
        kubeReserved: config.kubeReserved,
        systemReserved: config.systemReserved,
      }
      : undefined,
  };
}
