/**
 * The agent's own `process_*` series on `/metrics`, as the Prometheus Go client's process
 * collector gives the upstream kubelet (names, help texts and units as there): CPU time, open
 * and maximum fds, virtual and resident memory, start time and the network namespace's bytes.
 * Read from /proc only when `/metrics` is scraped.
 */
import type { CollectedFamily, Collector } from "./metrics.ts";

/** USER_HZ: /proc's unit of CPU time on every Linux architecture we target. */
const TICKS_PER_SECOND = 100;
const PAGE_SIZE = 4096;
/** What the Go client reports for an "unlimited" limit (procfs reads it as MaxUint64). */
const UNLIMITED = 18446744073709551615;

const HELP = {
  process_cpu_seconds_total: "Total user and system CPU time spent in seconds.",
  process_open_fds: "Number of open file descriptors.",
  process_max_fds: "Maximum number of open file descriptors.",
  process_virtual_memory_bytes: "Virtual memory size in bytes.",
  process_virtual_memory_max_bytes: "Maximum amount of virtual memory available in bytes.",
  process_resident_memory_bytes: "Resident memory size in bytes.",
  process_start_time_seconds: "Start time of the process since unix epoch in seconds.",
  process_network_receive_bytes_total: "Number of bytes received by the process over the network.",
  process_network_transmit_bytes_total: "Number of bytes sent by the process over the network.",
} as const;

type Name = keyof typeof HELP;

/** The collector for this process (`self`) under `procRoot` (default /proc). */
export function processCollector(opts: { procRoot?: string } = {}): Collector {
  const proc = opts.procRoot ?? "/proc";
  return {
    names: Object.keys(HELP),
    collect: () => collectProcess(proc),
  };
}

function collectProcess(proc: string): CollectedFamily[] {
  const out: CollectedFamily[] = [];
  const add = (name: Name, value: number | undefined) => {
    if (value === undefined || !Number.isFinite(value)) return;
    const type = name.endsWith("_total") ? "counter" : "gauge";
    out.push({ name, help: HELP[name], type, value });
  };
  const stat = parseStat(read(`${proc}/self/stat`));
  const btime = /^btime\s+(\d+)/m.exec(read(`${proc}/stat`) ?? "");
  if (stat) {
    add("process_cpu_seconds_total", (stat.utime + stat.stime) / TICKS_PER_SECOND);
    add("process_virtual_memory_bytes", stat.vsize);
    add("process_resident_memory_bytes", stat.rss * PAGE_SIZE);
    if (btime) {
      add("process_start_time_seconds", Number(btime[1]) + stat.starttime / TICKS_PER_SECOND);
    }
  }
  add("process_open_fds", countEntries(`${proc}/self/fd`));
  const limits = read(`${proc}/self/limits`) ?? "";
  add("process_max_fds", softLimit(limits, "Max open files"));
  add("process_virtual_memory_max_bytes", softLimit(limits, "Max address space"));
  const octets = ipExt(read(`${proc}/self/net/netstat`) ?? "");
  add("process_network_receive_bytes_total", octets?.InOctets);
  add("process_network_transmit_bytes_total", octets?.OutOctets);
  return out;
}

interface Stat {
  utime: number;
  stime: number;
  starttime: number;
  vsize: number;
  rss: number;
}

/** /proc/<pid>/stat; the command may hold spaces and parentheses: split after the last ")". */
export function parseStat(text: string | undefined): Stat | undefined {
  if (text === undefined) return undefined;
  const end = text.lastIndexOf(")");
  if (end < 0) return undefined;
  // Index 0 is field 3 (state).
  const f = text.slice(end + 2).trim().split(/\s+/).map(Number);
  const at = (field: number) => f[field - 3];
  const s = { utime: at(14), stime: at(15), starttime: at(22), vsize: at(23), rss: at(24) };
  return Object.values(s).every(Number.isFinite) ? s : undefined;
}

/** A soft limit of /proc/<pid>/limits; "unlimited" as the Go client reports it. */
export function softLimit(limits: string, name: string): number | undefined {
  const m = new RegExp(`^${name}\\s+(\\S+)`, "m").exec(limits);
  if (!m) return undefined;
  return m[1] === "unlimited" ? UNLIMITED : Number(m[1]);
}

/** The IpExt line pair of /proc/<pid>/net/netstat, by field name. */
export function ipExt(netstat: string): Record<string, number> | undefined {
  const lines = netstat.split("\n").filter((l) => l.startsWith("IpExt:"));
  if (lines.length < 2) return undefined;
  const keys = lines[0].split(/\s+/).slice(1);
  const values = lines[1].split(/\s+/).slice(1).map(Number);
  return Object.fromEntries(keys.map((k, i) => [k, values[i]]));
}

function read(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
      return undefined;
    }
    throw err;
  }
}

function countEntries(dir: string): number | undefined {
  try {
    let n = 0;
    for (const _ of Deno.readDirSync(dir)) n++;
    return n;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied) {
      return undefined;
    }
    throw err;
  }
}
