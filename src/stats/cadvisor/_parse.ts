/**
 * Pure parsers for the kernel files cAdvisor reads beyond the Summary's: blkio and io.stat,
 * PSI, the full /proc/<pid>/net/dev, /proc/diskstats, /proc/self/mountinfo, /proc/cpuinfo and
 * /proc/<pid>/limits. Like ../_parse.ts they skip what they cannot parse instead of throwing.
 */

/** Go's math.MaxUint64 as a float64: what runc reads a cgroup's "max" as. */
export const MAX_UINT64 = 18446744073709551615;

/** One device's counters by operation ("Read", "Write", "Sync", "Async", "Discard", "Total"). */
export interface DeviceStats {
  major: number;
  minor: number;
  ops: Map<string, number>;
}

/**
 * cgroup v1 blkio files (`8:0 Read 4096` lines, a `Total n` line to skip), grouped per device in
 * the order devices first appear, as cAdvisor's diskStatsCopy does.
 */
export function parseBlkio(text: string): DeviceStats[] {
  const out = new Map<string, DeviceStats>();
  for (const line of text.split("\n")) {
    const f = line.trim().split(/[\s:]+/);
    if (f.length < 3) continue;
    const [major, minor] = [Number(f[0]), Number(f[1])];
    const op = f.length >= 4 ? f[2] : "";
    const value = Number(f.length >= 4 ? f[3] : f[2]);
    if (![major, minor, value].every(Number.isFinite)) continue;
    deviceOf(out, major, minor).ops.set(op, value);
  }
  return [...out.values()];
}

/** The tables cgroup v2's io.stat maps to, named as runc names cgroup v1's. */
export interface IoStat {
  serviceBytes: DeviceStats[];
  serviced: DeviceStats[];
}

/** cgroup v2 `io.stat`: `8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0` lines. */
export function parseIoStat(text: string): IoStat {
  const bytes = new Map<string, DeviceStats>();
  const ios = new Map<string, DeviceStats>();
  for (const line of text.split("\n")) {
    const [dev, ...items] = line.trim().split(/\s+/);
    const m = /^(\d+):(\d+)$/.exec(dev ?? "");
    if (!m) continue;
    const [major, minor] = [Number(m[1]), Number(m[2])];
    for (const item of items) {
      const [key, raw] = item.split("=");
      const value = Number(raw);
      if (!Number.isFinite(value)) continue;
      const target = key === "rbytes" || key === "wbytes"
        ? bytes
        : key === "rios" || key === "wios"
        ? ios
        : undefined;
      if (target === undefined) continue;
      deviceOf(target, major, minor).ops.set(key[0] === "r" ? "Read" : "Write", value);
    }
  }
  return { serviceBytes: [...bytes.values()], serviced: [...ios.values()] };
}

function deviceOf(map: Map<string, DeviceStats>, major: number, minor: number): DeviceStats {
  const key = `${major}:${minor}`;
  let d = map.get(key);
  if (d === undefined) map.set(key, d = { major, minor, ops: new Map() });
  return d;
}

/** The `total=` (µs) of a PSI file's `some` and `full` lines; 0 when absent. */
export function parsePsiTotals(text: string): { some: number; full: number } {
  const out = { some: 0, full: 0 };
  for (const line of text.split("\n")) {
    const kind = line.startsWith("some ") ? "some" : line.startsWith("full ") ? "full" : undefined;
    const m = kind && /\btotal=(\d+)/.exec(line);
    if (kind && m) out[kind] = Number(m[1]);
  }
  return out;
}

/** All counters of one interface in /proc/<pid>/net/dev. */
export interface InterfaceCounters {
  name: string;
  rxBytes: number;
  rxPackets: number;
  rxErrors: number;
  rxDropped: number;
  txBytes: number;
  txPackets: number;
  txErrors: number;
  txDropped: number;
}

/** Interfaces cAdvisor leaves out (its isIgnoredDevice). */
const IGNORED_INTERFACE_PREFIXES = ["lo", "veth", "docker", "nerdctl"];

/** /proc/<pid>/net/dev without the interfaces cAdvisor ignores, in file order. */
export function parseNetDevFull(text: string): InterfaceCounters[] {
  const out: InterfaceCounters[] = [];
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon < 0 || line.includes("|")) continue;
    const name = line.slice(0, colon).trim();
    if (!name || IGNORED_INTERFACE_PREFIXES.some((p) => name.startsWith(p))) continue;
    const f = line.slice(colon + 1).trim().split(/\s+/).map(Number);
    if (f.length < 16 || f.some((n) => !Number.isFinite(n))) continue;
    out.push({
      name,
      rxBytes: f[0],
      rxPackets: f[1],
      rxErrors: f[2],
      rxDropped: f[3],
      txBytes: f[8],
      txPackets: f[9],
      txErrors: f[10],
      txDropped: f[11],
    });
  }
  return out;
}

/** One block device's line of /proc/diskstats (times in ms, as the kernel writes them). */
export interface DiskStats {
  major: number;
  minor: number;
  name: string;
  readsCompleted: number;
  readsMerged: number;
  sectorsRead: number;
  readTimeMs: number;
  writesCompleted: number;
  writesMerged: number;
  sectorsWritten: number;
  writeTimeMs: number;
  ioInProgress: number;
  ioTimeMs: number;
  weightedIoTimeMs: number;
}

/** /proc/diskstats by `major:minor`. */
export function parseDiskstats(text: string): Map<string, DiskStats> {
  const out = new Map<string, DiskStats>();
  for (const line of text.split("\n")) {
    const w = line.trim().split(/\s+/);
    if (w.length < 14) continue;
    const n = w.map(Number);
    if (!Number.isFinite(n[0]) || !Number.isFinite(n[1])) continue;
    out.set(`${n[0]}:${n[1]}`, {
      major: n[0],
      minor: n[1],
      name: w[2],
      readsCompleted: n[3],
      readsMerged: n[4],
      sectorsRead: n[5],
      readTimeMs: n[6],
      writesCompleted: n[7],
      writesMerged: n[8],
      sectorsWritten: n[9],
      writeTimeMs: n[10],
      ioInProgress: n[11],
      ioTimeMs: n[12],
      weightedIoTimeMs: n[13],
    });
  }
  return out;
}

/** What /proc/self/mountinfo says of one mount. */
export interface MountInfo {
  major: number;
  minor: number;
  mountpoint: string;
  fsType: string;
  source: string;
}

/** /proc/self/mountinfo (octal escapes in paths decoded). */
export function parseMountinfo(text: string): MountInfo[] {
  const out: MountInfo[] = [];
  for (const line of text.split("\n")) {
    const sep = line.indexOf(" - ");
    if (sep < 0) continue;
    const pre = line.slice(0, sep).split(" ");
    const post = line.slice(sep + 3).split(" ");
    const dev = /^(\d+):(\d+)$/.exec(pre[2] ?? "");
    if (!dev || pre.length < 5 || post.length < 2) continue;
    out.push({
      major: Number(dev[1]),
      minor: Number(dev[2]),
      mountpoint: unescapeOctal(pre[4]),
      fsType: post[0],
      source: unescapeOctal(post[1]),
    });
  }
  return out;
}

function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
}

/** CPU counts as cAdvisor takes them from /proc/cpuinfo. */
export interface CpuCounts {
  /** `processor` lines: the logical CPUs. */
  cores: number;
  /**
   * Distinct `core id` lines and distinct `physical id` lines. cAdvisor counts distinct lines,
   * so two sockets of cores 0-7 count 8 physical cores; 0 when the file has none of them.
   */
  physicalCores: number;
  sockets: number;
}

export function parseCpuinfo(text: string): CpuCounts {
  const cores = new Set<string>();
  const sockets = new Set<string>();
  let processors = 0;
  for (const line of text.split("\n")) {
    if (/^processor\s*:/.test(line)) processors++;
    const core = /^core id\s*:\s*([0-9]+)$/.exec(line);
    if (core) cores.add(core[1]);
    const socket = /^physical id\s*:\s*([0-9]+)$/.exec(line);
    if (socket) sockets.add(socket[1]);
  }
  return { cores: processors, physicalCores: cores.size, sockets: sockets.size };
}

/** A `Key:   123 kB` line of /proc/meminfo, in bytes; 0 when absent (cAdvisor's capacity). */
export function meminfoBytes(text: string, key: string): number {
  const m = new RegExp(`^${key}:\\s*([0-9]+) kB`, "m").exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * The soft limit of "Max open files" in /proc/<pid>/limits, -1 when unlimited; undefined when
 * the line is missing. cAdvisor reports only this one ulimit, as `max_open_files`.
 */
export function parseMaxOpenFiles(text: string): number | undefined {
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  if (m[1] === "unlimited") return -1;
  const n = Number(m[1]);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A cgroup file holding one unsigned integer, read as runc does: "max" is MAX_UINT64, an empty
 * or unreadable value 0.
 */
export function parseUint(text: string | undefined): number {
  const t = text?.trim() ?? "";
  if (t === "max") return MAX_UINT64;
  const n = Number(t);
  return t === "" || !Number.isFinite(n) || n < 0 ? 0 : n;
}

/** cgroup v2 `cpu.max` (`max 100000`, `50000 100000`): quota 0 when unlimited. */
export function parseCpuMax(text: string | undefined): { quota: number; period: number } {
  const [q, p] = (text?.trim() ?? "").split(" ");
  if (p === undefined) return { quota: 0, period: 0 };
  return { quota: q === "max" ? 0 : parseUint(q), period: parseUint(p) };
}

/** cgroup v2 `cpu.weight` [1, 10000] to cgroup v1 shares [2, 262144], as cAdvisor converts. */
export function weightToShares(weight: number): number {
  if (!(weight >= 1 && weight <= 10000)) return 0;
  return 2 + Math.floor(((weight - 1) * 262142) / 9999);
}

/**
 * A lookup into a flat keyed file (`key value` lines: memory.stat, cpu.stat): a file read for
 * a dozen of its seventy keys is searched, not split into a map.
 */
export function flatKeyed(text: string | undefined): (key: string) => number | undefined {
  const t = text ?? "";
  return (key) => {
    let at = t.startsWith(`${key} `) ? 0 : t.indexOf(`\n${key} `);
    if (at < 0) return undefined;
    if (t[at] === "\n") at++;
    const start = at + key.length + 1;
    const end = t.indexOf("\n", start);
    const raw = t.slice(start, end < 0 ? t.length : end);
    const n = raw.trim() === "" ? NaN : Number(raw);
    return Number.isFinite(n) ? n : undefined;
  };
}
