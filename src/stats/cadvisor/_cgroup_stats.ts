/**
 * One cgroup as cAdvisor's libcontainer handler sees it (runc's cgroup stats, then cAdvisor's
 * mapping): CPU with CFS throttling, the memory breakdown, block I/O, PIDs, the processes
 * directly in it, OOM kills and the spec (shares, quota, limits). cgroup v1 and v2; every file
 * is read once per call, and a file that does not exist reads as zero, as runc's optional ones.
 */
import type { CgroupMode } from "../_cgroup.ts";
import type { DeviceStats } from "./_parse.ts";
import { V1StatsReader } from "./_cgroup_v1.ts";
import { V2StatsReader } from "./_cgroup_v2.ts";

/** PSI `total=` values, µs. */
export interface Psi {
  some: number;
  full: number;
}

export interface CpuReading {
  totalNs: number;
  userNs: number;
  systemNs: number;
  periods: number;
  throttledPeriods: number;
  throttledNs: number;
  burstPeriods: number;
  burstNs: number;
  psi?: Psi;
}

/** cAdvisor's MemoryStats, bytes unless named otherwise. */
export interface MemoryReading {
  usage: number;
  maxUsage: number;
  failcnt: number;
  cache: number;
  rss: number;
  kernel: number;
  mappedFile: number;
  swap: number;
  workingSet: number;
  activeFile: number;
  inactiveFile: number;
  pgfault: number;
  pgmajfault: number;
  eventsHigh: number;
  eventsMax: number;
  fileDirty: number;
  fileWriteback: number;
  pgscan: number;
  pgsteal: number;
  refaultFile: number;
  refaultAnon: number;
  psi?: Psi;
}

/** Raw cgroup values: "max" is MAX_UINT64 (the renderer reports huge limits as 0). */
export interface CgroupSpec {
  hasCpu: boolean;
  cpuShares: number;
  cpuPeriod: number;
  cpuQuota: number;
  hasMemory: boolean;
  memoryLimit: number;
  memorySwapLimit: number;
  memoryReservation: number;
}

export interface CgroupReading {
  cpu: CpuReading;
  memory: MemoryReading;
  io: { serviceBytes: DeviceStats[]; serviced: DeviceStats[]; psi?: Psi };
  /** pids.current and pids.max (0 when unlimited), cAdvisor's threads. */
  threads: number;
  threadsMax: number;
  /** PIDs in `cgroup.procs` (direct members only). */
  procs: number[];
  /** OOM kills of processes in this cgroup (not its children). */
  oomKills: number;
  spec: CgroupSpec;
}

export interface CgroupStatsReader {
  readonly mode: CgroupMode;
  /** The cgroup at `path` ("/" is the root); undefined when it does not exist. */
  read(path: string): CgroupReading | undefined;
}

export function createCgroupStatsReader(
  root: string,
  opts: { mode: CgroupMode; procRoot?: string; psi?: boolean },
): CgroupStatsReader {
  return opts.mode === "v1"
    ? new V1StatsReader(root)
    : new V2StatsReader(root, opts.procRoot ?? "/proc", opts.psi ?? false);
}
