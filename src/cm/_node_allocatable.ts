/**
 * Node allocatable enforcement (upstream node_container_manager_linux.go): the `kubepods` cgroup
 * is sized to what pods may use, and with `kube-reserved` / `system-reserved` (or their
 * `-compressible` forms) in --enforce-node-allocatable the reservations become the limits of
 * those existing cgroups.
 */
import type { EventRecorder } from "../events/mod.ts";
import { milliCPUToShares } from "../runtime/mod.ts";
import { errorMessage } from "../util/log.ts";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";
import { CgroupError } from "./_cgroup_fs.ts";
import type { ResourceConfig } from "./_resource_config.ts";
import { type CgroupTree, quotedCgroupName } from "./_tree.ts";

/** What the `kubepods` cgroup is sized to: capacity, less the reservations when enforced. */
export interface NodeAllocatable {
  cpuMilli: number;
  memoryBytes: number;
  /** The node's task limit (min of pid_max and threads-max) less reserved pids. */
  pids?: number;
  /** Huge pages by cgroup page size ("2MB"): bytes the node has of each. */
  hugePages?: Record<string, number>;
}

/** The `enforceNodeAllocatable` keys upstream accepts. */
export const ENFORCE_PODS = "pods";
export const ENFORCE_SYSTEM_RESERVED = "system-reserved";
export const ENFORCE_SYSTEM_RESERVED_COMPRESSIBLE = "system-reserved-compressible";
export const ENFORCE_KUBE_RESERVED = "kube-reserved";
export const ENFORCE_KUBE_RESERVED_COMPRESSIBLE = "kube-reserved-compressible";
export const ENFORCE_NONE = "none";

/** The kubepods cgroup's values (getCgroupConfig of the node allocatable). */
export function nodeAllocatableConfig(alloc: NodeAllocatable): ResourceConfig {
  const out: ResourceConfig = {
    cpuShares: milliCPUToShares(alloc.cpuMilli),
    memoryLimitBytes: alloc.memoryBytes,
  };
  if (alloc.pids !== undefined) out.pidsLimit = alloc.pids;
  if (alloc.hugePages !== undefined) out.hugePageLimits = { ...alloc.hugePages };
  return out;
}

/**
 * The limits a reserved cgroup gets from its reservation (getCgroupConfigInternal): cpu shares
 * from cpu; unless only compressible resources are enforced, the memory limit and pids.max too.
 * undefined when nothing is reserved (upstream: "cgroup is not configured properly").
 */
export function reservedConfig(
  reserved: Readonly<Record<string, string>>,
  compressibleOnly: boolean,
): ResourceConfig | undefined {
  if (Object.keys(reserved).length === 0) return undefined;
  const out: ResourceConfig = {};
  if (reserved.cpu !== undefined) {
    out.cpuShares = milliCPUToShares(quantityMilliValue(reserved.cpu));
  }
  if (compressibleOnly) return out;
  if (reserved.memory !== undefined) out.memoryLimitBytes = quantityValue(reserved.memory);
  if (reserved.pid !== undefined) out.pidsLimit = quantityValue(reserved.pid);
  // Nothing reserves huge pages: every size is limited to 0, as upstream's maybeSetHugetlb.
  out.hugePageLimits = {};
  return out;
}

export interface ReservedCgroupsConfig {
  /** --enforce-node-allocatable. */
  enforce: readonly string[];
  /** --kube-reserved-cgroup / --system-reserved-cgroup (absolute cgroupfs names). */
  kubeReservedCgroup: string;
  systemReservedCgroup: string;
  kubeReserved: Readonly<Record<string, string>>;
  systemReserved: Readonly<Record<string, string>>;
}

/** The Node the enforcement events are about. */
export interface NodeEvents {
  events: EventRecorder;
  nodeName: string;
}

export function nodeRef(nodeName: string) {
  return { kind: "Node" as const, apiVersion: "v1", name: nodeName, uid: nodeName };
}

const REASON_OK = "SuccessfulNodeAllocatableEnforcement";
export const REASON_FAILED = "FailedNodeAllocatableEnforcement";

/**
 * Writes the reservations to the system- and kube-reserved cgroups, which must exist
 * (enforceNodeAllocatableCgroups). Throws CgroupError with upstream's message on the first that
 * fails; upstream's kubelet then exits, and so does the agent.
 */
export async function enforceReservedCgroups(
  tree: CgroupTree,
  cfg: ReservedCgroupsConfig,
  node?: NodeEvents,
): Promise<void> {
  const steps = [
    [ENFORCE_SYSTEM_RESERVED, "System Reserved", cfg.systemReservedCgroup, cfg.systemReserved],
    [ENFORCE_KUBE_RESERVED, "Kube Reserved", cfg.kubeReservedCgroup, cfg.kubeReserved],
    [
      ENFORCE_SYSTEM_RESERVED_COMPRESSIBLE,
      "System Reserved",
      cfg.systemReservedCgroup,
      cfg.systemReserved,
    ],
    [ENFORCE_KUBE_RESERVED_COMPRESSIBLE, "Kube Reserved", cfg.kubeReservedCgroup, cfg.kubeReserved],
  ] as const;
  for (const [key, what, name, reserved] of steps) {
    if (!cfg.enforce.includes(key)) continue;
    const compressible = key.endsWith("-compressible");
    try {
      const config = reservedConfig(reserved, compressible);
      if (!config) {
        throw new CgroupError(`${quotedCgroupName(name)} cgroup is not configured properly`);
      }
      await tree.validate(name);
      await tree.update(name, config);
    } catch (err) {
      const message = `Failed to enforce ${what}${compressible ? " Compressible" : ""} Cgroup ` +
        `Limits on ${JSON.stringify(name)}: ${errorMessage(err)}`;
      node?.events.event(nodeRef(node.nodeName), "Warning", REASON_FAILED, message);
      throw new CgroupError(message, { cause: err });
    }
    const kind = what === "Kube Reserved" ? "kube reserved" : "system reserved";
    node?.events.event(
      nodeRef(node.nodeName),
      "Normal",
      REASON_OK,
      `Updated limits on ${kind} cgroup ${name}`,
    );
  }
}

/** The event upstream records once the kubepods limits are written. */
export function kubepodsEnforced(node: NodeEvents | undefined): void {
  node?.events.event(
    nodeRef(node.nodeName),
    "Normal",
    REASON_OK,
    "Updated Node Allocatable limit across pods",
  );
}
