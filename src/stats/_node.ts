/**
 * Node-level stats: the root cgroup's CPU and memory (cAdvisor's view of the machine), host
 * network, rlimit, nodefs/imagefs and the system containers.
 */
import type { FilesystemUsage } from "../cri/types.ts";
import type { CgroupReader } from "./_cgroup.ts";
import { type CgroupMemory, memory } from "./_cgroup.ts";
import type { FsCapacity } from "../util/statfs.ts";
import { parseFlatKeyed } from "./_parse.ts";
import { readOptional } from "./_cgroup.ts";
import type { CPUStats, FsStats, MemoryStats } from "./types.ts";
import type { HostInfo } from "./_system.ts";

/**
 * Root cgroup CPU (ns) and memory. cgroup v2 has no `memory.current` at the root, so usage is
 * MemTotal - MemFree as runc computes it there, with the root `memory.stat` for the rest.
 */
export async function readRootCgroup(
  cgroups: CgroupReader,
  opts: { cgroupRoot: string; host: HostInfo },
): Promise<{ cpuNs?: number; memory?: CgroupMemory }> {
  const root = await cgroups.read("");
  let mem = root?.memory;
  if (mem === undefined && cgroups.mode === "v2") {
    const { memTotalBytes, memFreeBytes } = opts.host;
    if (memTotalBytes !== undefined && memFreeBytes !== undefined) {
      const stat = parseFlatKeyed(await readOptional(`${opts.cgroupRoot}/memory.stat`) ?? "");
      mem = memory(memTotalBytes - memFreeBytes, {
        inactiveFile: stat.get("inactive_file"),
        rss: stat.get("anon"),
        pageFaults: stat.get("pgfault"),
        majorPageFaults: stat.get("pgmajfault"),
      });
    }
  }
  return { cpuNs: root?.cpuUsageNs ?? opts.host.cpuBusyNs, memory: mem };
}

export function cpuStats(time: Date, cpuNs: number | undefined, nanoCores?: number): CPUStats {
  return { time, usageNanoCores: nanoCores, usageCoreNanoSeconds: cpuNs };
}

/**
 * MemoryStats from a cgroup view. `availableBytes` is limit - working set; for the node the
 * limit is its capacity (MemTotal), as upstream; omitted without a limit.
 */
export function memoryStats(time: Date, m: CgroupMemory, limitBytes?: number): MemoryStats {
  const limit = limitBytes ?? m.limitBytes;
  return {
    time,
    availableBytes: limit === undefined ? undefined : Math.max(0, limit - m.workingSetBytes),
    usageBytes: m.usageBytes,
    workingSetBytes: m.workingSetBytes,
    rssBytes: m.rssBytes,
    pageFaults: m.pageFaults,
    majorPageFaults: m.majorPageFaults,
  };
}

/** FsStats of a whole filesystem (nodefs). */
export function fsStats(time: Date, cap: FsCapacity): FsStats {
  return {
    time,
    availableBytes: cap.availableBytes,
    capacityBytes: cap.capacityBytes,
    usedBytes: cap.usedBytes,
    inodesFree: cap.inodesFree,
    inodes: cap.inodes,
    inodesUsed: cap.inodesUsed,
  };
}

/**
 * imagefs: capacity and free space of the filesystem holding images, but `usedBytes` and
 * `inodesUsed` are what the images themselves take, from the CRI (as upstream).
 */
export function imageFsStats(
  time: Date,
  usage: FilesystemUsage | undefined,
  cap: FsCapacity | undefined,
): FsStats | undefined {
  if (usage === undefined && cap === undefined) return undefined;
  return {
    time,
    availableBytes: cap?.availableBytes,
    capacityBytes: cap?.capacityBytes,
    usedBytes: usage?.usedBytes?.value ?? cap?.usedBytes,
    inodesFree: cap?.inodesFree,
    inodes: cap?.inodes,
    inodesUsed: usage?.inodesUsed?.value ?? cap?.inodesUsed,
  };
}
