/**
 * Pure parsers for the kernel's text files (cgroup and procfs). They never throw on odd input:
 * a line that does not parse is skipped, so one new kernel field cannot blank a whole sample.
 */

/**
 * `key value` lines (cgroup `memory.stat`, `cpu.stat`, `/proc/vmstat`): one space between, as
 * the kernel writes them (Number() ignores the value's surrounding blanks). Read for every pod
 * every sample, so no regular expression.
 */
export function parseFlatKeyed(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const sp = line.indexOf(" ");
    if (sp <= 0) continue;
    const value = line.slice(sp + 1);
    const n = value.trim() === "" ? NaN : Number(value);
    if (Number.isFinite(n)) out.set(line.slice(0, sp), n);
  }
  return out;
}

/** A file holding one integer (`memory.usage_in_bytes`, `pids.current`); `max` is undefined. */
export function parseSingleValue(text: string): number | undefined {
  const t = text.trim();
  if (t === "" || t === "max") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

/** `/proc/meminfo`: values in bytes (the file says kB). */
export function parseMeminfo(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = /^([^:]+):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (!m) continue;
    const kb = line.trimEnd().endsWith("kB");
    out.set(m[1], Number(m[2]) * (kb ? 1024 : 1));
  }
  return out;
}

export interface NetDevCounters {
  name: string;
  rxBytes: number;
  rxErrors: number;
  txBytes: number;
  txErrors: number;
}

/** `/proc/<pid>/net/dev`: per-interface counters of that process's network namespace. */
export function parseNetDev(text: string): NetDevCounters[] {
  const out: NetDevCounters[] = [];
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon < 0 || line.includes("|")) continue;
    const name = line.slice(0, colon).trim();
    const f = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    if (!name || f.length < 16 || f.some((n) => !Number.isFinite(n))) continue;
    out.push({ name, rxBytes: f[0], rxErrors: f[2], txBytes: f[8], txErrors: f[10] });
  }
  return out;
}

/** USER_HZ: the unit of /proc CPU times; 100 on every Linux architecture we target. */
export const CLOCK_TICKS_PER_SECOND = 100;
const NS_PER_TICK = 1e9 / CLOCK_TICKS_PER_SECOND;

export interface ProcStat {
  /** Busy CPU time of all cores (everything except idle and iowait), in ns. */
  busyNs: number;
  /** Boot time, ms since the epoch. */
  bootTimeMs?: number;
}

/** `/proc/stat`: the aggregate `cpu` line and `btime`. */
export function parseProcStat(text: string): ProcStat | undefined {
  let busyNs: number | undefined;
  let bootTimeMs: number | undefined;
  for (const line of text.split("\n")) {
    if (line.startsWith("cpu ")) {
      const f = line.trim().split(/\s+/).slice(1).map(Number);
      // user nice system idle iowait irq softirq steal [guest guest_nice] — guest time is
      // already counted in user, so it is not added again.
      const [user, nice, system, , , irq = 0, softirq = 0, steal = 0] = f;
      busyNs = (user + nice + system + irq + softirq + steal) * NS_PER_TICK;
    } else if (line.startsWith("btime ")) {
      bootTimeMs = Number(line.slice(6).trim()) * 1000;
    }
  }
  return busyNs === undefined || !Number.isFinite(busyNs) ? undefined : { busyNs, bootTimeMs };
}

export interface PidStat {
  /** User + system CPU time, ns. */
  cpuNs: number;
  minorFaults: number;
  majorFaults: number;
  /** Start time after boot, ms. */
  startAfterBootMs: number;
  /** Resident set, in pages. */
  rssPages: number;
}

/** `/proc/<pid>/stat`. The command name may hold spaces and parentheses: split after the last `)`. */
export function parsePidStat(text: string): PidStat | undefined {
  const end = text.lastIndexOf(")");
  if (end < 0) return undefined;
  // Fields after the name start at field 3 (state); index 0 here is field 3.
  const f = text.slice(end + 2).trim().split(/\s+/).map(Number);
  const at = (field: number) => f[field - 3];
  const out = {
    cpuNs: (at(14) + at(15)) * NS_PER_TICK,
    minorFaults: at(10),
    majorFaults: at(12),
    startAfterBootMs: (at(22) / CLOCK_TICKS_PER_SECOND) * 1000,
    rssPages: at(24),
  };
  return Object.values(out).every(Number.isFinite) ? out : undefined;
}

/** `/proc/loadavg`: the total number of scheduling entities (`running/total`), as sysinfo's procs. */
export function parseLoadavgProcs(text: string): number | undefined {
  const m = /\s\d+\/(\d+)\s/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** cgroup v1 "no limit" is a page-aligned near-2^63; treat anything that large as unlimited. */
export function limitOrUndefined(n: number | undefined): number | undefined {
  return n === undefined || n >= 2 ** 62 ? undefined : n;
}
