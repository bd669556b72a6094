/**
 * The upstream part's figures (issue 14): the agent beside the upstream kubelet on one private
 * runtime, as rows of the report and its targets. Pure, so the rows can be tested.
 */
import type { Footprint } from "./_proc.ts";

export const SIDES = ["denolet", "kubelet"] as const;
export type Side = typeof SIDES[number];

export interface UpstreamBurst {
  /** Manifests written → the median pod's container startedAt, ms, one per measured round. */
  medianPod: number[];
  /** Manifests written → the last container's startedAt, ms, one per measured round. */
  allStarted: number[];
  /** Manifests removed → no sandbox of them ready, ms, one per measured round. */
  stopped: number[];
}

export interface UpstreamSteady {
  footprint: Footprint;
  /** 1-minute load average at the window's end: what the agent ran beside. */
  loadavg1: number;
}

export interface UpstreamResult {
  kubeletVersion: string;
  /** The private runtime both agents ran on, one after the other. */
  runtime: { dir: string; bridge: string; subnet: string };
  /** Rounds after the warm-up. */
  rounds: number;
  /** Keyed by the burst size. */
  bursts: Record<string, Record<Side, UpstreamBurst>>;
  /** Keyed by the pod count. */
  steady: Record<string, Record<Side, UpstreamSteady>>;
  loadavg: { before: number[]; after: number[] };
}

export interface UpstreamRow {
  what: string;
  unit: "ms" | "MB" | "%";
  /** Median of the samples, and their range. */
  denolet: { median: number; min: number; max: number };
  kubelet: { median: number; min: number; max: number };
  /** denolet / kubelet of the medians: below 1 the agent is lighter or quicker. */
  ratio: number;
}

/** p50 pod and all-started per burst size, then RSS, anon and CPU per pod count. */
export function upstreamRows(r: UpstreamResult): UpstreamRow[] {
  const rows: UpstreamRow[] = [];
  const row = (what: string, unit: UpstreamRow["unit"], pick: (s: Side) => number[]) => {
    const [denolet, kubelet] = SIDES.map((s) => spread(pick(s)));
    rows.push({ what, unit, denolet, kubelet, ratio: denolet.median / kubelet.median });
  };
  for (const [n, b] of sortedByCount(r.bursts)) {
    row(`${n} pods at once: p50 pod`, "ms", (s) => b[s].medianPod);
    row(`${n} pods at once: all started`, "ms", (s) => b[s].allStarted);
  }
  for (const [n, st] of sortedByCount(r.steady)) {
    row(`${n} pods: RSS`, "MB", (s) => [st[s].footprint.rssMB]);
    row(`${n} pods: anon`, "MB", (s) => [st[s].footprint.anonMB]);
    row(`${n} pods: CPU`, "%", (s) => [st[s].footprint.cpuPct]);
  }
  return rows;
}

/** Issue 14's start target against the kubelet: the median pod no later than its. */
export function upstreamTargets(
  r: UpstreamResult,
): Record<string, { value: number; target: string; met: boolean }> {
  const out: Record<string, { value: number; target: string; met: boolean }> = {};
  for (const row of upstreamRows(r)) {
    if (!row.what.endsWith("p50 pod") || Number.isNaN(row.ratio)) continue;
    out[`${row.what}, agent/kubelet (median of rounds)`] = {
      value: row.ratio,
      target: "<= 1.00",
      met: row.ratio <= 1,
    };
  }
  return out;
}

export function formatUpstream(r: UpstreamResult): string[] {
  const cell = (x: number, unit: UpstreamRow["unit"]) =>
    Number.isNaN(x) ? "-" : unit === "ms" ? x.toFixed(0) : x.toFixed(unit === "%" ? 2 : 1);
  const range = (v: UpstreamRow["denolet"], unit: UpstreamRow["unit"]) =>
    v.min === v.max ? cell(v.min, unit) : `${cell(v.min, unit)}-${cell(v.max, unit)}`;
  const lines = [
    `upstream kubelet ${r.kubeletVersion} side by side (runtime ${r.runtime.dir}, ` +
    `${r.rounds} measured rounds; loadavg before ${r.loadavg.before.map((x) => x.toFixed(2))} ` +
    `after ${r.loadavg.after.map((x) => x.toFixed(2))}):`,
    "  " + "".padEnd(34) +
    ["denolet", "kubelet", "ratio", "denolet range", "kubelet range"]
      .map((h, i) => h.padStart(i < 3 ? 10 : 16)).join(""),
  ];
  for (const row of upstreamRows(r)) {
    lines.push(
      "  " + `${row.what} (${row.unit === "%" ? "% of a core" : row.unit})`.padEnd(34) + [
        cell(row.denolet.median, row.unit).padStart(10),
        cell(row.kubelet.median, row.unit).padStart(10),
        (Number.isNaN(row.ratio) ? "-" : row.ratio.toFixed(2)).padStart(10),
        range(row.denolet, row.unit).padStart(16),
        range(row.kubelet, row.unit).padStart(16),
      ].join(""),
    );
  }
  return lines;
}

/** The lower median (an observed sample), as the report's p50, and the range. */
function spread(xs: number[]): UpstreamRow["denolet"] {
  const s = [...xs].sort((a, b) => a - b);
  return {
    median: s[Math.floor((s.length - 1) / 2)] ?? NaN,
    min: s[0] ?? NaN,
    max: s.at(-1) ?? NaN,
  };
}

function sortedByCount<T>(rec: Record<string, T>): [string, T][] {
  return Object.entries(rec).sort(([a], [b]) => Number(a) - Number(b));
}
