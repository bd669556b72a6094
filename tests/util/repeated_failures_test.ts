import assert from "node:assert/strict";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { RepeatedFailures } from "../../src/util/repeated_failures.ts";

const MIN = 60_000;

function setup() {
  const clock = new FakeClock();
  const lines: string[] = [];
  const logger = createLogger({ write: (l) => lines.push(l), now: () => clock.now() });
  const failures = new RepeatedFailures(logger, { clock, everyMs: 5 * MIN });
  return { clock, lines, failures };
}

Deno.test("RepeatedFailures logs a failure once, then every interval with the held-back count", async () => {
  const { clock, lines, failures } = setup();
  const busy = new Error("device or resource busy");
  // Housekeeping every 2 s for 12 minutes: 360 identical failures.
  for (let i = 0; i < 360; i++) {
    failures.warn("pod-a", "Cannot remove orphaned pod cgroup yet", { uid: "a", err: busy });
    await clock.advance(2000);
  }
  assert.equal(lines.length, 3, lines.join("\n"));
  assert.ok(lines.every((l) => l.includes("level=warn") && l.includes("uid=a")));
  assert.ok(!lines[0].includes("repeated="));
  assert.match(lines[1], /repeated=149\b/);
  assert.match(lines[2], /repeated=149\b/);
  assert.match(lines[0], /err="device or resource busy"/);
});

Deno.test("RepeatedFailures: another subject or another error logs at once; clear starts over", () => {
  const { lines, failures } = setup();
  failures.warn("a", "Cannot remove", { err: new Error("busy") });
  failures.warn("a", "Cannot remove", { err: new Error("busy") });
  failures.warn("b", "Cannot remove", { err: new Error("busy") });
  failures.warn("a", "Cannot remove", { err: new Error("permission denied") });
  failures.warn("a", "Cannot remove", { err: new Error("permission denied") });
  assert.equal(lines.length, 3);
  failures.clear("a");
  failures.warn("a", "Cannot remove", { err: new Error("permission denied") });
  assert.equal(lines.length, 4);
});

Deno.test("RepeatedFailures forgets subjects that stopped failing without a clear", async () => {
  const { clock, lines, failures } = setup();
  for (let i = 0; i < 3; i++) failures.warn(`gone-${i}`, "Cannot remove", { err: "x" });
  failures.clear("gone-0");
  assert.equal(failures.size, 2);
  await clock.advance(11 * MIN);
  failures.warn("other", "Cannot remove", { err: "x" });
  assert.equal(failures.size, 1, "only the subject still failing is remembered");
  assert.equal(lines.length, 4);
});
