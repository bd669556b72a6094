/**
 * Swap at start (upstream NewContainerManager and the kubelet server's checks): refuse to run
 * while swap is on unless --fail-swap-on=false, refuse LimitedSwap on cgroup v1, and find out
 * whether containers can be given swap settings at all (the cgroup swap controller).
 */
import type { AgentConfig } from "../config/types.ts";
import {
  type CgroupVersion,
  checkSwap,
  DEFAULT_CGROUP_MOUNT,
  swapControllerFile,
  swapOn,
} from "../cm/mod.ts";
import type { MachineInfo } from "../node/mod.ts";
import type { SwapSettings } from "../runtime/mod.ts";
import type { Logger } from "../util/log.ts";

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Throws ConfigError (upstream's words) when the agent must not start; else the settings. */
export async function swapSetup(
  config: Pick<AgentConfig, "failSwapOn" | "memorySwapBehavior">,
  opts: { cgroupVersion: CgroupVersion; machine: MachineInfo; logger: Logger },
): Promise<SwapSettings> {
  const procSwaps = await readIfExists("/proc/swaps");
  checkSwap({
    failSwapOn: config.failSwapOn,
    swapBehavior: config.memorySwapBehavior,
    cgroupVersion: opts.cgroupVersion,
    procSwaps,
  });
  if (procSwaps !== undefined && swapOn(procSwaps)) {
    opts.logger.info("Swap is on", { behavior: config.memorySwapBehavior || "NoSwap" });
  }
  const file = swapControllerFile(opts.cgroupVersion, {
    mountRoot: DEFAULT_CGROUP_MOUNT,
    selfCgroup: opts.cgroupVersion === 2 ? await readIfExists("/proc/self/cgroup") : undefined,
  });
  return {
    behavior: config.memorySwapBehavior,
    controller: file !== undefined && await exists(file),
    capacityBytes: opts.machine.swapBytes,
    memoryBytes: opts.machine.memoryBytes,
  };
}
