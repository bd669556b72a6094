/** A process's memory and CPU from /proc, sampled over a window. */
import { realClock } from "../../src/util/clock.ts";

/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on every mainstream kernel. */
const TICKS_PER_SECOND = 100;

export interface ProcSample {
  /** VmRSS = RssAnon + RssFile + RssShmem, kB. */
  rssKB: number;
  /** Private memory (heaps, stacks): what the agent's own data costs. */
  anonKB: number;
  /** Mapped files, mostly the deno binary's touched pages (shared with other deno processes). */
  fileKB: number;
  threads: number;
  /** utime + stime in ticks. */
  cpuTicks: number;
  /** performance.now() at the sample. */
  at: number;
}

export async function procSample(pid: number): Promise<ProcSample> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // Fields after the command name (which may contain spaces) start at ") ".
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    rssKB: kb("VmRSS"),
    anonKB: kb("RssAnon"),
    fileKB: kb("RssFile"),
    threads: kb("Threads"),
    cpuTicks: Number(f[11]) + Number(f[12]), // utime, stime
    at: performance.now(),
  };
}

export interface Footprint {
  seconds: number;
  /** Mean and max RSS over the window, MB. */
  rssMB: number;
  rssMaxMB: number;
  anonMB: number;
  fileMB: number;
  threads: number;
  /** CPU time over the window as a percentage of one core. */
  cpuPct: number;
}

/** Samples `pid` every `everyMs` for `ms` and summarises; CPU is the delta over the window. */
export async function sampleFootprint(
  pid: number,
  ms: number,
  opts: { everyMs?: number; signal?: AbortSignal } = {},
): Promise<Footprint> {
  const everyMs = opts.everyMs ?? 1000;
  const first = await procSample(pid);
  const samples = [first];
  while (samples.at(-1)!.at - first.at < ms) {
    await realClock.sleep(everyMs, { signal: opts.signal });
    samples.push(await procSample(pid));
  }
  const last = samples.at(-1)!;
  const mean = (f: (s: ProcSample) => number) =>
    samples.reduce((a, s) => a + f(s), 0) / samples.length / 1024;
  const seconds = (last.at - first.at) / 1000;
  return {
    seconds,
    rssMB: mean((s) => s.rssKB),
    rssMaxMB: Math.max(...samples.map((s) => s.rssKB)) / 1024,
    anonMB: mean((s) => s.anonKB),
    fileMB: mean((s) => s.fileKB),
    threads: last.threads,
    cpuPct: (last.cpuTicks - first.cpuTicks) / TICKS_PER_SECOND / seconds * 100,
  };
}

/** Resident memory by kind of mapping, MB: where the anonymous memory lives. */
export interface MappingBreakdown {
  /** The brk heap: glibc malloc's main arena (Rust-side allocations of the main thread). */
  brkHeapMB: number;
  /** Anonymous mmaps: V8's heap pages, thread malloc arenas, large allocations. */
  anonMmapMB: number;
  stacksMB: number;
  /** The deno executable's own pages. */
  binaryMB: number;
  otherFilesMB: number;
}

/** Sums Rss of /proc/<pid>/smaps per kind of mapping. */
export async function mappingBreakdown(pid: number): Promise<MappingBreakdown> {
  const text = await Deno.readTextFile(`/proc/${pid}/smaps`);
  const exe = await Deno.readLink(`/proc/${pid}/exe`);
  const out = { brkHeapMB: 0, anonMmapMB: 0, stacksMB: 0, binaryMB: 0, otherFilesMB: 0 };
  let kind: keyof MappingBreakdown = "anonMmapMB";
  for (const line of text.split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      const path = header[1].trim();
      kind = path === "[heap]"
        ? "brkHeapMB"
        : path.startsWith("[stack")
        ? "stacksMB"
        : path === exe
        ? "binaryMB"
        : path === "" || path.startsWith("[")
        ? "anonMmapMB"
        : "otherFilesMB";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] += Number(rss[1]) / 1024;
  }
  return out;
}

/** The machine's CPU counters from /proc/stat (all cores), in ticks. */
export interface MachineCpu {
  busy: number;
  total: number;
}

export async function machineCpu(): Promise<MachineCpu> {
  const line = (await Deno.readTextFile("/proc/stat")).split("\n")[0];
  // cpu user nice system idle iowait irq softirq steal guest guest_nice; guest time is already
  // counted in user and nice.
  const [user, nice, system, idle, iowait, irq, softirq, steal] = line.trim().split(/\s+/)
    .slice(1, 9).map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, total: busy + idle + iowait };
}

/** How busy the whole machine was between two readings, % of all cores (100 = every core). */
export function machineBusyPct(a: MachineCpu, b: MachineCpu): number {
  const total = b.total - a.total;
  return total > 0 ? (b.busy - a.busy) / total * 100 : NaN;
}
