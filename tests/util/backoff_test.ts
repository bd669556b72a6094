import assert from "node:assert/strict";
import { Backoff } from "../../src/util/backoff.ts";
import { FakeClock } from "../../src/util/clock.ts";

const S = 1000;

Deno.test("Backoff doubles from the initial delay and caps at the maximum", () => {
  const clock = new FakeClock();
  const b = new Backoff({ initialMs: 10 * S, maxMs: 300 * S, clock });
  assert.equal(b.get("k"), 0);
  const seen: number[] = [];
  for (let i = 0; i < 7; i++) {
    b.next("k", clock.now());
    seen.push(b.get("k") / S);
  }
  assert.deepEqual(seen, [10, 20, 40, 80, 160, 300, 300]);
});

Deno.test("Backoff.inBackOffSince is true only within the window after the event", async () => {
  const clock = new FakeClock();
  const b = new Backoff({ initialMs: 10 * S, maxMs: 300 * S, clock });
  const event = clock.now();
  assert.equal(b.inBackOffSince("k", event), false, "unknown key");
  b.next("k", event);
  assert.equal(b.inBackOffSince("k", event), true);
  await clock.advance(9 * S);
  assert.equal(b.inBackOffSince("k", event), true);
  await clock.advance(1 * S);
  assert.equal(b.inBackOffSince("k", event), false);
});

Deno.test("Backoff starts over when the event comes 2 x max after the last update", async () => {
  const clock = new FakeClock();
  const b = new Backoff({ initialMs: 10 * S, maxMs: 300 * S, clock });
  for (let i = 0; i < 4; i++) b.next("k", clock.now());
  assert.equal(b.get("k"), 80 * S);
  await clock.advance(600 * S);
  b.next("k", clock.now());
  assert.equal(b.get("k"), 160 * S, "exactly 2 x max is not yet expired");
  await clock.advance(600 * S + 1);
  assert.equal(b.inBackOffSince("k", clock.now()), false);
  b.next("k", clock.now());
  assert.equal(b.get("k"), 10 * S);
});

Deno.test("Backoff.inBackOffSinceUpdate measures from the last next()", async () => {
  const clock = new FakeClock();
  const b = new Backoff({ initialMs: 10 * S, maxMs: 300 * S, clock });
  b.next("img");
  assert.equal(b.inBackOffSinceUpdate("img", clock.now()), true);
  await clock.advance(10 * S);
  assert.equal(b.inBackOffSinceUpdate("img", clock.now()), false);
});

Deno.test("Backoff.gc drops stale entries, reset and resetWhere drop chosen ones", async () => {
  const clock = new FakeClock();
  const b = new Backoff({ initialMs: 1 * S, maxMs: 10 * S, clock });
  b.next("a");
  b.next("pod1_x");
  b.next("pod1_y");
  b.reset("a");
  assert.equal(b.size, 2);
  b.resetWhere((k) => k.startsWith("pod1_x"));
  assert.equal(b.size, 1);
  await clock.advance(20 * S);
  b.gc();
  assert.equal(b.size, 1, "exactly 2 x max is kept");
  await clock.advance(1);
  b.gc();
  assert.equal(b.size, 0);
});

Deno.test("Backoff rejects nonsensical limits", () => {
  assert.throws(() => new Backoff({ initialMs: 0, maxMs: 1, clock: new FakeClock() }), RangeError);
  assert.throws(() => new Backoff({ initialMs: 5, maxMs: 1, clock: new FakeClock() }), RangeError);
});
