import assert from "node:assert/strict";
import { condition, Gi, harness, Mi, pod, summary } from "./_fakes.ts";

const lowMemory = (avail = 50 * Mi) => (now: number) =>
  summary(now, { memAvailable: avail }, { hog: { mem: 900 * Mi }, steady: { mem: 100 * Mi } });

Deno.test("a hard memory threshold evicts one pod with upstream's status and message", async () => {
  const h = harness({
    hard: { "memory.available": "100Mi" },
    pods: [
      pod({ name: "steady", memRequest: "200Mi", memLimit: "200Mi", cpu: "100m" }),
      pod({ name: "hog" }),
    ],
    next: lowMemory(),
  });
  const evicted = await h.manager.synchronize();
  assert.equal(evicted?.metadata?.name, "hog");
  assert.equal(h.evicted.length, 1);
  const { opts } = h.evicted[0];
  assert.equal(opts.reason, "Evicted");
  assert.equal(opts.gracePeriodSeconds, 1);
  assert.equal(
    opts.message,
    "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " +
      "Container c was using 900Mi, request is 0, has larger consumption of memory. ",
  );
  assert.deepEqual(opts.condition, {
    type: "DisruptionTarget",
    status: "True",
    reason: "TerminationByKubelet",
    message: opts.message,
  });
  assert.equal(opts.annotations.offending_containers, "c");
  assert.equal(opts.annotations.starved_resource, "memory");
  assert.equal(condition(h, "MemoryPressure"), "True");
  assert.match(h.registry.render(), /kubelet_evictions\{eviction_signal="memory.available"\} 1/);
  // Memory has no node-level reclaim: no GC was attempted.
  assert.ok(!h.calls.some((c) => c.startsWith("collect")));
});

Deno.test("no threshold met: no eviction and no pressure", async () => {
  const h = harness({ hard: { "memory.available": "100Mi" }, pods: [pod({ name: "hog" })] });
  assert.equal(await h.manager.synchronize(), undefined);
  assert.deepEqual(h.manager.conditions().map((c) => [c.type, c.status, c.reason]), [
    ["MemoryPressure", "False", "KubeletHasSufficientMemory"],
    ["DiskPressure", "False", "KubeletHasNoDiskPressure"],
    ["PIDPressure", "False", "KubeletHasSufficientPID"],
  ]);
});

Deno.test("at most one pod per round; stale stats are not acted on twice", async () => {
  const h = harness({
    hard: { "memory.available": "100Mi" },
    pods: [pod({ name: "hog" }), pod({ name: "steady" })],
    // Same sample time every call: the second round sees no newer stats.
    next: () =>
      summary(0, { memAvailable: 50 * Mi }, { hog: { mem: 900 * Mi }, steady: { mem: 100 * Mi } }),
  });
  await h.manager.synchronize();
  await h.manager.synchronize();
  assert.deepEqual(h.evicted.map((e) => e.pod.metadata?.name), ["hog"]);
  h.stats.next = (now) => summary(now, { memAvailable: 50 * Mi }, { steady: { mem: 100 * Mi } });
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.deepEqual(h.evicted.map((e) => e.pod.metadata?.name), ["hog", "steady"]);
});

Deno.test("a soft threshold waits for its grace period; grace is min(max, pod's)", async () => {
  const h = harness({
    soft: { "memory.available": "1Gi" },
    softGrace: { "memory.available": "1m" },
    config: { maxPodGracePeriodSeconds: 30 },
    pods: [pod({ name: "hog", grace: 10 })],
    next: (now) => summary(now, { memAvailable: 500 * Mi }, { hog: { mem: 900 * Mi } }),
  });
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 0, "not before the grace period");
  assert.equal(condition(h, "MemoryPressure"), "True", "the condition does not wait");
  await h.clock.advance(59_000);
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 0);
  await h.clock.advance(1_000);
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 1);
  assert.equal(h.evicted[0].opts.gracePeriodSeconds, 10);
});

Deno.test("soft eviction grace is capped by --eviction-max-pod-grace-period", async () => {
  const h = harness({
    soft: { "memory.available": "1Gi" },
    softGrace: { "memory.available": "1s" },
    config: { maxPodGracePeriodSeconds: 30 },
    pods: [pod({ name: "hog", grace: 600 })],
    next: (now) => summary(now, { memAvailable: 500 * Mi }, { hog: { mem: 900 * Mi } }),
  });
  await h.manager.synchronize();
  await h.clock.advance(1_000);
  await h.manager.synchronize();
  assert.equal(h.evicted[0].opts.gracePeriodSeconds, 30);
});

Deno.test("a threshold that cleared before its grace period restarts the clock", async () => {
  const h = harness({
    soft: { "memory.available": "1Gi" },
    softGrace: { "memory.available": "1m" },
    pods: [pod({ name: "hog" })],
    next: (now) => summary(now, { memAvailable: 500 * Mi }, { hog: { mem: 900 * Mi } }),
  });
  await h.manager.synchronize();
  await h.clock.advance(40_000);
  h.stats.next = (now) => summary(now, { memAvailable: 2 * Gi }, { hog: { mem: 900 * Mi } });
  await h.manager.synchronize();
  await h.clock.advance(40_000);
  h.stats.next = (now) => summary(now, { memAvailable: 500 * Mi }, { hog: { mem: 900 * Mi } });
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 0, "80 s since first seen, but only 0 s since seen again");
});

Deno.test("pressure stays true for the transition period after the signal clears", async () => {
  const h = harness({
    hard: { "memory.available": "100Mi" },
    config: { pressureTransitionPeriodMs: 30_000 },
    next: (now) => summary(now, { memAvailable: 50 * Mi }),
  });
  await h.manager.synchronize();
  const [mem] = h.manager.conditions();
  assert.deepEqual([mem.status, mem.reason, mem.message], [
    "True",
    "KubeletHasInsufficientMemory",
    "kubelet has insufficient memory available",
  ]);
  const turnedTrue = mem.lastTransitionTime;
  h.stats.next = (now) => summary(now, { memAvailable: 4 * Gi });
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.equal(condition(h, "MemoryPressure"), "True");
  await h.clock.advance(19_000);
  await h.manager.synchronize();
  assert.equal(condition(h, "MemoryPressure"), "True", "29 s < 30 s");
  await h.clock.advance(1_000);
  await h.manager.synchronize();
  const [after] = h.manager.conditions();
  assert.equal(after.status, "False");
  assert.equal(after.lastTransitionTime, turnedTrue + 30_000);
});

Deno.test("minimum reclaim keeps evicting until the threshold is exceeded by the extra", async () => {
  const h = harness({
    hard: { "memory.available": "100Mi" },
    minReclaim: { "memory.available": "200Mi" },
    pods: [pod({ name: "a" }), pod({ name: "b" }), pod({ name: "c" })],
    next: (now) => summary(now, { memAvailable: 50 * Mi }, { a: {}, b: {}, c: {} }),
  });
  await h.manager.synchronize();
  h.stats.next = (now) => summary(now, { memAvailable: 250 * Mi }, { b: {}, c: {} });
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 2, "250Mi < 100Mi + 200Mi: still reclaiming");
  h.stats.next = (now) => summary(now, { memAvailable: 350 * Mi }, { c: {} });
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 2, "350Mi is enough");
});

Deno.test("disk pressure reclaims containers then images before evicting", async () => {
  const h = harness({
    hard: { "nodefs.available": "10%" },
    pods: [pod({ name: "writer" })],
    next: (now) => summary(now, { fsAvailable: 5 * Gi }, { writer: { disk: 3 * Gi } }),
  });
  h.stats.afterReclaim = (now) =>
    summary(now, { fsAvailable: 20 * Gi }, { writer: { disk: 3 * Gi } });
  assert.equal(await h.manager.synchronize(), undefined);
  assert.deepEqual(h.calls, [
    "summary:node",
    "collectContainers",
    "collectImages:all",
    "sampleNow",
  ]);
  assert.equal(h.evicted.length, 0, "GC freed enough");
  assert.equal(condition(h, "DiskPressure"), "True");
});

Deno.test("disk pressure that GC cannot relieve evicts the largest writer, GC first", async () => {
  const h = harness({
    hard: { "nodefs.available": "10%" },
    pods: [pod({ name: "small" }), pod({ name: "writer" })],
    next: (now) =>
      summary(now, { fsAvailable: 5 * Gi }, { writer: { disk: 3 * Gi }, small: { disk: 1 * Mi } }),
    reclaimFails: true,
  });
  const evicted = await h.manager.synchronize();
  assert.equal(evicted?.metadata?.name, "writer");
  assert.deepEqual(h.calls, [
    "summary:node",
    "collectContainers",
    "collectImages:all",
    "sampleNow",
    "summary", // pods, to rank them
    "evict:writer",
  ]);
  assert.match(
    h.evicted[0].opts.message,
    // 10% is a float32 upstream: 0.1f of 100Gi truncates to 10737418400, as the kubelet prints.
    /^The node was low on resource: ephemeral-storage\. Threshold quantity: 10737418400, available: 5Gi\. /,
  );
});

Deno.test("without sampleNow, a reclaim is judged on the next newer sample", async () => {
  const h = harness({
    hard: { "nodefs.available": "10%" },
    pods: [pod({ name: "writer" })],
    noSampleNow: true,
    next: (now) => summary(now, { fsAvailable: 5 * Gi }, { writer: { disk: 3 * Gi } }),
  });
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 0, "the sample after GC predates it: wait a round");
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 1, "a newer sample still under pressure: GC was not enough");
  assert.equal(h.calls.filter((c) => c === "collectContainers").length, 2);
});

Deno.test("without sampleNow, a reclaim that worked evicts nothing", async () => {
  const h = harness({
    hard: { "nodefs.available": "10%" },
    pods: [pod({ name: "writer" })],
    noSampleNow: true,
    next: (now) => summary(now, { fsAvailable: 5 * Gi }, { writer: { disk: 3 * Gi } }),
  });
  await h.manager.synchronize();
  h.stats.next = (now) => summary(now, { fsAvailable: 50 * Gi }, { writer: { disk: 3 * Gi } });
  await h.clock.advance(10_000);
  await h.manager.synchronize();
  assert.equal(h.evicted.length, 0);
});

Deno.test("PID pressure ranks by priority, then process count", async () => {
  const h = harness({
    hard: { "pid.available": "10%" },
    pods: [
      pod({ name: "many-hi", priority: 1000 }),
      pod({ name: "few" }),
      pod({ name: "many" }),
    ],
    next: (now) =>
      summary(now, { maxpid: 1000, curproc: 950 }, {
        "many-hi": { procs: 500 },
        few: { procs: 5 },
        many: { procs: 400 },
      }),
  });
  await h.manager.synchronize();
  assert.equal(h.evicted[0].pod.metadata?.name, "many");
  assert.match(
    h.evicted[0].opts.message,
    /^The node was low on resource: pids\. Threshold quantity: 100, available: 50\. $/,
  );
  assert.equal(condition(h, "PIDPressure"), "True");
});

Deno.test("static pods are critical unless --evict-static-pods; high priority always is", async () => {
  const upstream = harness({
    hard: { "memory.available": "100Mi" },
    config: { evictStaticPods: false },
    pods: [pod({ name: "hog" })],
    next: lowMemory(),
  });
  assert.equal(await upstream.manager.synchronize(), undefined);
  assert.equal(upstream.evicted.length, 0);
  assert.equal(condition(upstream, "MemoryPressure"), "True");

  const optIn = harness({
    hard: { "memory.available": "100Mi" },
    pods: [pod({ name: "hog", priority: 2_000_001_000 }), pod({ name: "steady" })],
    next: lowMemory(),
  });
  const evicted = await optIn.manager.synchronize();
  assert.equal(evicted?.metadata?.name, "steady", "the system-node-critical hog is skipped");

  const apiPod = harness({
    hard: { "memory.available": "100Mi" },
    config: { evictStaticPods: false },
    pods: [pod({ name: "hog", source: "api" })],
    next: lowMemory(),
  });
  assert.equal((await apiPod.manager.synchronize())?.metadata?.name, "hog");
});

Deno.test("run synchronizes every 10 s until aborted", async () => {
  const h = harness({ hard: { "memory.available": "100Mi" } });
  const ac = new AbortController();
  const done = h.manager.run({ signal: ac.signal });
  await h.clock.advance(0);
  await h.clock.advance(30_000);
  // The node's signals each round; no pods are read while no threshold is met.
  assert.deepEqual(h.calls, Array(4).fill("summary:node"));
  ac.abort();
  await done;
  assert.equal(h.clock.pendingTimers, 0);
});

Deno.test("a pod that does not die holds eviction at most 30 s, with conditions kept fresh", async () => {
  let waitAborted = false;
  const h = harness({
    hard: { "memory.available": "100Mi" },
    pods: [pod({ name: "hog" })],
    next: lowMemory(),
    config: { pressureTransitionPeriodMs: 5_000 },
    // The kill never completes; only the manager giving up ends the wait.
    evictPod: (_p, o) =>
      new Promise((_resolve, reject) => {
        o.signal?.addEventListener("abort", () => {
          waitAborted = true;
          reject(o.signal?.reason);
        }, { once: true });
      }),
  });
  let result: string | undefined = "pending";
  const round = h.manager.synchronize().then((p) => result = p?.metadata?.name);
  await h.clock.advance(0);
  assert.equal(h.evicted.length, 1);
  assert.equal(condition(h, "MemoryPressure"), "True");
  // The node recovers while the pod hangs: the condition (and so admission) follows.
  h.stats.next = (now) => summary(now, { memAvailable: 4 * Gi });
  await h.clock.advance(10_000);
  assert.equal(condition(h, "MemoryPressure"), "False");
  assert.equal(h.manager.admit(pod({ name: "new" })).admit, true);
  await h.clock.advance(15_000);
  assert.equal(result, "pending", "still waiting before the timeout");
  await h.clock.advance(5_000);
  await round;
  assert.equal(result, "hog", "the round ends after podCleanupTimeout");
  assert.ok(waitAborted, "the wait was abandoned through the signal");
  assert.equal(h.clock.pendingTimers, 0);
});
