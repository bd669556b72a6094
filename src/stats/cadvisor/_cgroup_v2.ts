/**
 * cgroup v2 (the unified hierarchy) read as runc's fs2 manager reads it and cAdvisor maps it,
 * PSI included when the kernel has it.
 */
import { readOptionalSync } from "../_cgroup.ts";
import type { CgroupReading, CgroupStatsReader } from "./_cgroup_stats.ts";
import { clean, parseProcs, read, unlimitedAsZero } from "./_cgroup_files.ts";
import {
  flatKeyed,
  meminfoBytes,
  parseCpuMax,
  parseIoStat,
  parsePsiTotals,
  parseUint,
  weightToShares,
} from "./_parse.ts";

export class V2StatsReader implements CgroupStatsReader {
  readonly mode = "v2";

  constructor(
    private readonly root: string,
    private readonly procRoot: string,
    private readonly psi: boolean,
  ) {}

  read(path: string): CgroupReading | undefined {
    const rel = clean(path);
    const f = (name: string) => read([this.root, rel, ""], name);
    const cpuText = f("cpu.stat");
    if (cpuText === undefined) return undefined;
    const cpuStat = flatKeyed(cpuText);
    const c = (k: string) => cpuStat(k) ?? 0;
    const stat = flatKeyed(f("memory.stat"));
    const s = (k: string) => stat(k) ?? 0;
    const current = f("memory.current");
    const swapCurrent = f("memory.swap.current");
    // The root has no memory.current: runc takes anon + file and swap from /proc/meminfo.
    let usage = parseUint(current);
    let swap = parseUint(swapCurrent);
    if (current === undefined && rel === "") {
      usage = s("anon") + s("file");
      const meminfo = readOptionalSync(`${this.procRoot}/meminfo`) ?? "";
      swap = meminfoBytes(meminfo, "SwapTotal") - meminfoBytes(meminfo, "SwapFree");
    }
    const inactive = stat("inactive_file");
    const events = flatKeyed(f("memory.events"));
    const local = flatKeyed(f("memory.events.local") ?? f("memory.events"));
    const memoryMax = f("memory.max");
    const cpuMax = parseCpuMax(f("cpu.max"));
    const io = parseIoStat(f("io.stat") ?? "");
    const psi = (name: string) => this.psi ? parsePsiTotals(f(name) ?? "") : undefined;
    return {
      cpu: {
        totalNs: c("usage_usec") * 1000,
        userNs: c("user_usec") * 1000,
        systemNs: c("system_usec") * 1000,
        periods: c("nr_periods"),
        throttledPeriods: c("nr_throttled"),
        throttledNs: c("throttled_usec") * 1000,
        burstPeriods: c("nr_bursts"),
        burstNs: c("burst_usec") * 1000,
        psi: psi("cpu.pressure"),
      },
      memory: {
        usage,
        maxUsage: parseUint(f("memory.peak")),
        // runc reads no failcnt and no kernel usage on cgroup v2.
        failcnt: 0,
        cache: s("file"),
        rss: s("anon"),
        kernel: 0,
        mappedFile: s("file_mapped"),
        swap,
        workingSet: inactive === undefined ? usage : Math.max(0, usage - inactive),
        activeFile: s("active_file"),
        inactiveFile: inactive ?? 0,
        pgfault: s("pgfault"),
        pgmajfault: s("pgmajfault"),
        eventsHigh: events("high") ?? 0,
        eventsMax: events("max") ?? 0,
        fileDirty: s("file_dirty"),
        fileWriteback: s("file_writeback"),
        pgscan: s("pgscan"),
        pgsteal: s("pgsteal"),
        refaultFile: s("workingset_refault_file"),
        refaultAnon: s("workingset_refault_anon"),
        psi: psi("memory.pressure"),
      },
      io: { ...io, psi: psi("io.pressure") },
      threads: parseUint(f("pids.current")),
      threadsMax: unlimitedAsZero(parseUint(f("pids.max"))),
      procs: parseProcs(f("cgroup.procs")),
      oomKills: local("oom_kill") ?? 0,
      spec: {
        hasCpu: true,
        cpuShares: weightToShares(parseUint(f("cpu.weight"))),
        cpuPeriod: cpuMax.period,
        cpuQuota: cpuMax.quota,
        hasMemory: memoryMax !== undefined,
        memoryLimit: parseUint(memoryMax),
        memorySwapLimit: parseUint(f("memory.swap.max")),
        memoryReservation: parseUint(f("memory.min")),
      },
    };
  }
}
