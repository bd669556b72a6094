/**
 * The two windows of cpu_profile.ts, whatever started the agent: /proc CPU alone (the figure to
 * compare with the bench), then /proc CPU while V8's sampling profiler runs (its overhead shows
 * there), with per-thread CPU and the target's request counters over the first window; and the
 * report of both.
 */
import { connectInspector, type CpuProfile, summarizeProfile } from "./_cdp.ts";
import { type LineMap, remapProfile, scriptSourceMaps } from "./_source_map.ts";
import { counterDelta, countersBy } from "./_metrics.ts";
import {
  type Footprint,
  machineBusyPct,
  type MachineCpu,
  machineCpu,
  sampleFootprint,
} from "./_proc.ts";

/** An agent brought to its steady state, started with `--inspect` on `inspectPort`. */
export interface ProfileTarget extends AsyncDisposable {
  readonly pid: number;
  readonly inspectPort: number;
  /**
   * Cumulative counters by group ("CRI calls", "API requests"), each by key: read around each
   * window, so what the agent did in it is their difference.
   */
  counters(): Promise<Record<string, Record<string, number>>>;
}

export interface ProfileWindows {
  bare: Footprint;
  profiled: Footprint;
  /** How busy the whole machine was in each window, % of all cores: a busy one skews both. */
  bareMachinePct: number;
  profiledMachinePct: number;
  /**
   * CPU ticks (1/100 s) by thread name over the bare window, highest first; threads that ended
   * within it (Tokio's blocking pool lets idle ones go) show as what /proc's total has left.
   */
  threads: [string, number][];
  /** Counter increments over each window, by group. */
  counts: Record<string, Record<string, number>>;
  profiledCounts: Record<string, Record<string, number>>;
  /** As V8 took it: lines of the JavaScript that ran (DevTools maps them when it opens it). */
  profile: CpuProfile;
  /** The scripts' source maps, for the report's TypeScript lines. */
  sourceMaps: Map<string, LineMap>;
}

export async function measureWindows(
  target: ProfileTarget,
  opts: { windowMs: number; intervalUs: number },
): Promise<ProfileWindows> {
  const counters0 = await target.counters();
  const threads0 = await threadTicks(target.pid);
  const machine0 = await machineCpu();
  const bare = await sampleFootprint(target.pid, opts.windowMs);
  const machine1 = await machineCpu();
  const threads = diffTicks(threads0, await threadTicks(target.pid));
  const ended = bare.cpuPct * bare.seconds - threads.reduce((a, [, n]) => a + n, 0);
  // A tick or two is the readings' own skew (they are not taken at the same instant).
  if (ended > 2) threads.push(["(threads that ended)", ended]);
  const counters1 = await target.counters();

  const cdp = await connectInspector("127.0.0.1", target.inspectPort);
  let profile: CpuProfile;
  let profiled: Footprint;
  let machine2: MachineCpu;
  let sourceMaps: Map<string, LineMap>;
  try {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: opts.intervalUs });
    await cdp.send("Profiler.start");
    profiled = await sampleFootprint(target.pid, opts.windowMs);
    machine2 = await machineCpu();
    profile = (await cdp.send<{ profile: CpuProfile }>("Profiler.stop")).profile;
    await cdp.send("Profiler.disable");
    sourceMaps = await scriptSourceMaps(cdp);
  } finally {
    cdp.close();
  }
  return {
    bare,
    profiled,
    bareMachinePct: machineBusyPct(machine0, machine1),
    profiledMachinePct: machineBusyPct(machine1, machine2),
    threads,
    counts: groupDelta(counters0, counters1),
    profiledCounts: groupDelta(counters1, await target.counters()),
    profile,
    sourceMaps,
  };
}

/** Prints the windows' figures and the profile's top functions and files. */
export function printProfileReport(
  w: ProfileWindows,
  opts: { title: string; top: number; root: string; intervalUs: number },
): void {
  // Ten sampling intervals: longer gaps are the machine's doing, not the agent's functions.
  const s = summarizeProfile(remapProfile(w.profile, w.sourceMaps), {
    root: opts.root,
    maxSampleUs: 10 * opts.intervalUs,
  });
  const busyMs = s.busyMs;
  const pct = (ms: number) => (ms / s.totalMs * 100).toFixed(2);
  const row = ([k, ms]: [string, number]) =>
    `${ms.toFixed(1).padStart(9)} ms ${pct(ms).padStart(6)} %  ${k}`;
  const { bare, profiled } = w;
  const top = opts.top;
  console.log(`# ${opts.title}`);
  console.log(
    `/proc, no profiler:   ${bare.cpuPct.toFixed(2)} % of a core over ${
      bare.seconds.toFixed(1)
    } s` +
      ` (machine ${w.bareMachinePct.toFixed(1)} % busy)`,
  );
  console.log(
    `/proc, profiler on:   ${profiled.cpuPct.toFixed(2)} % of a core over ` +
      `${profiled.seconds.toFixed(1)} s (machine ${w.profiledMachinePct.toFixed(1)} % busy)`,
  );
  console.log(
    `profile: ${s.totalMs.toFixed(0)} ms, JS thread busy ${busyMs.toFixed(0)} ms = ${
      pct(busyMs)
    } %` +
      ` of the span (the rest of /proc is other threads: I/O, GC helpers, the profiler);` +
      ` ${s.clamped.samples} samples longer than ${10 * opts.intervalUs / 1000} ms cut by` +
      ` ${s.clamped.ms.toFixed(0)} ms`,
  );
  console.log(
    `CPU by thread, no profiler (% of a core): ${
      w.threads.map(([name, ticks]) => `${name} ${(ticks / bare.seconds).toFixed(2)}`).join(", ")
    }`,
  );
  const sum = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);
  for (const [group, counts] of Object.entries(w.counts)) {
    const inProfiled = sum(w.profiledCounts[group] ?? {}) / profiled.seconds;
    console.log(
      `${group} per second, no profiler: ${(sum(counts) / bare.seconds).toFixed(2)}: ${
        Object.entries(counts).sort((a, b) => b[1] - a[1])
          .map(([op, n]) => `${op} ${(n / bare.seconds).toFixed(2)}`).join(", ")
      } (profiled window: ${inProfiled.toFixed(2)})`,
    );
  }
  console.log(`\n## top ${top} by self time (% of the span)`);
  for (const r of s.selfByFunction.slice(0, top)) console.log(row(r));
  console.log(`\n## top ${top} by total time (self + callees)`);
  for (const r of s.totalByFunction.slice(0, top)) console.log(row(r));
  console.log(`\n## self time by file`);
  for (const r of s.selfByFile.slice(0, top)) console.log(row(r));
}

/**
 * The agent's CRI calls by operation and pod syncs by kind, from its /metrics: a periodic resync
 * of every pod (--sync-frequency) may fall in one window and not the other.
 */
export async function agentCounters(
  agent: { get(path: string): Promise<Response> },
): Promise<Record<string, Record<string, number>>> {
  const text = await (await agent.get("/metrics")).text();
  return {
    "CRI calls": countersBy(text, "kubelet_runtime_operations_total", "operation_type"),
    "pod syncs": countersBy(text, "kubelet_pod_worker_duration_seconds_count", "operation_type"),
  };
}

function groupDelta(
  a: Record<string, Record<string, number>>,
  b: Record<string, Record<string, number>>,
): Record<string, Record<string, number>> {
  return Object.fromEntries(Object.entries(b).map(([g, c]) => [g, counterDelta(a[g] ?? {}, c)]));
}

type Ticks = Map<string, { name: string; ticks: number }>;

/** CPU ticks (1/100 s) of each of the process's threads, keyed by thread id. */
async function threadTicks(pid: number): Promise<Ticks> {
  const out: Ticks = new Map();
  for await (const t of Deno.readDir(`/proc/${pid}/task`)) {
    const stat = await Deno.readTextFile(`/proc/${pid}/task/${t.name}/stat`).catch(() => "");
    if (!stat) continue; // the thread ended
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(t.name, { name, ticks: Number(f[11]) + Number(f[12]) });
  }
  return out;
}

/** Ticks each thread name used between two readings, summed over threads of one name. */
function diffTicks(a: Ticks, b: Ticks): [string, number][] {
  const by = new Map<string, number>();
  for (const [tid, t] of b) {
    by.set(t.name, (by.get(t.name) ?? 0) + t.ticks - (a.get(tid)?.ticks ?? 0));
  }
  return [...by].filter(([, n]) => n > 0).sort((x, y) => y[1] - x[1]);
}
