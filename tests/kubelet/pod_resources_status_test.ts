/**
 * Pod-level status.resources and status.allocatedResources as upstream reports them with
 * InPlacePodLevelResourcesVerticalScaling on: what the pod asks for before it runs, what its
 * cgroup holds while it runs (the previous status's where the cgroup says nothing).
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  podAllocatedResources,
  podStatusResources,
} from "../../src/kubelet/_pod_resources_status.ts";

const pod: V1Pod = {
  metadata: { name: "p", namespace: "default", uid: "u" },
  spec: {
    containers: [
      {
        name: "a",
        image: "x",
        resources: {
          requests: { cpu: "250m", memory: "64Mi" },
          limits: { cpu: "500m", memory: "128Mi" },
        },
      },
      { name: "b", image: "x", resources: { requests: { cpu: "250m", memory: "64Mi" } } },
    ],
  },
};

Deno.test("pod status resources: what is allocated, before the pod runs", () => {
  assert.deepEqual(podAllocatedResources(pod), { cpu: "500m", memory: "128Mi" });
  assert.deepEqual(podStatusResources(pod, { running: false }), {
    requests: { cpu: "500m", memory: "128Mi" },
    limits: { cpu: "500m", memory: "128Mi" },
  });
});

Deno.test("pod status resources: what the cgroup holds while it runs", () => {
  // One container without limits: the pod cgroup has none (quota -1, no memory limit).
  assert.deepEqual(
    podStatusResources(pod, {
      running: true,
      cgroup: { cpuShares: 512, cpuQuota: -1, cpuPeriod: 100000 },
    }),
    { requests: { cpu: "500m", memory: "128Mi" }, limits: {} },
  );
  // A resize applied: the cgroup's values; what it does not say comes from the last status.
  assert.deepEqual(
    podStatusResources(pod, {
      running: true,
      cgroup: { cpuShares: 1024, cpuQuota: 150000, cpuPeriod: 100000, memoryLimitBytes: 2 ** 28 },
      old: { limits: { memory: "1Gi" } },
    }),
    { requests: { cpu: "1", memory: "128Mi" }, limits: { cpu: "1500m", memory: "256Mi" } },
  );
  assert.deepEqual(
    podStatusResources(pod, {
      running: true,
      old: { requests: { cpu: "300m" }, limits: { memory: "1Gi" } },
    }),
    { requests: { cpu: "300m", memory: "128Mi" }, limits: { memory: "1Gi" } },
  );
});
