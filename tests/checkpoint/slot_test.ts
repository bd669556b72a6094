/** The debounced slot: one write per burst, the latest state, retries, a final flush. */
import assert from "node:assert/strict";
import { DebouncedSlot } from "../../src/checkpoint/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

function setup(write?: (n: number) => Promise<void>) {
  const clock = new FakeClock();
  const written: number[] = [];
  const slot = new DebouncedSlot<number>({
    kind: "test",
    write: (n) => (write ? write(n) : Promise.resolve()).then(() => void written.push(n)),
    clock,
    logger: nullLogger,
    delayMs: 1000,
  });
  return { clock, slot, written };
}

Deno.test("checkpoint slot: a burst of changes is one write of the latest state, a second later", async () => {
  const { clock, slot, written } = setup();
  let state = 0;
  for (let i = 0; i < 200; i++) {
    state = i;
    slot.schedule(() => state);
    await clock.advance(4);
  }
  assert.deepEqual(written, [], "nothing written during the burst");
  await clock.advance(1000);
  assert.deepEqual(written.length, 1, "one write for 200 changes within 0.8 s");
  assert.equal(written[0], 199, "produced at write time: the latest state");
  await clock.advance(10_000);
  assert.equal(written.length, 1, "nothing more without a change");
});

Deno.test("checkpoint slot: a change during a write is written after it, never two at once", async () => {
  let release = () => {};
  let inFlight = 0;
  let maxInFlight = 0;
  const { clock, slot, written } = setup(async () => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((r) => release = r);
    inFlight--;
  });
  slot.schedule(() => 1);
  await clock.advance(1000);
  slot.schedule(() => 2);
  await clock.advance(5000);
  assert.deepEqual(written, [], "the first write is still in flight");
  release();
  await clock.advance(0);
  assert.deepEqual(written, [1]);
  await clock.advance(1000);
  release();
  await clock.advance(0);
  assert.deepEqual(written, [1, 2]);
  assert.equal(maxInFlight, 1);
});

Deno.test("checkpoint slot: a failed write is retried with back-off, newer state first", async () => {
  let fail = true;
  const { clock, slot, written } = setup(() =>
    fail ? Promise.reject(new Error("ENOSPC")) : Promise.resolve()
  );
  slot.schedule(() => 1);
  await clock.advance(1000); // fails
  await clock.advance(1999);
  assert.deepEqual(written, []);
  slot.schedule(() => 2);
  fail = false;
  await clock.advance(1);
  assert.deepEqual(written, [2], "retried after 2 s with the newest state");
});

Deno.test("checkpoint slot: close writes what is pending at once and takes nothing after", async () => {
  const { clock, slot, written } = setup();
  slot.schedule(() => 7);
  await slot.close();
  assert.deepEqual(written, [7]);
  slot.schedule(() => 8);
  await clock.advance(5000);
  assert.deepEqual(written, [7]);
  assert.equal(clock.pendingTimers, 0);
});
