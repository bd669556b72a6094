import { deepStrictEqual as assertEquals, match as assertMatch } from "node:assert/strict";
import { createPleg, createPodStatusCache } from "../../src/pleg/mod.ts";
import type { PodLifecycleEvent } from "../../src/pleg/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";
import { FakePodRuntime, runningPod } from "./_fake_runtime.ts";

function setup(opts: { relistThresholdMs?: number } = {}) {
  const clock = new FakeClock();
  const runtime = new FakePodRuntime(clock);
  const cache = createPodStatusCache({ clock });
  const relists: { ms: number; err?: unknown }[] = [];
  const pleg = createPleg({
    runtime,
    cache,
    clock,
    logger: nullLogger,
    ...opts,
    onRelist: (ms, err) => relists.push({ ms, err }),
  });
  const events: PodLifecycleEvent[] = [];
  const onEvent = (e: PodLifecycleEvent) => events.push(e);
  return { clock, runtime, cache, pleg, events, onEvent, relists };
}

const types = (events: PodLifecycleEvent[]) => events.map((e) => `${e.type}:${e.data}`);

Deno.test("pleg emits started, died and removed events across relists", async () => {
  const { clock, runtime, pleg, events, onEvent, cache } = setup();
  runtime.pods = [
    runningPod("u1", { sandboxes: [["s1", "ready"]], containers: [["c1", "running"]] }),
  ];
  await pleg.relist(onEvent);
  assertEquals(types(events), ["ContainerStarted:c1", "ContainerStarted:s1"]);
  assertEquals(cache.get("u1")?.containers.map((c) => c.state), ["running"]);

  events.length = 0;
  await clock.advance(1000);
  runtime.pods = [
    runningPod("u1", { sandboxes: [["s1", "ready"]], containers: [["c1", "exited"]] }),
  ];
  await pleg.relist(onEvent);
  assertEquals(types(events), ["ContainerDied:c1"]);
  assertEquals(cache.get("u1")?.containers.map((c) => c.state), ["exited"]);

  events.length = 0;
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "ready"]] })];
  await pleg.relist(onEvent);
  assertEquals(types(events), ["ContainerRemoved:c1"]);

  events.length = 0;
  runtime.pods = [];
  await pleg.relist(onEvent);
  assertEquals(types(events), ["ContainerDied:s1", "ContainerRemoved:s1"]);
  assertEquals(cache.get("u1"), undefined, "a pod gone from the runtime leaves the cache");
});

Deno.test("pleg updates the cache for created containers but does not emit ContainerChanged", async () => {
  const { runtime, pleg, events, onEvent, cache } = setup();
  runtime.pods = [runningPod("u1", { containers: [["c1", "created"]] })];
  await pleg.relist(onEvent);
  assertEquals(events, []);
  assertEquals(cache.get("u1")?.containers.map((c) => c.state), ["created"]);
});

Deno.test("pleg only fetches status for pods that changed", async () => {
  const { runtime, pleg, onEvent } = setup();
  runtime.pods = [
    runningPod("u1", { sandboxes: [["s1", "ready"]] }),
    runningPod("u2", { sandboxes: [["s2", "ready"]] }),
  ];
  await pleg.relist(onEvent);
  assertEquals(runtime.statusCalls.sort(), ["u1", "u2"]);
  runtime.statusCalls = [];
  runtime.pods[1] = runningPod("u2", {
    sandboxes: [["s2", "ready"]],
    containers: [["c2", "running"]],
  });
  await pleg.relist(onEvent);
  assertEquals(runtime.statusCalls, ["u2"]);
});

Deno.test("pleg reinspects a pod whose status fetch failed and emits its events then", async () => {
  const { clock, runtime, pleg, events, onEvent, cache } = setup();
  runtime.pods = [
    runningPod("u1", { sandboxes: [["s1", "ready"]], containers: [["c1", "running"]] }),
  ];
  runtime.failStatus.add("u1");
  await pleg.relist(onEvent);
  assertEquals(events, [], "no events for a pod whose status is not in the cache");
  assertEquals(cache.get("u1"), undefined);
  assertEquals(cache.globalTimestamp, clock.now(), "the relist still completes");

  await clock.advance(1000);
  runtime.failStatus.clear();
  runtime.statusCalls = [];
  await pleg.relist(onEvent);
  assertEquals(runtime.statusCalls, ["u1"]);
  assertEquals(types(events), ["ContainerStarted:c1", "ContainerStarted:s1"]);
  assertEquals(cache.get("u1")?.timestamp, clock.now());

  // Nothing changed and nothing failed: no more fetches.
  runtime.statusCalls = [];
  await pleg.relist(onEvent);
  assertEquals(runtime.statusCalls, []);
});

Deno.test("pleg reinspects a failed pod even when no further container changes happen", async () => {
  const { runtime, pleg, events, onEvent } = setup();
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "ready"]] })];
  await pleg.relist(onEvent);
  events.length = 0;
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "notready"]] })];
  runtime.failStatus.add("u1");
  await pleg.relist(onEvent);
  runtime.failStatus.clear();
  runtime.statusCalls = [];
  await pleg.relist(onEvent);
  assertEquals(runtime.statusCalls, ["u1"]);
  assertEquals(types(events), ["ContainerDied:s1"]);
});

Deno.test("pleg reinspects a pod on request, with a PodSync, also when asked during a relist", async () => {
  const { runtime, pleg, events, onEvent } = setup();
  runtime.pods = [
    runningPod("u1", { sandboxes: [["s1", "ready"]], containers: [["c1", "running"]] }),
    runningPod("u2", { sandboxes: [["s2", "ready"]], containers: [["c2", "running"]] }),
  ];
  await pleg.relist(onEvent);
  events.length = 0;
  runtime.statusCalls = [];
  pleg.requestReinspect!("u1");
  // While this relist reads u1's status, a sync asks to look at u2 again (it just resized it):
  // that read must come after, in the next relist.
  const read = runtime.getPodStatus.bind(runtime);
  runtime.getPodStatus = (uid, name, ns) => {
    if (uid === "u1") pleg.requestReinspect!("u2");
    return read(uid, name, ns);
  };
  await pleg.relist(onEvent);
  assertEquals(runtime.statusCalls, ["u1"]);
  assertEquals(events, [{ uid: "u1", type: "PodSync" }]);
  events.length = 0;
  runtime.statusCalls = [];
  await pleg.relist(onEvent);
  assertEquals(runtime.statusCalls, ["u2"]);
  assertEquals(events, [{ uid: "u2", type: "PodSync" }]);
});

Deno.test("pleg stamps cached statuses with the time before the fetch", async () => {
  const { clock, runtime, pleg, onEvent, cache } = setup();
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "ready"]] })];
  await pleg.relist(onEvent);
  assertEquals(cache.get("u1")?.timestamp, clock.now());
});

Deno.test("pleg keeps the previous pod IPs once the sandbox is no longer ready", async () => {
  const { runtime, pleg, onEvent, cache } = setup();
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "ready"]] })];
  runtime.ips.set("u1", ["10.88.0.5"]);
  await pleg.relist(onEvent);
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "notready"]] })];
  runtime.ips.delete("u1");
  await pleg.relist(onEvent);
  assertEquals(cache.get("u1")?.ips, ["10.88.0.5"]);
});

Deno.test("pleg wakes getNewerThan waiters after a relist, also for pods it does not know", async () => {
  const { clock, runtime, pleg, onEvent, cache } = setup();
  runtime.pods = [runningPod("u1", { sandboxes: [["s1", "ready"]] })];
  await clock.advance(10);
  const minTime = clock.now();
  const known = cache.getNewerThan("u1", minTime);
  const unknown = cache.getNewerThan("nobody", minTime);
  await pleg.relist(onEvent);
  assertEquals((await known).sandboxes.map((s) => s.id), ["s1"]);
  const empty = await unknown;
  assertEquals([empty.uid, empty.containers, empty.timestamp], ["nobody", [], minTime]);
});

Deno.test("pleg emits events only after the cache and its global timestamp are updated", async () => {
  const { clock, runtime, pleg, cache } = setup();
  runtime.pods = [runningPod("u1", { containers: [["c1", "running"]] })];
  const seen: [number | undefined, number][] = [];
  await pleg.relist(() => seen.push([cache.get("u1")?.timestamp, cache.globalTimestamp]));
  assertEquals(seen, [[clock.now(), clock.now()]]);
});

Deno.test("pleg healthy() follows the last successful relist", async () => {
  const { clock, runtime, pleg, onEvent, relists } = setup({ relistThresholdMs: 180_000 });
  assertEquals(pleg.healthy(), { ok: false, message: "pleg has yet to be successful" });
  await pleg.relist(onEvent);
  assertEquals(pleg.healthy(), { ok: true });
  runtime.failList = true;
  await clock.advance(180_000);
  await pleg.relist(onEvent);
  assertEquals(pleg.healthy().ok, true, "exactly at the threshold is still healthy");
  await clock.advance(500);
  assertEquals(pleg.healthy(), {
    ok: false,
    message: "pleg was last seen active 3m0.5s ago; threshold is 3m0s",
  });
  assertEquals(relists.map((r) => r.err !== undefined), [false, true]);
  runtime.failList = false;
  await pleg.relist(onEvent);
  assertEquals(pleg.healthy(), { ok: true });
});

Deno.test("pleg run relists every period until aborted and leaves no timer behind", async () => {
  const { clock, runtime, pleg, onEvent } = setup();
  const ac = new AbortController();
  const done = pleg.run(onEvent, { signal: ac.signal });
  await clock.advance(0);
  assertEquals(runtime.listCalls, 1);
  await clock.advance(999);
  assertEquals(runtime.listCalls, 1);
  await clock.advance(1);
  assertEquals(runtime.listCalls, 2);
  await clock.advance(3000);
  assertEquals(runtime.listCalls, 5);
  ac.abort();
  await done;
  assertEquals(clock.pendingTimers, 0);
});

Deno.test("pleg requestRelist relists 50 ms later instead of at the period, folding requests", async () => {
  const { clock, runtime, pleg, onEvent } = setup();
  const ac = new AbortController();
  const done = pleg.run(onEvent, { signal: ac.signal });
  await clock.advance(0);
  assertEquals(runtime.listCalls, 1);
  await clock.advance(100);
  pleg.requestRelist();
  pleg.requestRelist();
  await clock.advance(49);
  assertEquals(runtime.listCalls, 1);
  await clock.advance(1);
  assertEquals(runtime.listCalls, 2, "one early relist for both requests");
  // The next one comes a full period after the early relist.
  await clock.advance(999);
  assertEquals(runtime.listCalls, 2);
  await clock.advance(1);
  assertEquals(runtime.listCalls, 3);
  ac.abort();
  await done;
  assertEquals(clock.pendingTimers, 0);
});

Deno.test("pleg logs a relist failure that repeats every second once, not per relist", async () => {
  const clock = new FakeClock();
  const runtime = new FakePodRuntime(clock);
  const lines: string[] = [];
  const pleg = createPleg({
    runtime,
    cache: createPodStatusCache({ clock }),
    clock,
    logger: createLogger({ write: (l) => lines.push(l), now: () => clock.now() }),
  });
  runtime.failList = true;
  for (let i = 0; i < 60; i++) {
    await pleg.relist(() => {});
    await clock.advance(1000);
  }
  assertEquals(lines.filter((l) => l.includes("unable to list pods")).length, 1);
  runtime.failList = false;
  await pleg.relist(() => {});
  runtime.failList = true;
  await pleg.relist(() => {});
  assertEquals(
    lines.filter((l) => l.includes("unable to list pods")).length,
    2,
    "a new outage after a success is logged again",
  );
});

/** A runtime event stream the test drives: open() calls, ready(), emit(), fail(). */
class FakeEventStream {
  opened = 0;
  #onEvent?: (e: { containerId: string }) => void;
  #onReady?: () => void;
  #reject?: (err: unknown) => void;
  readonly events = (
    onEvent: (e: { containerId: string }) => void,
    opts: { signal: AbortSignal; onReady?: () => void },
  ): Promise<void> => {
    this.opened++;
    this.#onEvent = onEvent;
    this.#onReady = opts.onReady;
    return new Promise((resolve, reject) => {
      this.#reject = reject;
      opts.signal.addEventListener("abort", () => resolve(), { once: true });
    });
  };
  ready = () => this.#onReady!();
  emit = (containerId: string) => this.#onEvent!({ containerId });
  fail = (err: unknown) => this.#reject!(err);
}

function eventedSetup() {
  const stream = new FakeEventStream();
  const clock = new FakeClock();
  const runtime = new FakePodRuntime(clock);
  const cache = createPodStatusCache({ clock });
  const pleg = createPleg({
    runtime,
    cache,
    clock,
    logger: nullLogger,
    events: stream.events,
  });
  const ac = new AbortController();
  const done = pleg.run(() => {}, { signal: ac.signal });
  /** Aborts the PLEG and waits until it has stopped. */
  const stop = () => {
    ac.abort();
    return done;
  };
  return { stream, clock, runtime, pleg, cache, stop };
}

Deno.test("evented pleg: the cache moves on every 5 s without a relist, so a pod's resync is not held for minutes", async () => {
  const { stream, clock, runtime, cache, stop } = eventedSetup();
  await clock.advance(0);
  stream.ready();
  await clock.advance(0);
  await clock.advance(50);
  const lists = runtime.listCalls;
  assertEquals(lists, 2, "the first relist and the one when the stream came up");
  // A pod worker that synced just now waits for a status newer than its sync.
  let got = false;
  const waiting = cache.getNewerThan("pod-a", clock.now() + 1).then(() => (got = true));
  await clock.advance(4_000);
  assertEquals(got, false);
  await clock.advance(1_100);
  assertEquals(got, true, "released by the 5 s tick");
  await waiting;
  // Not while an event's relist is still to come: the cache would claim what it has not seen.
  stream.emit("c1");
  const asked = clock.now();
  let early = false;
  const afterEvent = cache.getNewerThan("pod-a", asked + 1).then(() => (early = true));
  await clock.advance(0);
  assertEquals(early, false);
  await clock.advance(100);
  assertEquals(runtime.listCalls, lists + 1, "the event's relist");
  await clock.advance(5_000);
  assertEquals(early, true);
  await afterEvent;
  assertEquals(runtime.listCalls, lists + 1, "ticks are not relists");
  await stop();
  assertEquals(clock.pendingTimers, 0);
});

Deno.test("evented pleg: healthy for 10 min without a relist while events flow (upstream's evented threshold)", async () => {
  const { stream, clock, runtime, pleg, stop } = eventedSetup();
  await clock.advance(0);
  stream.ready();
  await clock.advance(50);
  runtime.failList = true;
  await clock.advance(4 * 60_000);
  assertEquals(pleg.healthy(), { ok: true }, "past the 3 min of a relisting PLEG");
  await clock.advance(7 * 60_000);
  assertEquals(pleg.healthy().ok, false);
  assertMatch(pleg.healthy().message ?? "", /threshold is 10m/);
  await stop();
});

Deno.test("evented pleg: events drive relists while the stream is up; a failure falls back at once", async () => {
  const { stream, clock, runtime, pleg, stop } = eventedSetup();
  await clock.advance(0);
  assertEquals([stream.opened, runtime.listCalls], [1, 1]);
  stream.ready();
  assertEquals(pleg.evented, true);
  await clock.advance(0);
  await clock.advance(50);
  assertEquals(runtime.listCalls, 2, "one relist when the stream comes up");
  // No events: no relist for minutes (the safety net is 300 s).
  await clock.advance(60_000);
  assertEquals(runtime.listCalls, 2);
  stream.emit("c1");
  stream.emit("c2");
  await clock.advance(0);
  await clock.advance(50);
  assertEquals(runtime.listCalls, 3, "events fold into one early relist");
  await clock.advance(300_000);
  assertEquals(runtime.listCalls, 4, "the safety-net relist");
  // The runtime restarts: the stream fails, relisting every second resumes at once.
  stream.fail(Object.assign(new Error("CRI GetContainerEvents failed: EOF"), { code: 14 }));
  await clock.advance(0);
  assertEquals(pleg.evented, false);
  await clock.advance(1_000);
  const afterFail = runtime.listCalls;
  await clock.advance(3_000);
  assertEquals(runtime.listCalls, afterFail + 3);
  await clock.advance(1_000);
  assertEquals(stream.opened, 2, "opened again 5 s later");
  await stop();
  assertEquals(clock.pendingTimers, 0);
});

Deno.test("evented pleg: a runtime that serves no events is relisted every second, asked again after 10 min", async () => {
  const { stream, clock, runtime, pleg, stop } = eventedSetup();
  await clock.advance(0);
  stream.fail(Object.assign(new Error("method GetContainerEvents not implemented"), { code: 12 }));
  await clock.advance(0);
  await clock.advance(10_000);
  assertEquals(pleg.evented, false);
  assertEquals(runtime.listCalls, 11);
  await clock.advance(10 * 60_000 - 10_001);
  assertEquals(stream.opened, 1);
  await clock.advance(1);
  assertEquals(stream.opened, 2);
  await stop();
  assertEquals(clock.pendingTimers, 0);
});
