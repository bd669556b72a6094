/**
 * The cpu and memory a container has (upstream toKubeContainerResources): what the runtime
 * reports in CRI ContainerStatus.resources, the rest as last applied (the actuated state).
 */
import { formatQuantity } from "../util/quantity.ts";
import type { LinuxContainerResources } from "../cri/types.ts";
import type { ContainerResourcesSeen } from "./types.ts";

/** cpu millicores as a quantity (NewMilliQuantity, DecimalSI). */
export function milliQuantity(milli: number): string {
  return milli % 1000 === 0 ? formatQuantity(milli / 1000, "DecimalSI") : `${milli}m`;
}

/** cm.SharesToMilliCPU. */
export function sharesToMilliCPU(shares: number): number {
  return shares >= 2 ? Math.ceil((shares * 1000) / 1024) : 0;
}

/** cm.QuotaToMilliCPU; an unlimited quota (-1) is 0. */
export function quotaToMilliCPU(quota: number, period: number): number {
  return quota === -1 ? 0 : Math.trunc((quota * 1000) / period);
}

/**
 * toKubeContainerResources, then what the runtime does not report (all of it, or the memory
 * request, which no cgroup holds) from what was last applied.
 */
export function resourcesSeen(
  linux: LinuxContainerResources | undefined,
  actuated: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } | undefined,
): ContainerResourcesSeen | undefined {
  let seen: ContainerResourcesSeen | undefined;
  if (linux) {
    const s: ContainerResourcesSeen = {};
    if ((linux.cpuPeriod ?? 0) > 0) {
      const milli = quotaToMilliCPU(linux.cpuQuota ?? 0, linux.cpuPeriod!);
      if (milli > 0) s.cpuLimit = milliQuantity(milli);
    }
    if ((linux.cpuShares ?? 0) > 0) {
      const milli = sharesToMilliCPU(linux.cpuShares!);
      if (milli > 0) s.cpuRequest = milliQuantity(milli);
    }
    if ((linux.memoryLimitInBytes ?? 0) > 0) {
      s.memoryLimit = formatQuantity(linux.memoryLimitInBytes!, "BinarySI");
    }
    if (Object.keys(s).length > 0) seen = s;
  }
  if (!actuated || (seen && seen.memoryRequest !== undefined)) return seen;
  const q = (v: unknown) => (v === undefined || v === null ? "0" : String(v));
  if (!seen) {
    return {
      cpuRequest: q(actuated.requests?.cpu),
      cpuLimit: q(actuated.limits?.cpu),
      memoryRequest: q(actuated.requests?.memory),
      memoryLimit: q(actuated.limits?.memory),
    };
  }
  const memory = actuated.requests?.memory;
  if (memory !== undefined && memory !== null && q(memory) !== "0") seen.memoryRequest = q(memory);
  return seen;
}
