/**
 * The container manager: QoS and pod-level cgroups (cgroupfs driver, cgroup v1 and v2).
 *
 * `openPodCgroups(config, deps)` checks the configuration, detects the cgroup version and gives
 * the `PodCgroups` the runtime manager (cgroup parent of each sandbox, removal with the pod) and
 * housekeeping (orphans) use. `resourceConfigForPod` is the pure value computation. Only pod
 * cgroups the agent created are its to remove: it records them under `<root-dir>/pod-cgroups`.
 */
import type { Clock } from "../util/clock.ts";
import { ConfigError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import { type CgroupFs, dirCgroupFs } from "./_cgroup_fs.ts";
import { OWNERSHIP_DIR } from "./_ownership.ts";
import {
  enforceReservedCgroups,
  type NodeAllocatable,
  type NodeEvents,
  type ReservedCgroupsConfig,
} from "./_node_allocatable.ts";
import { createPodCgroups, type PodCgroups } from "./_pod_cgroups.ts";
import type { PodResourceOptions } from "./_resource_config.ts";
import { type CgroupVersion, detectCgroupVersion, openCgroupTree } from "./_tree.ts";

export { CgroupError, type CgroupFs, dirCgroupFs } from "./_cgroup_fs.ts";
export {
  createPodCgroups,
  KUBEPODS,
  podCgroupName,
  type PodCgroups,
  type PodCgroupsDeps,
} from "./_pod_cgroups.ts";
export {
  cpuMax,
  podCPURequestMilli,
  podHugePageLimits,
  type PodResourceOptions,
  type ResourceConfig,
  resourceConfigForPod,
  sharesToWeight,
} from "./_resource_config.ts";
export {
  ENFORCE_PODS,
  type NodeAllocatable,
  nodeAllocatableConfig,
  type NodeEvents,
  type ReservedCgroupsConfig,
  reservedConfig,
} from "./_node_allocatable.ts";
export { checkSwap, type SwapCheck, swapControllerFile, swapOn } from "./_swap.ts";
export {
  type CgroupTree,
  type CgroupVersion,
  detectCgroupVersion,
  openCgroupTree,
} from "./_tree.ts";

export const DEFAULT_CGROUP_MOUNT = "/sys/fs/cgroup";

export interface PodCgroupsConfig {
  /** --cgroups-per-qos (default true). */
  cgroupsPerQOS: boolean;
  /** --cgroup-root (default "/"). */
  cgroupRoot: string;
  /** --cgroup-driver: only "cgroupfs" is supported. */
  cgroupDriver: string;
  /** Where cgroupfs is mounted; default /sys/fs/cgroup. */
  mountRoot?: string;
  /** Forces the cgroup version instead of detecting it. */
  version?: CgroupVersion;
  /** The host's huge page sizes ("2MB", "1GB") for the hugetlb limits; default none. */
  hugePageSizes?: readonly string[];
}

export interface OpenPodCgroupsDeps {
  logger: Logger;
  /** Default: the real filesystem. */
  fs?: CgroupFs;
  /** What kubepods is sized to (see PodCgroupsDeps); default this machine's cpus and memory. */
  nodeAllocatable?: NodeAllocatable;
  /**
   * The kube- and system-reserved enforcement of --enforce-node-allocatable: their cgroups get
   * the reservations as limits when opened, or the open fails (CgroupError).
   */
  reserved?: ReservedCgroupsConfig;
  /** Where node allocatable enforcement events go (API mode). */
  nodeEvents?: NodeEvents;
  resources?: PodResourceOptions;
  /** --pod-max-pids: pids.max of each pod cgroup when positive. */
  podPidsLimit?: number;
  /**
   * --root-dir: the records of the pod cgroups this agent created go to `<rootDir>/pod-cgroups`,
   * so a restarted agent still removes its own orphans and never another's. Without it only
   * the cgroups this process created are its own.
   */
  rootDir?: string;
  /** Paces repeated failure warnings; default the real clock. */
  clock?: Clock;
}

/** Throws ConfigError for an unsupported --cgroup-driver. */
export function checkCgroupDriver(driver: string): void {
  if (driver === "cgroupfs") return;
  if (driver === "systemd") {
    throw new ConfigError(
      "cgroupDriver",
      'the "systemd" cgroup driver is not supported; use --cgroup-driver=cgroupfs and configure ' +
        "the runtime to match (containerd: SystemdCgroup = false)",
    );
  }
  throw new ConfigError(
    "cgroupDriver",
    `unknown cgroup driver ${JSON.stringify(driver)}; use cgroupfs`,
  );
}

/**
 * Validates the configuration, detects v1 or v2 (`<mountRoot>/cgroup.controllers` exists → v2),
 * writes the reserved cgroups' limits when enforced, and returns the pod cgroup manager. No pod
 * or QoS cgroup is created until the first `ensure`. Throws ConfigError for a bad setting and
 * CgroupError when a reserved cgroup cannot be limited (upstream's kubelet exits then too).
 */
export async function openPodCgroups(
  config: PodCgroupsConfig,
  deps: OpenPodCgroupsDeps,
): Promise<PodCgroups> {
  checkCgroupDriver(config.cgroupDriver);
  if (!config.cgroupRoot.startsWith("/")) {
    throw new ConfigError(
      "cgroupRoot",
      `must be an absolute cgroup path, got ${JSON.stringify(config.cgroupRoot)}`,
    );
  }
  if (!config.cgroupsPerQOS) return createPodCgroups({ tree: null, logger: deps.logger });
  const fs = deps.fs ?? dirCgroupFs();
  const mountRoot = config.mountRoot ?? DEFAULT_CGROUP_MOUNT;
  const version = config.version ?? await detectCgroupVersion(fs, mountRoot);
  const tree = await openCgroupTree(fs, {
    mountRoot,
    version,
    hugePageSizes: config.hugePageSizes,
  });
  deps.logger.info("Pod cgroups enabled", {
    version,
    mountRoot,
    cgroupRoot: config.cgroupRoot,
    driver: config.cgroupDriver,
  });
  if (deps.reserved) await enforceReservedCgroups(tree, deps.reserved, deps.nodeEvents);
  return createPodCgroups({
    tree,
    logger: deps.logger,
    cgroupRoot: config.cgroupRoot,
    nodeAllocatable: deps.nodeAllocatable,
    nodeEvents: deps.nodeEvents,
    resources: deps.resources,
    podPidsLimit: deps.podPidsLimit,
    hugePageSizes: config.hugePageSizes,
    stateDir: deps.rootDir === undefined
      ? undefined
      : `${deps.rootDir.replace(/\/+$/, "")}/${OWNERSHIP_DIR}`,
    clock: deps.clock,
  });
}
