/**
 * The conformance results: one record per node agent (denolet, the upstream kubelet) that later
 * runs of a subset update spec by spec, and the side-by-side report made from both. Pure.
 */
import type { JUnitRun, SpecResult } from "./_junit.ts";

export type NodeKind = "denolet" | "upstream";

export interface RunInfo {
  kubelet: NodeKind;
  /** ISO times. */
  startedAt: string;
  finishedAt: string;
  focus: string;
  skip: string;
  procs: number;
  /** What ran as the node: `denolet <commit>` or `kubelet v1.37.2`. */
  node: string;
  /** The runtime: `containerd 1.6.20` ... */
  runtime: string;
  /** Seconds the Ginkgo run took. */
  seconds: number;
}

/** A spec's latest result on one agent, and which run gave it. */
export interface RecordedSpec extends SpecResult {
  /** Index into `RunRecord.runs`. */
  run: number;
}

export interface RunRecord {
  /** Every run that went into this record, oldest first; the first is the full one. */
  runs: RunInfo[];
  specs: Record<string, RecordedSpec>;
  suiteFailures: { node: string; message: string; run: number }[];
}

/**
 * Adds one run to an agent's record. A full run (the default focus and skip) starts the record
 * afresh; a subset run replaces the results of the specs it ran and keeps the others.
 */
export function recordRun(
  prev: RunRecord | undefined,
  run: { info: RunInfo; junit: JUnitRun; full: boolean },
): RunRecord {
  const base: RunRecord = run.full || !prev ? { runs: [], specs: {}, suiteFailures: [] } : {
    runs: [...prev.runs],
    specs: { ...prev.specs },
    suiteFailures: [...prev.suiteFailures],
  };
  const index = base.runs.length;
  base.runs.push(run.info);
  for (const [name, r] of run.junit.specs) base.specs[name] = { ...r, run: index };
  for (const f of run.junit.suiteFailures) base.suiteFailures.push({ ...f, run: index });
  return base;
}

export interface ReportRow {
  name: string;
  denolet?: RecordedSpec;
  kubelet?: RecordedSpec;
}

export interface Report {
  denoletRuns: RunInfo[];
  kubeletRuns: RunInfo[];
  summary: {
    /** Specs that ran (passed or failed) on at least one agent. */
    specs: number;
    passedKubelet?: number;
    passedDenolet?: number;
    failedKubelet?: number;
    failedDenolet?: number;
    /** Passed on the kubelet, not on denolet (the ones to fix). */
    differences: number;
    /** Failed on both: the environment, most likely. */
    failedOnBoth: number;
    /** Passed on denolet, failed on the kubelet. */
    denoletOnly: number;
  };
  /** Every spec by name. */
  rows: ReportRow[];
  suiteFailures: { kubelet: NodeKind; node: string; message: string }[];
}

export function buildReport(denolet?: RunRecord, kubelet?: RunRecord): Report {
  const names = new Set([
    ...Object.keys(denolet?.specs ?? {}),
    ...Object.keys(kubelet?.specs ?? {}),
  ]);
  const rows: ReportRow[] = [...names].sort().map((name) => ({
    name,
    denolet: denolet?.specs[name],
    kubelet: kubelet?.specs[name],
  }));
  const ran = rows.filter((r) => [r.denolet, r.kubelet].some((s) => s && s.outcome !== "skipped"));
  const count = (pick: (r: ReportRow) => boolean) => ran.filter(pick).length;
  const is = (s: RecordedSpec | undefined, o: string) => s?.outcome === o;
  return {
    denoletRuns: denolet?.runs ?? [],
    kubeletRuns: kubelet?.runs ?? [],
    summary: {
      specs: ran.length,
      ...(kubelet
        ? {
          passedKubelet: count((r) => is(r.kubelet, "passed")),
          failedKubelet: count((r) => is(r.kubelet, "failed")),
        }
        : {}),
      ...(denolet
        ? {
          passedDenolet: count((r) => is(r.denolet, "passed")),
          failedDenolet: count((r) => is(r.denolet, "failed")),
        }
        : {}),
      differences: count(isDifference),
      failedOnBoth: count((r) => is(r.kubelet, "failed") && is(r.denolet, "failed")),
      denoletOnly: count((r) => is(r.denolet, "passed") && is(r.kubelet, "failed")),
    },
    rows,
    suiteFailures: [
      ...(denolet?.suiteFailures ?? []).map((f) => ({ kubelet: "denolet" as const, ...f })),
      ...(kubelet?.suiteFailures ?? []).map((f) => ({ kubelet: "upstream" as const, ...f })),
    ].map(({ kubelet, node, message }) => ({ kubelet, node, message })),
  };
}

/** Passed on the kubelet and did not pass on denolet. */
export function isDifference(r: ReportRow): boolean {
  return r.kubelet?.outcome === "passed" && r.denolet !== undefined &&
    r.denolet.outcome !== "passed";
}

const MESSAGE_CHARS = 600;

/** The report as markdown: the summary table, the differences, the failures on both, every spec. */
export function renderMarkdown(r: Report): string {
  const s = r.summary;
  const n = (v: number | undefined) => (v === undefined ? "—" : String(v));
  const out: string[] = ["# Node conformance: denolet and the upstream kubelet", ""];
  for (const [label, runs] of [["denolet", r.denoletRuns], ["kubelet", r.kubeletRuns]] as const) {
    for (const run of runs) {
      out.push(
        `- ${label}: ${run.node} on ${run.runtime}, ${run.startedAt} – ${run.finishedAt} ` +
          `(${Math.round(run.seconds / 60)} min, ${run.procs} Ginkgo processes), ` +
          `focus \`${run.focus}\`, skip \`${run.skip}\``,
      );
    }
  }
  out.push(
    "",
    "| specs run | passed on the kubelet | passed on denolet | differences | failed on both |",
    "|---:|---:|---:|---:|---:|",
    `| ${s.specs} | ${n(s.passedKubelet)} | ${n(s.passedDenolet)} | ${s.differences} | ` +
      `${s.failedOnBoth} |`,
    "",
  );
  const section = (title: string, rows: ReportRow[]) => {
    out.push(`## ${title} (${rows.length})`, "");
    if (rows.length === 0) out.push("None.", "");
    for (const row of rows) {
      out.push(
        `- **${row.name}**`,
        `  - kubelet: ${describe(row.kubelet)}`,
        `  - denolet: ${describe(row.denolet)}`,
      );
    }
    if (rows.length) out.push("");
  };
  section("Passed on the kubelet, not on denolet", r.rows.filter(isDifference));
  section(
    "Failed on both",
    r.rows.filter((x) => x.kubelet?.outcome === "failed" && x.denolet?.outcome === "failed"),
  );
  section(
    "Passed on denolet, failed on the kubelet",
    r.rows.filter((x) => x.denolet?.outcome === "passed" && x.kubelet?.outcome === "failed"),
  );
  if (r.suiteFailures.length) {
    out.push("## Suite-level failures", "");
    for (const f of r.suiteFailures) {
      out.push(`- ${f.kubelet}: ${f.node}: ${oneLine(f.message)}`);
    }
    out.push("");
  }
  out.push("## Every spec", "", "| spec | kubelet | denolet |", "|---|---|---|");
  for (const row of r.rows) {
    out.push(`| ${escapeCell(row.name)} | ${cell(row.kubelet)} | ${cell(row.denolet)} |`);
  }
  return out.join("\n") + "\n";
}

function describe(s: RecordedSpec | undefined): string {
  if (!s) return "not run";
  const head = s.outcome === "failed" && s.state !== "failed"
    ? `${s.outcome} (${s.state})`
    : s.outcome;
  return s.message ? `${head}: ${oneLine(s.message)}` : head;
}

function cell(s: RecordedSpec | undefined): string {
  if (!s) return "—";
  return s.outcome === "passed" ? "passed" : s.outcome === "failed" ? "**failed**" : "skipped";
}

function oneLine(message: string): string {
  const flat = message.replace(/\s+/g, " ").trim();
  const short = flat.length > MESSAGE_CHARS ? `${flat.slice(0, MESSAGE_CHARS)}…` : flat;
  return `\`${short.replaceAll("`", "'")}\``;
}

function escapeCell(s: string): string {
  return s.replaceAll("|", "\\|");
}
