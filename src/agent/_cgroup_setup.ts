/**
 * The machine and the pods' cgroups at start: node allocatable, the cgroup version, swap, the
 * cgroup driver (the runtime's where it says) and the pod cgroup hierarchy.
 */
import type { AgentConfig } from "../config/types.ts";
import type { ClusterMode } from "../cluster/mod.ts";
import type { CriClient } from "../cri/mod.ts";
import type { RuntimeConfigResponse } from "../cri/types.ts";
import {
  type CgroupDriver,
  DEFAULT_CGROUP_MOUNT,
  detectCgroupVersion,
  dirCgroupFs,
  openPodCgroups,
  resolveCgroupDriver,
} from "../cm/mod.ts";
import { type Clock, processUptimeMs } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { nodeAllocatableSetup } from "./_node_allocatable.ts";
import { readRuntimeConfig } from "./_runtime_state.ts";
import { swapSetup } from "./_swap.ts";

export interface CgroupSetupDeps {
  cri: CriClient;
  /** API mode's parts, when a kubeconfig is given (node events). */
  cluster?: ClusterMode;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
}

export async function cgroupSetup(config: AgentConfig, deps: CgroupSetupDeps) {
  const { cri, cluster, clock, logger, signal } = deps;
  const allocatable = await nodeAllocatableSetup(config, { logger });
  logger.debug(1, "Start phase: machine read", { sinceStartMs: processUptimeMs() });
  // The host's hierarchy, whether or not pod cgroups are on (upstream isCgroup2UnifiedMode).
  const cgroupVersion = await detectCgroupVersion(dirCgroupFs(), DEFAULT_CGROUP_MOUNT);
  const swap = await swapSetup(config, { cgroupVersion, machine: allocatable.machine, logger });
  // The runtime's driver where it says (containerd 2), else the configured one; read once,
  // before any cgroup is made, as upstream does.
  let runtimeConfigAnswer: RuntimeConfigResponse | undefined;
  const cgroupDriver = await resolveCgroupDriver(config.cgroupDriver as CgroupDriver, {
    runtimeConfig: async (o) => {
      // Each try bounded: a runtime still starting must not hold the start for a whole
      // runtime request timeout.
      const bounded = AbortSignal.any([o.signal ?? signal, AbortSignal.timeout(10_000)]);
      runtimeConfigAnswer = await readRuntimeConfig(cri.runtime, bounded);
      return runtimeConfigAnswer;
    },
    logger,
    clock,
    signal,
  });
  logger.debug(1, "Start phase: runtime connected", {
    cgroupDriver,
    sinceStartMs: processUptimeMs(),
  });
  const podCgroups = await openPodCgroups({
    cgroupsPerQOS: config.cgroupsPerQOS,
    cgroupRoot: config.cgroupRoot,
    cgroupDriver,
    hugePageSizes: allocatable.hugePageSizes,
  }, {
    logger,
    clock,
    rootDir: config.rootDir,
    podPidsLimit: config.podPidsLimit,
    nodeAllocatable: allocatable.nodeAllocatable,
    reserved: allocatable.reserved,
    nodeEvents: cluster?.events && { events: cluster.events, nodeName: config.nodeName },
  });
  return { allocatable, cgroupVersion, swap, cgroupDriver, runtimeConfigAnswer, podCgroups };
}
