import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { createEvictionManager } from "../../src/eviction/mod.ts";
import {
  podRequest,
  rankDiskPressure,
  rankMemoryPressure,
  type StatsOf,
} from "../../src/eviction/_rank.ts";
import { admitPod } from "../../src/eviction/_admit.ts";
import { nullLogger } from "../../src/util/log.ts";
import { Gi, harness, Mi, pod, summary } from "./_fakes.ts";

function statsFrom(usage: Record<string, { mem?: number; disk?: number }>): StatsOf {
  const s = summary(0, {}, usage);
  return (p) => s.pods.find((x) => x.podRef.uid === p.metadata?.uid);
}
const names = (pods: V1Pod[]) => pods.map((p) => p.metadata?.name);

Deno.test("memory ranking: no stats, then over request, then priority, then use above request", () => {
  const pods = [
    pod({ name: "guaranteed-under", memRequest: "500Mi", memLimit: "500Mi" }),
    pod({ name: "burstable-over-small", memRequest: "100Mi" }),
    pod({ name: "besteffort-big" }),
    pod({ name: "besteffort-hi-prio", priority: 1000 }),
    pod({ name: "no-stats" }),
    pod({ name: "besteffort-small" }),
  ];
  const stats = statsFrom({
    "guaranteed-under": { mem: 400 * Mi },
    "burstable-over-small": { mem: 150 * Mi },
    "besteffort-big": { mem: 800 * Mi },
    "besteffort-hi-prio": { mem: 900 * Mi },
    "besteffort-small": { mem: 10 * Mi },
  });
  assert.deepEqual(names(rankMemoryPressure(pods, stats)), [
    "no-stats",
    "besteffort-big", // over request (0), priority 0, 800Mi above
    "burstable-over-small", // 50Mi above
    "besteffort-small", // 10Mi above
    "besteffort-hi-prio", // over request but priority 1000
    "guaranteed-under", // under its request
  ]);
});

Deno.test("disk ranking: over ephemeral-storage request first, then priority, then use", () => {
  const pods = [
    pod({ name: "requested", storageRequest: "5Gi" }),
    pod({ name: "small" }),
    pod({ name: "big" }),
  ];
  const stats = statsFrom({
    requested: { disk: 4 * Gi },
    small: { disk: 1 * Mi },
    big: { disk: 2 * Gi },
  });
  const ranked = rankDiskPressure(pods, stats, {
    parts: { root: true, logs: true, volumes: true },
    unit: "bytes",
  });
  assert.deepEqual(names(ranked), ["big", "small", "requested"]);
});

const ctx = (active: string[], evictStaticPods = true) => ({
  // deno-lint-ignore no-explicit-any
  active: active as any,
  config: { evictStaticPods },
  logger: nullLogger,
});

Deno.test("admission: no pressure admits everything", () => {
  assert.deepEqual(admitPod(pod({ name: "be" }), ctx([])), { admit: true });
});

Deno.test("admission: memory pressure refuses BestEffort only, with upstream's reason", () => {
  assert.deepEqual(admitPod(pod({ name: "be" }), ctx(["MemoryPressure"])), {
    admit: false,
    reason: "Evicted",
    message: "The node had condition: [MemoryPressure]. ",
  });
  assert.equal(
    admitPod(pod({ name: "bu", memRequest: "10Mi" }), ctx(["MemoryPressure"])).admit,
    true,
  );
  const tolerant = pod({ name: "tol" });
  tolerant.spec!.tolerations = [{
    key: "node.kubernetes.io/memory-pressure",
    operator: "Exists",
    effect: "NoSchedule",
  }];
  assert.equal(admitPod(tolerant, ctx(["MemoryPressure"])).admit, true);
});

Deno.test("admission: disk or PID pressure refuses every pod", () => {
  const bu = pod({ name: "bu", memRequest: "10Mi" });
  assert.deepEqual(admitPod(bu, ctx(["DiskPressure"])), {
    admit: false,
    reason: "Evicted",
    message: "The node had condition: [DiskPressure]. ",
  });
  assert.equal(
    admitPod(bu, ctx(["MemoryPressure", "PIDPressure"])).message,
    "The node had condition: [MemoryPressure PIDPressure]. ",
  );
});

Deno.test("admission: critical pods are admitted under any pressure", () => {
  assert.equal(admitPod(pod({ name: "crit", priority: 2e9 }), ctx(["DiskPressure"])).admit, true);
  // Upstream: every static pod is critical.
  assert.equal(admitPod(pod({ name: "static" }), ctx(["DiskPressure"], false)).admit, true);
});

Deno.test("the manager admits from the conditions of its last round", async () => {
  const h = harness({
    hard: { "memory.available": "100Mi" },
    next: (now) => summary(now, { memAvailable: 50 * Mi }),
  });
  assert.equal(h.manager.admit(pod({ name: "be" })).admit, true);
  await h.manager.synchronize();
  assert.equal(h.manager.admit(pod({ name: "be" })).admit, false);
  assert.equal(typeof createEvictionManager, "function");
});

Deno.test("pod requests for ranking: pod-level resources alone when set; overhead only on a request", () => {
  const withPodLevel: V1Pod = {
    metadata: { name: "p" },
    spec: {
      resources: { requests: { memory: "1Gi" } },
      containers: [{
        name: "c",
        resources: { requests: { memory: "100Mi", "ephemeral-storage": "1Gi" } },
      }],
      overhead: { memory: "10Mi" },
    },
  };
  assert.equal(podRequest(withPodLevel, "memory"), Gi + 10 * Mi);
  // Upstream skips the containers once the pod sets pod-level resources, for every resource.
  assert.equal(podRequest(withPodLevel, "ephemeral-storage"), 0);
  const containersOnly: V1Pod = {
    metadata: { name: "q" },
    spec: { containers: [{ name: "c" }], overhead: { memory: "10Mi" } },
  };
  assert.equal(podRequest(containersOnly, "memory"), 0);
});
