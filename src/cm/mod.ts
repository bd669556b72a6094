/**
 * The container manager: QoS and pod-level cgroups (cgroupfs and systemd drivers, cgroup v1 and
 * v2).
 *
 * `openPodCgroups(config, deps)` checks the configuration, detects the cgroup version and gives
 * the `PodCgroups` the runtime manager (cgroup parent of each sandbox, removal with the pod) and
 * housekeeping (orphans) use. `resourceConfigForPod` is the pure value computation. Only pod
 * cgroups the agent created are its to remove: it records them under `<root-dir>/pod-cgroups`.
 */
import type { Clock } from "../util/clock.ts";
import { ConfigError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import { CgroupError, type CgroupFs, dirCgroupFs } from "./_cgroup_fs.ts";
import { OWNERSHIP_DIR } from "./_ownership.ts";
import {
  enforceReservedCgroups,
  type NodeAllocatable,
  type NodeEvents,
  type ReservedCgroupsConfig,
} from "./_node_allocatable.ts";
import { createPodCgroups, type PodCgroups } from "./_pod_cgroups.ts";
import type { PodResourceOptions } from "./_resource_config.ts";
import {
  type CgroupDriver,
  type CgroupTree,
  type CgroupVersion,
  detectCgroupVersion,
  openCgroupTree,
} from "./_tree.ts";
import type { SystemdAccess } from "./_systemd_tree.ts";

export { CgroupError, type CgroupFs, dirCgroupFs } from "./_cgroup_fs.ts";
export {
  createPodCgroups,
  KUBEPODS,
  kubepodsCgroupName,
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
  type CgroupDriver,
  type CgroupTree,
  type CgroupVersion,
  detectCgroupVersion,
  openCgroupTree,
} from "./_tree.ts";
export type { SystemdAccess } from "./_systemd_tree.ts";
export {
  cpuWeight,
  expandSlice,
  resourceProperties,
  sliceProperties,
  systemdCgroupPath,
} from "./_systemd_names.ts";
export { resolveCgroupDriver, type RuntimeDriverAnswer } from "./_driver.ts";

export const DEFAULT_CGROUP_MOUNT = "/sys/fs/cgroup";

export interface PodCgroupsConfig {
  /** --cgroups-per-qos (default true). */
  cgroupsPerQOS: boolean;
  /** --cgroup-root (default "/"). */
  cgroupRoot: string;
  /** --cgroup-driver, or the runtime's (see resolveCgroupDriver): "cgroupfs" or "systemd". */
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
  /** systemd's manager for the systemd driver; default the system bus's, on first use. */
  systemd?: SystemdAccess;
  /** Whether PID 1 is systemd (sd_booted); default: /run/systemd/system is a directory. */
  systemdRunning?: () => Promise<boolean>;
}

/** Throws ConfigError for a --cgroup-driver that is neither cgroupfs nor systemd. */
export function checkCgroupDriver(driver: string): asserts driver is CgroupDriver {
  if (driver === "cgroupfs" || driver === "systemd") return;
  throw new ConfigError(
    "cgroupDriver",
    `unknown cgroup driver ${JSON.stringify(driver)}; use cgroupfs or systemd`,
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
  let tree: CgroupTree = await openCgroupTree(fs, {
    mountRoot,
    version,
    hugePageSizes: config.hugePageSizes,
  });
  if (config.cgroupDriver === "systemd") {
    tree = await systemdTree(tree, deps);
  }
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

/** The systemd driver's tree; its module (and the D-Bus client) load only here. */
async function systemdTree(inner: CgroupTree, deps: OpenPodCgroupsDeps): Promise<CgroupTree> {
  const running = await (deps.systemdRunning ?? sdBooted)();
  if (!running) {
    throw new CgroupError(
      "systemd not running on this host, cannot use systemd cgroups manager; use " +
        "--cgroup-driver=cgroupfs (and configure the runtime to match)",
    );
  }
  const { systemdCgroupTree, systemdOverDBus } = await import("./_systemd_tree.ts");
  return systemdCgroupTree(inner, {
    systemd: deps.systemd ?? systemdOverDBus(),
    logger: deps.logger,
  });
}

/** sd_booted(3): /run/systemd/system exists and is a directory. */
async function sdBooted(): Promise<boolean> {
  try {
    return (await Deno.lstat("/run/systemd/system")).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
