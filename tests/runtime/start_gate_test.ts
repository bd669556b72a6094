import assert from "node:assert/strict";
import { StartGate } from "../../src/runtime/_start_gate.ts";

/** A promise the test settles. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

Deno.test("StartGate runs at most `limit` at once and the waiters in the order they came", async () => {
  const gate = new StartGate(2);
  const order: string[] = [];
  const holds = new Map<string, ReturnType<typeof deferred>>();
  const job = (name: string) =>
    gate.run(async () => {
      order.push(name);
      const d = deferred();
      holds.set(name, d);
      await d.promise;
      return name;
    });
  const all = ["a", "b", "c", "d", "e"].map(job);
  await flush();
  assert.deepEqual(order, ["a", "b"]);
  assert.deepEqual(gate.state, { running: 2, waiting: 3 });
  holds.get("b")!.resolve();
  await flush();
  assert.deepEqual(order, ["a", "b", "c"]);
  // A newcomer queues behind the waiters even when a slot frees at the same moment.
  holds.get("a")!.resolve();
  const late = job("f");
  await flush();
  assert.deepEqual(order, ["a", "b", "c", "d"]);
  for (const n of ["c", "d"]) holds.get(n)!.resolve();
  await flush();
  assert.deepEqual(order, ["a", "b", "c", "d", "e", "f"]);
  for (const n of ["e", "f"]) holds.get(n)!.resolve();
  assert.deepEqual(await Promise.all([...all, late]), ["a", "b", "c", "d", "e", "f"]);
  assert.deepEqual(gate.state, { running: 0, waiting: 0 });
});

Deno.test("StartGate: an aborted waiter leaves the queue; a failing job frees its slot", async () => {
  const gate = new StartGate(1);
  const hold = deferred();
  const first = gate.run(() => hold.promise);
  const ac = new AbortController();
  const aborted = gate.run(() => Promise.resolve("never"), { signal: ac.signal });
  const third = gate.run(() => Promise.reject(new Error("boom")));
  const fourth = gate.run(() => Promise.resolve("ok"));
  ac.abort(new Error("pod deleted"));
  await assert.rejects(aborted, /pod deleted/);
  assert.deepEqual(gate.state, { running: 1, waiting: 2 });
  hold.resolve();
  await first;
  await assert.rejects(third, /boom/);
  assert.equal(await fourth, "ok");
  assert.deepEqual(gate.state, { running: 0, waiting: 0 });
});
