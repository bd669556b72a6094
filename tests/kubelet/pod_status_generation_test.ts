/**
 * PodObservedGenerationTracking in the computed status: the generation of the pod the kubelet
 * synced goes to `status.observedGeneration` and to the conditions the kubelet owns.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type { V1Pod, V1PodStatus } from "@kubernetes/client-node";
import { computePodStatus } from "../../src/kubelet/_pod_status.ts";
import type { RuntimePodStatus } from "../../src/runtime/types.ts";

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);

function mkPod(generation?: number, status?: V1PodStatus): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "u1", generation },
    spec: { containers: [{ name: "app", image: "busybox" }] },
    status,
  };
}

const RS: RuntimePodStatus = {
  uid: "u1",
  name: "web",
  namespace: "default",
  sandboxes: [{
    id: "sb1",
    state: "ready",
    createdAt: T0,
    attempt: 0,
    ips: ["10.88.0.7"],
    hostNetwork: false,
  }],
  containers: [{
    id: "app-0",
    name: "app",
    sandboxId: "sb1",
    state: "running",
    createdAt: T0 + 1000,
    startedAt: T0 + 2000,
    image: "busybox",
    imageRef: "sha256:beef",
    restartCount: 0,
    hash: "h",
  }],
  ips: ["10.88.0.7"],
  timestamp: T0 + 5000,
};

const compute = (pod: V1Pod) =>
  computePodStatus(pod, RS, { reasons: new Map(), now: T0 + 10_000, hostIP: "192.168.1.10" });

const generations = (s: V1PodStatus) =>
  Object.fromEntries((s.conditions ?? []).map((c) => [c.type, c.observedGeneration]));

Deno.test("pod status observes the pod's generation, in the status and the kubelet's conditions", () => {
  const scheduled = { type: "PodScheduled", status: "True", observedGeneration: 1 };
  const gate = { type: "example.com/gate", status: "True", observedGeneration: 1 };
  const s = compute(mkPod(4, { conditions: [scheduled, gate] }));
  assertEquals(s.observedGeneration, 4);
  assertEquals(generations(s), {
    // Conditions others own keep what their owners wrote.
    PodScheduled: 1,
    "example.com/gate": 1,
    PodReadyToStartContainers: 4,
    Initialized: 4,
    Ready: 4,
    ContainersReady: 4,
  });
});

Deno.test("pod status of a pod without a generation (a static pod) observes none", () => {
  const s = compute(mkPod());
  assertEquals(s.observedGeneration, undefined);
  assertEquals(
    (s.conditions ?? []).filter((c) => c.observedGeneration !== undefined),
    [],
  );
});
