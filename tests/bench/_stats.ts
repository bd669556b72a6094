/** Small helpers for the benchmark: order statistics and /proc sampling. */

export interface Summary {
  n: number;
  median: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
}

export function summarize(xs: number[]): Summary {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? NaN;
  return { n: s.length, median: q(0.5), p90: q(0.9), p99: q(0.99), min: s[0], max: s.at(-1)! };
}

/** RSS (kB) and user+system CPU ticks (USER_HZ = 100 on Linux) of a process. */
export async function procSample(
  pid: number,
): Promise<{ rssKB: number; cpuTicks: number; at: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const rssKB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  // Fields after the command name (which may contain spaces) start at ") ".
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuTicks = Number(f[11]) + Number(f[12]); // utime, stime
  return { rssKB, cpuTicks, at: performance.now() };
}
