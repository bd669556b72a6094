import assert from "node:assert/strict";
import { ratio, summarize } from "./_stats.ts";
import { Samples } from "./_report.ts";

Deno.test("summarize gives nearest-rank percentiles of observed samples", () => {
  const xs = Array.from({ length: 100 }, (_, i) => 100 - i); // 1..100, unsorted
  assert.deepEqual(summarize(xs), { n: 100, median: 50, p90: 90, p99: 99, min: 1, max: 100 });
  assert.deepEqual(summarize([7]), { n: 1, median: 7, p90: 7, p99: 7, min: 7, max: 7 });
});

Deno.test("summarize of no samples is NaN, not a throw", () => {
  const s = summarize([]);
  assert.equal(s.n, 0);
  assert.ok(Number.isNaN(s.median) && Number.isNaN(s.min) && Number.isNaN(s.max));
});

Deno.test("ratio divides agent by baseline statistic by statistic", () => {
  const r = ratio(summarize([2, 4, 6]), summarize([1, 2, 3]));
  assert.deepEqual(r, { median: 2, p90: 2, p99: 2, min: 2, max: 2 });
});

Deno.test("Samples pairs agent and baseline rows and leaves agent-only rows alone", () => {
  const s = new Samples();
  s.add("start", "agent", 110, 120);
  s.add("start", "baseline", 100, 100);
  s.add("reported", "agent", 300);
  const rows = s.rows();
  assert.equal(rows.start.agent.n, 2);
  assert.equal(rows.start.ratio?.max, 1.2);
  assert.equal(rows.reported.baseline, undefined);
  assert.equal(rows.reported.ratio, undefined);
});
