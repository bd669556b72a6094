/**
 * The allocation manager's decisions as upstream's allocation manager makes them: a resize that
 * fits is allocated (PodResizeInProgress, ResizeStarted), one that does not is Deferred with the
 * admission's message and retried when room appears, one that never can is Infeasible, a
 * reverted one is no longer pending, and pending resizes are retried in upstream's order.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  AllocationManager,
  PodResourceState,
  ResizeConditions,
  resizeInfeasible,
  RETRY_MS,
} from "../../src/allocation/mod.ts";
import type { ObjectRef } from "../../src/events/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { quantityMilliValue } from "../../src/util/quantity.ts";

const CAPACITY_MILLI = 2000;

function pod(name: string, cpu: string, opts: { priority?: number; generation?: number } = {}) {
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}`, generation: opts.generation ?? 1 },
    spec: {
      priority: opts.priority,
      containers: [{
        name: "app",
        image: "busybox",
        resources: { requests: { cpu, memory: "64Mi" }, limits: { cpu, memory: "64Mi" } },
      }],
    },
  } as V1Pod;
}

const milli = (p: V1Pod) =>
  (p.spec?.containers ?? []).reduce(
    (n, c) => n + quantityMilliValue(String(c.resources?.requests?.cpu ?? "0")),
    0,
  );

function setup() {
  const clock = new FakeClock();
  const pods = new Map<string, V1Pod>();
  const synced: string[] = [];
  const events: { reason: string; type: string; message: string; ref: ObjectRef }[] = [];
  const conditions = new ResizeConditions(clock);
  const manager = new AllocationManager({
    state: PodResourceState.inMemory(),
    conditions,
    // The predicate's resource check: cpu against a 2-core node.
    admit: (p, others) => {
      const used = others.reduce((n, o) => n + milli(o), 0);
      return milli(p) > CAPACITY_MILLI - used
        ? {
          admit: false,
          reason: "OutOfcpu",
          message: `Node didn't have enough resource: cpu, requested: ${
            milli(p)
          }, used: ${used}, capacity: ${CAPACITY_MILLI}`,
        }
        : { admit: true };
    },
    infeasible: (desired, allocated) =>
      resizeInfeasible(desired, allocated, {
        podLevel: true,
        podRequests: (p) => ({ cpuMilli: milli(p), memoryBytes: 0 }),
        allocatable: () => ({ cpuMilli: CAPACITY_MILLI, memoryBytes: 2 ** 32 }),
      }),
    podRequests: (p) => ({ cpuMilli: milli(p), memoryBytes: 0 }),
    activePods: () => [...pods.values()],
    podByUid: (uid) => pods.get(uid),
    sourcesReady: () => true,
    syncPod: (p) => synced.push(p.metadata!.name!),
    podLevel: true,
    events: { event: (ref, type, reason, message) => events.push({ ref, type, reason, message }) },
    clock,
    logger: nullLogger,
  });
  const add = (p: V1Pod) => {
    const verdict = manager.addPod(p, [...pods.values()]);
    if (verdict.admit) pods.set(p.metadata!.uid!, p);
    return verdict;
  };
  /** The source sends a new spec of a running pod. */
  const update = (p: V1Pod) => {
    const old = pods.get(p.metadata!.uid!);
    pods.set(p.metadata!.uid!, p);
    manager.podUpdated(old, p);
  };
  return { clock, manager, conditions, synced, events, add, update, pods };
}

const cpuOf = (p: V1Pod) => p.spec!.containers[0].resources!.requests!.cpu;

Deno.test("a resize that fits is allocated and shown in progress, with ResizeStarted", () => {
  const t = setup();
  assert.equal(t.add(pod("a", "500m")).admit, true);
  t.update(pod("a", "1", { generation: 2 }));
  assert.equal(cpuOf(t.manager.fromAllocation(t.pods.get("uid-a")!).pod), "1");
  assert.deepEqual(t.synced, ["a"]);
  const [c] = t.conditions.list("uid-a");
  assert.equal(c.type, "PodResizeInProgress");
  assert.equal(c.status, "True");
  assert.equal(c.observedGeneration, 2);
  assert.equal(c.reason, undefined);
  assert.equal(t.events.length, 1);
  assert.equal(t.events[0].reason, "ResizeStarted");
  assert.equal(t.events[0].type, "Normal");
  assert.equal(
    t.events[0].message,
    'Pod resize started: {"containers":[{"name":"app","resources":{"limits":{"cpu":"1",' +
      '"memory":"64Mi"},"requests":{"cpu":"1","memory":"64Mi"}}}],"generation":2}',
  );
});

Deno.test("a resize that does not fit now is Deferred with the admission's message, then retried", () => {
  const t = setup();
  t.add(pod("a", "500m"));
  t.add(pod("b", "1"));
  t.update(pod("a", "1500m", { generation: 2 }));
  // Still the old allocation; others are admitted against it.
  assert.equal(cpuOf(t.manager.fromAllocation(t.pods.get("uid-a")!).pod), "500m");
  const [pending] = t.conditions.list("uid-a");
  assert.equal(pending.type, "PodResizePending");
  assert.equal(pending.reason, "Deferred");
  assert.equal(
    pending.message,
    "Node didn't have enough resource: cpu, requested: 1500, used: 1000, capacity: 2000",
  );
  assert.equal(pending.observedGeneration, 2);
  assert.deepEqual(t.events.map((e) => [e.type, e.reason]), [["Warning", "ResizeDeferred"]]);
  assert.match(
    t.events[0].message,
    /^Pod resize Deferred: \{.*"generation":2,"error":"Node didn't/,
  );
  assert.ok(t.manager.hasPendingResizes());

  // Nothing changes at the periodic retry while b runs.
  t.clock.stepWall(0);
  t.manager.tick();
  assert.equal(t.conditions.isDeferred("uid-a"), true);

  // b goes: the resize is retried at once and allocated.
  t.pods.delete("uid-b");
  t.manager.removePod("uid-b");
  assert.equal(cpuOf(t.manager.fromAllocation(t.pods.get("uid-a")!).pod), "1500m");
  assert.deepEqual(t.conditions.list("uid-a").map((c) => c.type), ["PodResizeInProgress"]);
  assert.ok(!t.manager.hasPendingResizes());
});

Deno.test("a resize beyond what the node has is Infeasible and not retried", async () => {
  const t = setup();
  t.add(pod("a", "500m"));
  t.update(pod("a", "3", { generation: 3 }));
  const [pending] = t.conditions.list("uid-a");
  assert.equal(pending.reason, "Infeasible");
  assert.equal(
    pending.message,
    "Node didn't have enough capacity: cpu, requested: 3000, capacity: 2000",
  );
  assert.deepEqual(t.events.map((e) => e.reason), ["ResizeInfeasible"]);
  assert.ok(!t.manager.hasPendingResizes());
  await t.clock.advance(RETRY_MS);
  t.manager.tick();
  assert.equal(t.events.length, 1);
});

Deno.test("a reverted resize is no longer pending", () => {
  const t = setup();
  t.add(pod("a", "500m"));
  t.add(pod("b", "1500m"));
  t.update(pod("a", "1", { generation: 2 }));
  assert.equal(t.conditions.isDeferred("uid-a"), true);
  t.update(pod("a", "500m", { generation: 3 }));
  assert.deepEqual(t.conditions.list("uid-a"), []);
});

Deno.test("pending resizes are retried in upstream's order: no increase, priority, QoS, age", async () => {
  const t = setup();
  t.add(pod("full", "1800m"));
  t.add(pod("newer", "50m"));
  t.add(pod("high", "50m", { priority: 10 }));
  t.add(pod("older", "50m"));
  t.update(pod("older", "500m"));
  await t.clock.advance(1000);
  t.update(pod("newer", "500m"));
  t.update(pod("high", "500m", { priority: 10 }));
  assert.ok(["uid-older", "uid-newer", "uid-high"].every((u) => t.conditions.isDeferred(u)));
  const allocated = (name: string) =>
    cpuOf(t.manager.fromAllocation(t.pods.get(`uid-${name}`)!).pod);
  // The big pod shrinks (a resize asking for no more goes first): room for one of the others,
  // and the highest priority gets it, though it waited least.
  t.synced.length = 0;
  t.update(pod("full", "1000m"));
  assert.deepEqual(t.synced.slice(0, 2), ["full", "high"]);
  assert.deepEqual(["full", "high", "newer", "older"].map(allocated), [
    "1000m",
    "500m",
    "50m",
    "50m",
  ]);
  // Same priority and QoS: the one pending longest goes first.
  t.update(pod("high", "50m", { priority: 10 }));
  assert.deepEqual(["newer", "older"].map(allocated), ["50m", "500m"]);
});

Deno.test("resize conditions: generation kept while in progress, transition time moves with the reason", async () => {
  const clock = new FakeClock();
  const c = new ResizeConditions(clock);
  assert.ok(c.setPending("u", "OutOfcpu", "m1", 2));
  const first = c.pending("u")!;
  assert.equal(first.reason, "Deferred", "every reason but Infeasible is Deferred");
  await clock.advance(5000);
  assert.ok(!c.setPending("u", "OutOfmemory", "m2", 2), "same reason and generation");
  assert.equal(c.pending("u")!.lastTransitionTime, first.lastTransitionTime);
  assert.equal(c.pending("u")!.message, "m2");
  assert.ok(c.setPending("u", "Infeasible", "m3", 2));
  assert.notEqual(c.pending("u")!.lastTransitionTime, first.lastTransitionTime);

  assert.deepEqual(c.setInProgress("u", "", "", 4), { generation: 4, changed: true });
  assert.deepEqual(c.setInProgress("u", "Error", "boom", 5), { generation: 4, changed: true });
  assert.deepEqual(c.setInProgress("u", "", "", 6), { generation: 4, changed: false });
  assert.equal(c.list("u")[1].reason, "Error", "kept when none is given");
  assert.deepEqual(c.clearInProgress("u"), { generation: 4, cleared: true });
  assert.deepEqual(c.list("u").map((x) => x.type), ["PodResizePending"]);
});
