/** Pod-level resources (spec.resources) in container resources, oom_score_adj and the downward API. */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { containerOOMScoreAdj, linuxResources } from "../../src/runtime/_resources.ts";
import { resourceFieldValue } from "../../src/runtime/_downward_api.ts";

const GiB = 2 ** 30;

function pod(resources: object, containers: V1Container[], initContainers?: V1Container[]): V1Pod {
  return {
    metadata: { name: "p", uid: "u" },
    spec: { resources, containers, initContainers } as V1Pod["spec"],
  };
}

Deno.test("a container without limits runs with the pod-level limits (getCPULimit, getMemoryLimit)", () => {
  const bare: V1Container = { name: "a" };
  const own: V1Container = {
    name: "b",
    resources: { requests: { cpu: "100m" }, limits: { cpu: "500m", memory: "128Mi" } },
  };
  const p = pod({ requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "2", memory: "2Gi" } }, [
    bare,
    own,
  ]);
  // No cpu request: shares from the limit it runs with, the pod's.
  assert.deepEqual(linuxResources(bare, { pod: p, memoryCapacityBytes: 8 * GiB }), {
    cpuPeriod: 100000,
    cpuQuota: 200000,
    cpuShares: 2048,
    memoryLimitInBytes: 2 * GiB,
    oomScoreAdj: containerOOMScoreAdj(p, bare, 8 * GiB),
  });
  // Its own limits win.
  const r = linuxResources(own, { pod: p });
  assert.equal(r.cpuQuota, 50000);
  assert.equal(r.cpuShares, 102);
  assert.equal(r.memoryLimitInBytes, 128 * 2 ** 20);
  // Pod-level requests alone leave a container unlimited.
  const requestsOnly = pod({ requests: { cpu: "1", memory: "1Gi" } }, [bare]);
  const unlimited = linuxResources(bare, { pod: requestsOnly });
  assert.equal(unlimited.cpuQuota, 0);
  assert.equal(unlimited.memoryLimitInBytes, undefined);
  assert.equal(unlimited.cpuShares, 2);
});

Deno.test("oom_score_adj shares a pod-level memory request beyond the containers' among them", () => {
  const a: V1Container = { name: "a", resources: { requests: { memory: "1Gi" } } };
  const b: V1Container = { name: "b" };
  // 4Gi at pod level, 1Gi claimed: 3Gi spread over two containers.
  const p = pod({ requests: { memory: "4Gi" }, limits: { memory: "8Gi" } }, [a, b]);
  const cap = 16 * GiB;
  assert.equal(containerOOMScoreAdj(p, a, cap), 1000 - Math.floor(1000 * 2.5 * GiB / cap));
  assert.equal(containerOOMScoreAdj(p, b, cap), 1000 - Math.floor(1000 * 1.5 * GiB / cap));
});

Deno.test("downward API: an unset container limit reads the pod-level limit", () => {
  const c: V1Container = { name: "a" };
  const p = pod({ limits: { cpu: "1500m", memory: "1Gi" } }, [c]);
  const ctx = {
    nodeName: "n",
    field: "env[E]",
    nodeAllocatable: { cpuMilli: 4000, memoryBytes: 8 * GiB },
  };
  assert.equal(resourceFieldValue(p, c, { resource: "limits.cpu", divisor: "1m" }, ctx), "1500");
  assert.equal(resourceFieldValue(p, c, { resource: "limits.memory" }, ctx), `${GiB}`);
  const none = pod({ requests: { cpu: "1" } }, [c]);
  assert.equal(resourceFieldValue(none, c, { resource: "limits.cpu" }, ctx), "4");
});
