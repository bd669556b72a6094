/**
 * What the runtime can do (CRI Status, RuntimeConfig) for the agent: read at start, CRI Status
 * again every housekeeping round, RuntimeConfig again whenever the runtime comes back.
 */
import type { CgroupDriver } from "../cm/mod.ts";
import { type CriClient, isUnimplemented } from "../cri/mod.ts";
import type { RuntimeConfigResponse } from "../cri/types.ts";
import { RuntimeState } from "../kubelet/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

export interface RuntimeStateDeps {
  cri: CriClient;
  clock: Clock;
  logger: Logger;
  /** The driver the pods' cgroups are made with. */
  cgroupDriver: CgroupDriver;
  /** The RuntimeConfig read at start (`readRuntimeConfig`), if any. */
  runtimeConfig: RuntimeConfigResponse | undefined;
}

export function trackRuntimeState(deps: RuntimeStateDeps) {
  const { cri, clock, logger, cgroupDriver } = deps;
  // What the runtime can do (CRI Status, RuntimeConfig), refreshed by housekeeping.
  const runtimeState = new RuntimeState({ clock });
  runtimeState.updateConfig(deps.runtimeConfig);
  runtimeState.onChange((caps) => {
    // Upstream reads the driver once too; a runtime reconfigured since needs an agent restart.
    if (caps.cgroupDriver !== undefined && caps.cgroupDriver !== cgroupDriver) {
      logger.warn(
        "The runtime's cgroup driver is not the one pods' cgroups are made with; " +
          "restart the agent",
        { runtime: caps.cgroupDriver, agent: cgroupDriver },
      );
    }
  });
  let statusRead = false;
  // RuntimeConfig is read at start and again whenever the runtime comes back.
  let runtimeConfigStale = true;
  return {
    state: runtimeState,
    /** CRI Status, unless one was read already. */
    statusOnce: async (signal: AbortSignal) => {
      if (!statusRead) runtimeState.updateStatus(await cri.runtime.status({ signal }));
      statusRead = true;
    },
    /** CRI Status every housekeeping round; RuntimeConfig at start and after an outage. */
    refresh: async (signal: AbortSignal) => {
      try {
        runtimeState.updateStatus(await cri.runtime.status({ signal }));
        statusRead = true;
      } catch (e) {
        runtimeConfigStale = true;
        throw e;
      }
      if (runtimeConfigStale) {
        runtimeState.updateConfig(await readRuntimeConfig(cri.runtime, signal));
        runtimeConfigStale = false;
      }
    },
  };
}

/** CRI RuntimeConfig, or undefined from a runtime that predates it (containerd before 2.1). */
export async function readRuntimeConfig(
  runtime: { runtimeConfig(o: { signal: AbortSignal }): Promise<RuntimeConfigResponse> },
  signal: AbortSignal,
): Promise<RuntimeConfigResponse | undefined> {
  try {
    return await runtime.runtimeConfig({ signal });
  } catch (e) {
    if (isUnimplemented(e)) return undefined;
    throw e;
  }
}
