import assert from "node:assert/strict";
import type { JUnitRun, SpecResult } from "./_junit.ts";
import {
  buildReport,
  isDifference,
  recordRun,
  renderMarkdown,
  type RunInfo,
  type RunRecord,
} from "./_report.ts";

function info(kubelet: "denolet" | "upstream", focus = "\\[NodeConformance\\]"): RunInfo {
  return {
    kubelet,
    startedAt: "2026-11-28T05:00:00.000Z",
    finishedAt: "2026-11-28T05:40:00.000Z",
    focus,
    skip: "\\[Serial\\]",
    procs: 4,
    node: kubelet === "denolet" ? "denolet abc1234" : "Kubernetes v1.37.2",
    runtime: "containerd 1.6.20",
    seconds: 2400,
  };
}

const pass: SpecResult = { outcome: "passed", state: "passed", seconds: 1 };
const fail = (message: string): SpecResult => ({
  outcome: "failed",
  state: "failed",
  message,
  seconds: 300,
});

function junit(specs: Record<string, SpecResult>): JUnitRun {
  return { specs: new Map(Object.entries(specs)), suiteFailures: [] };
}

function record(kubelet: "denolet" | "upstream", specs: Record<string, SpecResult>): RunRecord {
  return recordRun(undefined, { info: info(kubelet), junit: junit(specs), full: true });
}

Deno.test("recordRun: a subset run replaces the specs it ran and keeps the others", () => {
  const full = record("denolet", { a: fail("divisor: must be positive"), b: pass, c: fail("x") });
  const rerun = recordRun(full, {
    info: info("denolet", "downward"),
    junit: junit({ a: pass }),
    full: false,
  });
  assert.equal(rerun.runs.length, 2);
  assert.deepEqual(rerun.specs.a, { ...pass, run: 1 });
  assert.deepEqual(rerun.specs.b, { ...pass, run: 0 });
  assert.equal(rerun.specs.c.outcome, "failed");
  // The earlier record is not changed in place.
  assert.equal(full.specs.a.outcome, "failed");
});

Deno.test("recordRun: a full run starts the record afresh", () => {
  const first = record("denolet", { a: fail("x"), gone: pass });
  const again = recordRun(first, { info: info("denolet"), junit: junit({ a: pass }), full: true });
  assert.deepEqual(Object.keys(again.specs), ["a"]);
  assert.equal(again.runs.length, 1);
});

Deno.test("buildReport counts each side and lists what passes on the kubelet only", () => {
  const kubelet = record("upstream", {
    same: pass,
    diff: pass,
    env: fail("ErrImagePull: registry unreachable"),
    better: fail("timeout"),
    skippedHere: { outcome: "skipped", state: "skipped", message: "no SSH", seconds: 0 },
  });
  const denolet = record("denolet", {
    same: pass,
    diff: fail("expected data-1=value-1 in output"),
    env: fail("ErrImagePull: registry unreachable"),
    better: pass,
    skippedHere: { outcome: "skipped", state: "skipped", message: "no SSH", seconds: 0 },
  });
  const r = buildReport(denolet, kubelet);
  assert.deepEqual(r.summary, {
    specs: 4,
    passedKubelet: 2,
    failedKubelet: 2,
    passedDenolet: 2,
    failedDenolet: 2,
    differences: 1,
    failedOnBoth: 1,
    denoletOnly: 1,
  });
  assert.deepEqual(r.rows.filter(isDifference).map((x) => x.name), ["diff"]);
  assert.equal(r.rows.length, 5);
});

Deno.test("buildReport with one side only leaves the other's counts out", () => {
  const r = buildReport(record("denolet", { a: pass, b: fail("x") }), undefined);
  assert.equal(r.summary.passedDenolet, 1);
  assert.equal(r.summary.passedKubelet, undefined);
  assert.equal(r.summary.differences, 0);
  assert.match(renderMarkdown(r), /\| 2 \| — \| 1 \| 0 \| 0 \|/);
});

Deno.test("renderMarkdown shows each difference with both results and the failure message", () => {
  const r = buildReport(
    record("denolet", { "[sig-node] env from a ConfigMap | pipe": fail("expected\n`data-1`") }),
    record("upstream", { "[sig-node] env from a ConfigMap | pipe": pass }),
  );
  const md = renderMarkdown(r);
  assert.match(md, /## Passed on the kubelet, not on denolet \(1\)/);
  assert.match(md, /- kubelet: passed\n {2}- denolet: failed: `expected 'data-1'`/);
  assert.match(md, /\| \[sig-node\] env from a ConfigMap \\\| pipe \| passed \| \*\*failed\*\* \|/);
  assert.match(md, /denolet: denolet abc1234 on containerd 1\.6\.20/);
});
