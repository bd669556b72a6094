import { deepStrictEqual as assertEquals, rejects } from "node:assert/strict";
import { createPodStatusCache, emptyPodStatus } from "../../src/pleg/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import type { RuntimePodStatus } from "../../src/runtime/types.ts";

function status(uid: string, timestamp: number): RuntimePodStatus {
  return { ...emptyPodStatus(uid, timestamp), name: "web", namespace: "default" };
}

/** Whether a promise has settled, without waiting for it. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

Deno.test("cache getNewerThan resolves at once from a fresh enough entry", async () => {
  const cache = createPodStatusCache({ clock: new FakeClock() });
  cache.set("u1", status("u1", 100));
  assertEquals((await cache.getNewerThan("u1", 100)).timestamp, 100);
  assertEquals((await cache.getNewerThan("u1", 50)).name, "web");
});

Deno.test("cache getNewerThan waits for a newer set of that pod", async () => {
  const cache = createPodStatusCache({ clock: new FakeClock() });
  cache.set("u1", status("u1", 100));
  const p = cache.getNewerThan("u1", 200);
  assertEquals(await settled(p), false);
  cache.set("u2", status("u2", 300));
  assertEquals(await settled(p), false);
  cache.set("u1", status("u1", 250));
  assertEquals((await p).timestamp, 250);
});

Deno.test("cache getNewerThan resolves on a newer global timestamp, with an empty status when unknown", async () => {
  const cache = createPodStatusCache({ clock: new FakeClock() });
  const unknown = cache.getNewerThan("ghost", 200);
  cache.set("u1", status("u1", 100));
  const known = cache.getNewerThan("u1", 200);
  cache.updateTime(150);
  assertEquals(await settled(unknown), false);
  assertEquals(await settled(known), false);
  cache.updateTime(200);
  assertEquals(await unknown, emptyPodStatus("ghost", 200));
  // The cached entry is returned even though it is older: the relist vouches for it.
  assertEquals((await known).timestamp, 100);
  assertEquals(cache.globalTimestamp, 200);
  cache.updateTime(100);
  assertEquals(cache.globalTimestamp, 200, "the global timestamp never goes back");
});

Deno.test("cache getNewerThan rejects on abort and forgets the waiter", async () => {
  const cache = createPodStatusCache({ clock: new FakeClock() });
  const ac = new AbortController();
  const p = cache.getNewerThan("u1", 10, { signal: ac.signal });
  ac.abort(new Error("stop"));
  await rejects(p, /stop/);
  cache.updateTime(20); // must not resolve the aborted waiter (nothing to observe but no throw)
  await rejects(cache.getNewerThan("u1", 30, { signal: ac.signal }), /stop/);
});

Deno.test("cache delete drops the entry; an empty global cache never satisfies minTime 0 waiters early", async () => {
  const cache = createPodStatusCache({ clock: new FakeClock() });
  cache.set("u1", status("u1", 5));
  cache.delete("u1");
  assertEquals(cache.get("u1"), undefined);
  const p = cache.getNewerThan("u1", 0);
  assertEquals(await settled(p), false, "no relist has happened yet");
  cache.updateTime(1);
  assertEquals((await p).containers, []);
});
