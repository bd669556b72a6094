import assert from "node:assert/strict";
import { FakeClock } from "../../src/util/clock.ts";
import { freePort, pickAvoiding, waitFor, WaitTimeoutError } from "./wait.ts";

Deno.test("waitFor returns the first truthy result", async () => {
  const clock = new FakeClock();
  let calls = 0;
  const p = waitFor(() => ++calls >= 3 ? `done after ${calls}` : false, { clock, intervalMs: 100 });
  await clock.advance(0); // lets the first attempt run and schedule its sleep
  await clock.advance(100);
  await clock.advance(100);
  assert.equal(await p, "done after 3");
});

Deno.test("waitFor treats a throw as not yet and names it on timeout", async () => {
  const clock = new FakeClock();
  const boom = new Error("connection refused");
  const p = waitFor(() => {
    throw boom;
  }, { clock, timeoutMs: 1000, intervalMs: 250, what: "pod web to be Running" });
  const check = assert.rejects(p, (err: Error) => {
    assert.ok(err instanceof WaitTimeoutError);
    assert.match(err.message, /Timed out after 1000ms waiting for pod web to be Running/);
    assert.match(err.message, /5 attempts; last error: connection refused/);
    assert.equal(err.cause, boom);
    return true;
  });
  await clock.advance(1000);
  await check;
});

Deno.test("waitFor reports the last result when nothing threw", async () => {
  const clock = new FakeClock();
  const p = waitFor(() => null, { clock, timeoutMs: 100, intervalMs: 50 });
  const check = assert.rejects(p, /last result: null/);
  await clock.advance(100);
  await check;
});

Deno.test("waitFor stops when its signal aborts", async () => {
  const clock = new FakeClock();
  const ac = new AbortController();
  const p = waitFor(() => false, { clock, signal: ac.signal });
  const check = assert.rejects(p, /stop now/);
  ac.abort(new Error("stop now"));
  await check;
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("freePort returns a bindable port", () => {
  const port = freePort();
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  listener.close();
  assert.ok(port > 0);
});

Deno.test("a port to avoid is skipped even when the kernel hands it out again", () => {
  const ports = [40001, 40001, 40002];
  assert.equal(pickAvoiding([40001], () => ports.shift()!), 40002);
  assert.throws(() => pickAvoiding([40001], () => 40001), /no free port outside 40001/);
});
