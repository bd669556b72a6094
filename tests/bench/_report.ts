/** The benchmark's JSON report and its short table. */
import type { SteadyState } from "./_footprint.ts";
import type { ProbeLoad } from "./_probe_load.ts";
import { ratio, summarize, type Summary } from "./_stats.ts";
import type { ApiModeResult } from "./_api_mode.ts";
import { formatUpstream, type UpstreamResult } from "./_upstream_report.ts";
import { formatTraffic, type TrafficResult } from "./_traffic_report.ts";
import { formatPulls, type PullsResult } from "./_pulls.ts";

export interface Row {
  agent: Summary;
  baseline?: Summary;
  /** agent / baseline, statistic by statistic. */
  ratio?: Omit<Summary, "n">;
}

export interface Machine {
  cores: number;
  memTotalMB: number;
  kernel: string;
  deno: string;
  runtime: string;
  /** 1/5/15-minute load averages. */
  loadavg: number[];
  /** Sandboxes in the runtime not ours (other suites share it): the noise we ran beside. */
  foreignSandboxes: number;
}

export interface Report {
  when: string;
  settings: Record<string, unknown>;
  machineBefore: Machine;
  machineAfter: Machine;
  /** Latencies in ms; rounds after the warm-up only. */
  latency: Record<string, Row>;
  /** CRI calls per pod by operation, agent beside baseline (from the last measured round). */
  criCallsPerPod: Record<
    string,
    { agent: Record<string, number>; baseline: Record<string, number> }
  >;
  steadyState: Record<string, SteadyState>;
  /** The same busybox pods without and with probes (issue 3), when run. */
  probeLoad?: ProbeLoad;
  /** The API-server mode against a real control plane (issue 10), when run. */
  apiMode?: ApiModeResult;
  /** The upstream kubelet side by side on a private runtime (issue 14), when run. */
  upstream?: UpstreamResult;
  /** API traffic and start to Ready beside the upstream kubelet (issue 31), when run. */
  traffic?: TrafficResult;
  /** Serialized against parallel image pulls from a local registry (issue 28), when run. */
  pulls?: PullsResult;
  targets: Record<string, { value: number; target: string; met: boolean }>;
  /** Scenarios that failed: the rest of the run is still reported. */
  failures?: string[];
}

/** Collects samples per row and agent/baseline side. */
export class Samples {
  readonly #agent = new Map<string, number[]>();
  readonly #baseline = new Map<string, number[]>();

  add(row: string, side: "agent" | "baseline", ...values: number[]): void {
    const m = side === "agent" ? this.#agent : this.#baseline;
    const list = m.get(row) ?? [];
    list.push(...values);
    m.set(row, list);
  }

  rows(): Record<string, Row> {
    const out: Record<string, Row> = {};
    for (const [k, xs] of this.#agent) {
      const agent = summarize(xs);
      const b = this.#baseline.get(k);
      out[k] = b ? { agent, baseline: summarize(b), ratio: ratio(agent, summarize(b)) } : { agent };
    }
    return out;
  }
}

const f0 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "-" : x.toFixed(0));
const f1 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "-" : x.toFixed(1));
const f2 = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? "-" : x.toFixed(2));

export function formatReport(r: Report): string {
  const lines: string[] = [];
  const m = r.machineBefore;
  lines.push(
    `cores=${m.cores} mem=${m.memTotalMB.toFixed(0)}MB kernel=${m.kernel} deno=${m.deno} ` +
      `runtime=${m.runtime}`,
    `loadavg before=${m.loadavg.map(f2).join(",")} after=${
      r.machineAfter.loadavg.map(f2).join(",")
    } foreign sandboxes before=${m.foreignSandboxes} after=${r.machineAfter.foreignSandboxes}`,
    `agent=${r.settings.agentForm ?? "source"} v8-flags=${
      r.settings.agentV8Flags || "(V8 defaults)"
    }`,
    ...(r.failures ?? []).map((f) => `FAILED ${f}`),
    "",
    "latency (ms)".padEnd(42) +
      ["n", "median", "p90", "p99", "min", "max", "base med", "base p99", "x med", "x p99"]
        .map((h) => h.padStart(9)).join(""),
  );
  for (const [k, row] of Object.entries(r.latency)) {
    const a = row.agent;
    lines.push(
      k.padEnd(42) + [
        String(a.n),
        f0(a.median),
        f0(a.p90),
        f0(a.p99),
        f0(a.min),
        f0(a.max),
        f0(row.baseline?.median),
        f0(row.baseline?.p99),
        f2(row.ratio?.median),
        f2(row.ratio?.p99),
      ].map((c) => c.padStart(9)).join(""),
    );
  }
  lines.push(
    "",
    "steady state".padEnd(22) +
      [
        "rss MB",
        "max MB",
        "anon MB",
        "cpu %",
        "relist ms",
        "rel p99",
        "loop ms",
        "loop p99",
        "iter/s",
      ].map((h) => h.padStart(10)).join(""),
  );
  // In the order they ran: the probe load comes before the idle window after the workload.
  const { ["0 pods (after)"]: idleAfter, ...beforeIdle } = r.steadyState;
  const steady = {
    ...beforeIdle,
    ...probeRows(r.probeLoad),
    ...(idleAfter ? { "0 pods (after)": idleAfter } : {}),
  };
  for (const [k, s] of Object.entries(steady)) {
    lines.push(
      k.padEnd(22) + [
        f1(s.footprint.rssMB),
        f1(s.footprint.rssMaxMB),
        f1(s.footprint.anonMB),
        f2(s.footprint.cpuPct),
        f2(s.relist?.meanMs),
        f2(s.relist?.p99Ms),
        f2(s.loopIteration?.meanMs),
        f2(s.loopIteration?.p99Ms),
        f1(s.loopIterationsPerSecond),
      ].map((c) => c.padStart(10)).join(""),
    );
  }
  lines.push("", "steady state CRI calls per second:");
  for (const [k, st] of Object.entries(steady)) {
    const calls = Object.entries(st.criCallsPerSecond).map(([op, n]) => `${op} ${f2(n)}`);
    lines.push(`  ${k}: ${calls.join(", ") || "none"}`);
  }
  if (r.probeLoad) lines.push("", ...formatProbeLoad(r.probeLoad, r.steadyState));
  if (r.apiMode) lines.push("", ...formatApiMode(r.apiMode, r.steadyState["0 pods (fresh)"]));
  if (r.upstream) lines.push("", ...formatUpstream(r.upstream));
  if (r.traffic) lines.push("", ...formatTraffic(r.traffic));
  if (r.pulls) lines.push("", ...formatPulls(r.pulls));
  lines.push("", "CRI calls per pod the agent makes beyond the baseline's:");
  for (const [k, c] of Object.entries(r.criCallsPerPod)) {
    const extra = Object.entries(c.agent)
      .map(([op, n]): [string, number] => [op, n - (c.baseline[op] ?? 0)])
      .filter(([, n]) => Math.abs(n) > 1e-9)
      .map(([op, n]) => `${op} ${n > 0 ? "+" : ""}${f1(n)}`);
    lines.push(`  ${k}: ${extra.join(", ") || "none"}`);
  }
  lines.push("", "targets (issues 6 and 14; reported, not asserted):");
  for (const [k, t] of Object.entries(r.targets)) {
    lines.push(`  ${t.met ? "met  " : "SHORT"} ${k}: ${f2(t.value)} (target ${t.target})`);
  }
  return lines.join("\n");
}

/** The probe load's two windows as steady-state rows. */
function probeRows(p: ProbeLoad | undefined): Record<string, SteadyState> {
  return p ? { [`${p.pods} pods, probes off`]: p.off, [`${p.pods} pods with probes`]: p.on } : {};
}

/** The probe load beside the probe-free figures: the pause pods at that count, if measured. */
function formatProbeLoad(p: ProbeLoad, steady: Record<string, SteadyState>): string[] {
  const lines = [
    `probe load: ${p.pods} pods x 3 probes (exec, HTTP, TCP) every ${p.periodSeconds} s`,
    "  " + "".padEnd(28) +
    ["rss MB", "cpu %", "probes/s", "ExecSync/s", "machine %", "load"]
      .map((h) => h.padStart(11)).join(""),
  ];
  const row = (k: string, s: SteadyState) =>
    "  " + k.padEnd(28) + [
      f1(s.footprint.rssMB),
      f2(s.footprint.cpuPct),
      f1(s.probes?.perSecond ?? 0),
      f1(s.criCallsPerSecond["exec_sync"] ?? 0),
      f1(s.machine?.busyPct),
      f1(s.machine?.loadavg1),
    ].map((c) => c.padStart(11)).join("");
  const pause = steady[`${p.pods} pods`];
  if (pause) lines.push(row(`${p.pods} pause pods, no probes`, pause));
  lines.push(
    row(`${p.pods} busybox pods, no probes`, p.off),
    row(`${p.pods} busybox pods with probes`, p.on),
    `  probes cost ${p.cpuDeltaPct >= 0 ? "+" : ""}${f2(p.cpuDeltaPct)} % of a core ` +
      `(${f2(p.cpuPerProbeMs)} ms CPU per probe), ${p.rssDeltaMB >= 0 ? "+" : ""}` +
      `${f1(p.rssDeltaMB)} MB RSS; ${f1(p.probesPerSecond)} probes/s of ` +
      `${f1(p.expectedPerSecond)} expected; unsuccessful ${p.unsuccessful}, restarts ` +
      `${p.restarts}, not Ready after ${p.notReadyAfter}`,
  );
  return lines;
}

/** The API mode's start latencies (as the API server reports Running) and footprint. */
function formatApiMode(a: ApiModeResult, standaloneIdle: SteadyState | undefined): string[] {
  const perPod = (label: string, s: Summary, allMs: number) =>
    `  ${label.padEnd(36)}` +
    [f0(s.median), f0(s.p99), f0(s.max), f0(allMs)].map((c) => c.padStart(10)).join("");
  const lines = [
    "API mode (pods created in the API server until it reports them Running and Ready, ms):",
    "  " + "".padEnd(36) + ["p50", "p99", "max", "all"].map((h) => h.padStart(10)).join(""),
    perPod(`${a.burst.pods} pods at once`, a.burst.perPod, a.burst.allMs),
    perPod(`${a.paced.pods} pods at ${a.paced.ratePerSecond}/s`, a.paced.perPod, a.paced.allMs),
    "  " + "".padEnd(36) + ["rss MB", "max MB", "cpu %"].map((h) => h.padStart(10)).join(""),
    "  " + "idle (0 pods)".padEnd(36) +
    [f1(a.idle.rssMB), f1(a.idle.rssMaxMB), f2(a.idle.cpuPct)].map((c) => c.padStart(10)).join(""),
    "  " + `${a.loaded.pods} pods`.padEnd(36) + [
      f1(a.loaded.footprint.rssMB),
      f1(a.loaded.footprint.rssMaxMB),
      f2(a.loaded.footprint.cpuPct),
    ].map((c) => c.padStart(10)).join(""),
  ];
  if (standaloneIdle) {
    const extra = a.idle.rssMB - standaloneIdle.footprint.rssMB;
    lines.push(
      `  idle RSS over standalone: ${extra >= 0 ? "+" : ""}${f1(extra)} MB (budget +25 MB)`,
    );
  }
  return lines;
}
