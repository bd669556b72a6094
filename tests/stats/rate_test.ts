import assert from "node:assert/strict";
import { CpuRateTracker } from "../../src/stats/_rate.ts";

Deno.test("usageNanoCores is the CPU-time delta over the wall-time delta", () => {
  const r = new CpuRateTracker();
  assert.equal(r.update("c", 1_000_000_000, 10_000), undefined);
  // 1.5 s of CPU in 10 s of wall time = 0.15 cores.
  assert.equal(r.update("c", 2_500_000_000, 20_000), 150_000_000);
  // Two busy cores.
  assert.equal(r.update("c", 22_500_000_000, 30_000), 2_000_000_000);
});

Deno.test("rate is undefined when time does not move or the counter resets", () => {
  const r = new CpuRateTracker();
  r.update("c", 100, 1000);
  assert.equal(r.update("c", 200, 1000), undefined);
  assert.equal(r.update("c", 50, 2000), undefined, "a restarted container resets its counter");
  assert.equal(r.update("c", 1_000_050, 3000), 1_000_000);
  assert.equal(r.update("c", 9_000_000, 2500), undefined, "an older sample is ignored");
});

Deno.test("sweep forgets keys that were not updated since the last sweep", () => {
  const r = new CpuRateTracker();
  r.update("gone", 0, 0);
  r.update("kept", 0, 0);
  r.sweep();
  r.update("kept", 1000, 1000);
  r.sweep();
  assert.equal(r.update("gone", 1000, 2000), undefined, "first sample again");
  assert.equal(r.update("kept", 2000, 2000), 1000);
});

Deno.test("no rate over a gap longer than maxGapMs: an old average is not current usage", () => {
  const r = new CpuRateTracker(30_000);
  r.update("c", 0, 0);
  assert.equal(r.update("c", 1e9, 30_000), 33_333_333);
  assert.equal(r.update("c", 2e9, 90_000), undefined, "60 s since the last point");
  assert.equal(r.update("c", 3e9, 100_000), 100_000_000, "the new point counts");
});
