/**
 * cgroup v1 (one hierarchy per controller) read as runc's fs manager reads it and cAdvisor maps
 * it: cpuacct and cpu, memory (total_* fields under use_hierarchy), pids, blkio.
 */
import type { CgroupReading, CgroupStatsReader } from "./_cgroup_stats.ts";
import { clean, firstExisting, parseProcs, read, unlimitedAsZero } from "./_cgroup_files.ts";
import { flatKeyed, parseBlkio, parseUint } from "./_parse.ts";

const NS_PER_TICK = 1e9 / 100;

/** Files a kernel may not have at all; on v1 they exist at the root when they exist anywhere. */
const OPTIONAL = [
  ["memory", "memory.kmem.usage_in_bytes"],
  ["memory", "memory.memsw.limit_in_bytes"],
  ["blkio", "blkio.bfq.io_serviced_recursive"],
  ["blkio", "blkio.io_serviced_recursive"],
  ["blkio", "blkio.throttle.io_serviced_recursive"],
] as const;

const OPTIONAL_MEMORY = new Set<string>(
  OPTIONAL.filter(([h]) => h === "memory").map(([, f]) => f),
);

interface Layout {
  cpu?: string;
  cpuacct?: string;
  /** The optional files this kernel has (looked up once, at the root). */
  has: Set<string>;
  /** memory.use_hierarchy at the root: 1 everywhere on current kernels, and inherited. */
  hierarchical: boolean;
}

export class V1StatsReader implements CgroupStatsReader {
  readonly mode = "v1";
  #layout: Layout | undefined;

  constructor(private readonly root: string) {}

  /** Where cpu and cpuacct are mounted, and which optional files exist: found once. */
  #probe(): Layout {
    return this.#layout ??= {
      cpu: firstExisting(this.root, ["cpu", "cpu,cpuacct", "cpuacct,cpu"], "cpu.shares"),
      cpuacct: firstExisting(this.root, ["cpuacct", "cpu,cpuacct", "cpuacct,cpu"], "cpuacct.usage"),
      has: new Set(
        OPTIONAL.filter(([h, f]) => read([this.root, h, ""], f) !== undefined).map(([, f]) => f),
      ),
      hierarchical: read([this.root, "memory", ""], "memory.use_hierarchy")?.trim() !== "0",
    };
  }

  read(path: string): CgroupReading | undefined {
    const rel = clean(path);
    const dirs = this.#probe();
    const mem = (f: string) =>
      (OPTIONAL_MEMORY.has(f) && !dirs.has.has(f))
        ? undefined
        : read([this.root, "memory", rel], f);
    const memStat = mem("memory.stat");
    const cpuacct = dirs.cpuacct
      ? read([this.root, dirs.cpuacct, rel], "cpuacct.usage")
      : undefined;
    if (memStat === undefined && cpuacct === undefined) return undefined;
    const stat = flatKeyed(memStat);
    const s = (k: string) => stat(k) ?? 0;
    const h = dirs.hierarchical ? "total_" : "";
    const cpu = (f: string) => dirs.cpu ? read([this.root, dirs.cpu, rel], f) : undefined;
    const cpuStat = flatKeyed(cpu("cpu.stat"));
    const acctStat = flatKeyed(
      dirs.cpuacct ? read([this.root, dirs.cpuacct, rel], "cpuacct.stat") : undefined,
    );
    const usage = parseUint(mem("memory.usage_in_bytes"));
    const inactive = stat("total_inactive_file");
    const quota = cpu("cpu.cfs_quota_us")?.trim();
    const shares = cpu("cpu.shares");
    const oom = flatKeyed(mem("memory.oom_control"));
    const pids = (f: string) => read([this.root, "pids", rel], f);
    return {
      cpu: {
        totalNs: parseUint(cpuacct),
        userNs: Math.floor((acctStat("user") ?? 0) * NS_PER_TICK),
        systemNs: Math.floor((acctStat("system") ?? 0) * NS_PER_TICK),
        periods: cpuStat("nr_periods") ?? 0,
        throttledPeriods: cpuStat("nr_throttled") ?? 0,
        throttledNs: cpuStat("throttled_time") ?? 0,
        // cgroup v1 has no burst counters runc reads.
        burstPeriods: 0,
        burstNs: 0,
      },
      memory: {
        usage,
        maxUsage: parseUint(mem("memory.max_usage_in_bytes")),
        failcnt: parseUint(mem("memory.failcnt")),
        cache: s(`${h}cache`),
        rss: s(`${h}rss`),
        kernel: parseUint(mem("memory.kmem.usage_in_bytes")),
        mappedFile: s(`${h}mapped_file`),
        swap: s(`${h}swap`),
        workingSet: inactive === undefined ? usage : Math.max(0, usage - inactive),
        activeFile: s("total_active_file"),
        inactiveFile: inactive ?? 0,
        pgfault: s("pgfault"),
        pgmajfault: s("pgmajfault"),
        ...V2_ONLY_MEMORY,
      },
      io: this.#blkio(rel, dirs),
      threads: parseUint(pids("pids.current")),
      threadsMax: unlimitedAsZero(parseUint(pids("pids.max"))),
      procs: parseProcs(dirs.cpu ? read([this.root, dirs.cpu, rel], "cgroup.procs") : undefined),
      oomKills: oom("oom_kill") ?? 0,
      spec: {
        hasCpu: shares !== undefined,
        cpuShares: parseUint(shares),
        cpuPeriod: parseUint(cpu("cpu.cfs_period_us")),
        cpuQuota: quota && quota !== "-1" ? parseUint(quota) : 0,
        hasMemory: memStat !== undefined,
        memoryLimit: parseUint(mem("memory.limit_in_bytes")),
        memorySwapLimit: parseUint(mem("memory.memsw.limit_in_bytes")),
        memoryReservation: parseUint(mem("memory.soft_limit_in_bytes")),
      },
    };
  }

  /**
   * runc's order: BFQ's recursive files, CFQ's, the throttle's recursive ones, then the plain
   * throttle files; a group is used when its first file has lines. A group this kernel lacks
   * is not tried; the plain throttle files only stand in for missing recursive ones (a cgroup's
   * own I/O is part of its recursive count, so they are never fuller).
   */
  #blkio(rel: string, layout: Layout): CgroupReading["io"] {
    const groups = [
      ["blkio.bfq.io_serviced_recursive", "blkio.bfq.io_service_bytes_recursive"],
      ["blkio.io_serviced_recursive", "blkio.io_service_bytes_recursive"],
      ["blkio.throttle.io_serviced_recursive", "blkio.throttle.io_service_bytes_recursive"],
    ].filter(([first]) => layout.has.has(first));
    if (!layout.has.has("blkio.throttle.io_serviced_recursive")) {
      groups.push(["blkio.throttle.io_serviced", "blkio.throttle.io_service_bytes"]);
    }
    for (const [serviced, bytes] of groups) {
      const first = parseBlkio(read([this.root, "blkio", rel], serviced) ?? "");
      if (first.length === 0) continue;
      return {
        serviced: first,
        serviceBytes: parseBlkio(read([this.root, "blkio", rel], bytes) ?? ""),
      };
    }
    return { serviced: [], serviceBytes: [] };
  }
}

/** The memory.stat fields runc maps on cgroup v2 only; zero on v1, as there. */
const V2_ONLY_MEMORY = {
  eventsHigh: 0,
  eventsMax: 0,
  fileDirty: 0,
  fileWriteback: 0,
  pgscan: 0,
  pgsteal: 0,
  refaultFile: 0,
  refaultAnon: 0,
};
