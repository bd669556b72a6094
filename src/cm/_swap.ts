/**
 * Swap at start (upstream NewContainerManager, util/swap and the kubelet server's checks): the
 * agent refuses to run while swap is on unless --fail-swap-on=false, LimitedSwap needs cgroup
 * v2, and whether the cgroup swap controller exists decides if containers get swap settings.
 */
import { ConfigError } from "../util/errors.ts";
import type { CgroupVersion } from "./_tree.ts";

/** /proc/swaps lists a device beyond its header line (isSwapOnAccordingToProcSwaps). */
export function swapOn(procSwaps: string): boolean {
  return procSwaps.trim().split("\n").length > 1;
}

export interface SwapCheck {
  failSwapOn: boolean;
  /** memorySwap.swapBehavior: "", "NoSwap" or "LimitedSwap". */
  swapBehavior: string;
  cgroupVersion: CgroupVersion;
  /** /proc/swaps; undefined when it does not exist (then swap is off, as upstream). */
  procSwaps: string | undefined;
}

/** Throws ConfigError with upstream's message when the agent must not start. */
export function checkSwap(c: SwapCheck): void {
  if (c.cgroupVersion === 1 && c.swapBehavior === "LimitedSwap") {
    throw new ConfigError(
      "memorySwap.swapBehavior",
      "swap feature is enabled and LimitedSwap but it is only supported with cgroupv2",
    );
  }
  if (c.failSwapOn && c.procSwaps !== undefined && swapOn(c.procSwaps)) {
    throw new ConfigError(
      "failSwapOn",
      "running with swap on is not supported, please disable swap or set --fail-swap-on flag " +
        "to false",
    );
  }
}

/**
 * Where the swap controller shows (checkSwapControllerAvailability): v1 memory.memsw.* in the
 * memory hierarchy's root; v2 memory.swap.max in the agent's own cgroup (the root has none).
 * `selfCgroup` is /proc/self/cgroup, read only on v2.
 */
export function swapControllerFile(
  version: CgroupVersion,
  opts: { mountRoot: string; selfCgroup?: string },
): string | undefined {
  if (version === 1) return `${opts.mountRoot}/memory/memory.memsw.limit_in_bytes`;
  const line = (opts.selfCgroup ?? "").split("\n").find((l) => l.startsWith("0::"));
  if (line === undefined) return undefined;
  return `${opts.mountRoot}/${line.slice(3).replace(/^\/+/, "")}/memory.swap.max`.replace(
    /\/+/g,
    "/",
  );
}
