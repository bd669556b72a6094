import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import {
  containerOOMScoreAdj,
  linuxResources,
  milliCPUToQuota,
  milliCPUToShares,
} from "../../src/runtime/_resources.ts";
import { podQOS } from "../../src/runtime/mod.ts";

Deno.test("cpu shares and quota use the upstream formulas", () => {
  assert.equal(milliCPUToShares(100), 102);
  assert.equal(milliCPUToShares(2000), 2048);
  assert.equal(milliCPUToShares(0), 2);
  assert.equal(milliCPUToShares(1), 2);
  assert.equal(milliCPUToShares(10_000_000), 262144);
  assert.equal(milliCPUToQuota(100, 100000), 10000);
  assert.equal(milliCPUToQuota(0, 100000), 0);
  assert.equal(milliCPUToQuota(5, 100000), 1000);
  assert.equal(milliCPUToQuota(2500, 100000), 250000);
});

const c = (resources: V1Container["resources"], name = "c"): V1Container => ({ name, resources });

Deno.test("linuxResources maps requests and limits", () => {
  assert.deepEqual(
    linuxResources(c({ requests: { cpu: "100m" }, limits: { cpu: "100m", memory: "64Mi" } })),
    {
      cpuPeriod: 100000,
      cpuQuota: 10000,
      cpuShares: 102,
      memoryLimitInBytes: 64 * 2 ** 20,
    },
  );
  // Request falls back to the limit.
  assert.deepEqual(linuxResources(c({ limits: { cpu: "2" } })), {
    cpuPeriod: 100000,
    cpuQuota: 200000,
    cpuShares: 2048,
  });
  // Nothing set: minimum shares, no quota, no memory limit.
  assert.deepEqual(linuxResources(c(undefined)), { cpuPeriod: 100000, cpuQuota: 0, cpuShares: 2 });
  // YAML numbers are accepted.
  assert.equal(linuxResources(c({ requests: { cpu: 1 as unknown as string } })).cpuShares, 1024);
});

Deno.test("linuxResources rejects bad and negative quantities naming the field", () => {
  assert.throws(
    () => linuxResources(c({ limits: { memory: "lots" } }, "web")),
    /containers\[web\]\.resources\.limits\.memory/,
  );
  assert.throws(() => linuxResources(c({ requests: { cpu: "-1" } })), /must not be negative/);
});

function podWith(...containers: V1Container[]): V1Pod {
  return { metadata: { name: "p", namespace: "d", uid: "u" }, spec: { containers } };
}

Deno.test("podQOS classifies pods as upstream", () => {
  assert.equal(podQOS(podWith(c(undefined))), "BestEffort");
  assert.equal(podQOS(podWith(c({ limits: { cpu: "1", memory: "1Gi" } }))), "Guaranteed");
  assert.equal(
    podQOS(
      podWith(c({ limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "1", memory: "1Gi" } })),
    ),
    "Guaranteed",
  );
  assert.equal(
    podQOS(podWith(c({ limits: { cpu: "1", memory: "1Gi" }, requests: { cpu: "500m" } }))),
    "Burstable",
  );
  assert.equal(podQOS(podWith(c({ limits: { cpu: "1" } }))), "Burstable");
  assert.equal(
    podQOS(podWith(c({ limits: { cpu: "1", memory: "1Gi" } }), c(undefined, "b"))),
    "Burstable",
  );
});

Deno.test("oomScoreAdj follows the QoS policy", () => {
  const cap = 10 * 2 ** 30;
  const guaranteed = c({ limits: { cpu: "1", memory: "1Gi" } });
  assert.equal(containerOOMScoreAdj(podWith(guaranteed), guaranteed, cap), -997);
  const best = c(undefined);
  assert.equal(containerOOMScoreAdj(podWith(best), best, cap), 1000);
  const burst = c({ requests: { memory: "1Gi" } });
  assert.equal(containerOOMScoreAdj(podWith(burst), burst, cap), 900);
  const tiny = c({ requests: { cpu: "1m" } });
  assert.equal(containerOOMScoreAdj(podWith(tiny), tiny, cap), 999);
  const huge = c({ requests: { memory: "10Gi" } });
  assert.equal(containerOOMScoreAdj(podWith(huge), huge, cap), 3);
  const critical = podWith(best);
  critical.spec!.priorityClassName = "system-node-critical";
  assert.equal(containerOOMScoreAdj(critical, best, cap), -997);
  assert.equal(
    linuxResources(burst, { pod: podWith(burst), memoryCapacityBytes: cap }).oomScoreAdj,
    900,
  );
});

Deno.test("an explicit zero request is used; only an absent one falls back to the limit", () => {
  const zero = { name: "z", resources: { requests: { cpu: "0" }, limits: { cpu: "2" } } };
  assert.equal(linuxResources(zero).cpuShares, 2);
  const absent = { name: "a", resources: { limits: { cpu: "2" } } };
  assert.equal(linuxResources(absent).cpuShares, 2048);
  // Memory the same way: a 0 request with a limit is the weakest Burstable score, not -997+.
  const cap = 8 * 2 ** 30;
  const mem = { name: "m", resources: { requests: { memory: "0" }, limits: { memory: "4Gi" } } };
  assert.equal(containerOOMScoreAdj(podWith(mem), mem, cap), 999);
  const memAbsent = { name: "m", resources: { limits: { memory: "4Gi" }, requests: { cpu: "1" } } };
  assert.equal(containerOOMScoreAdj(podWith(memAbsent), memAbsent, cap), 500);
});

Deno.test("cgroup v2 asks for memory.oom.group unless singleProcessOOMKill", () => {
  const c = { name: "a", resources: { limits: { memory: "128Mi" } } };
  const pod = podWith(c);
  const v2 = linuxResources(c, { pod, memoryCapacityBytes: 2 ** 33, cgroupVersion: 2 });
  assert.deepEqual(v2.unified, { "memory.oom.group": "1" });
  assert.equal(linuxResources(c, { pod, cgroupVersion: 1 }).unified, undefined);
  assert.equal(linuxResources(c, { pod }).unified, undefined, "unknown version adds nothing");
  const single = linuxResources(c, { pod, cgroupVersion: 2, singleProcessOOMKill: true });
  assert.equal(single.unified, undefined);
});

Deno.test("a sidecar's oom_score_adj is no higher than the app container with the smallest request", () => {
  const GiB = 2 ** 30;
  const cap = 8 * GiB;
  const side: V1Container = {
    name: "side",
    restartPolicy: "Always",
    resources: { requests: { memory: "64Mi" } },
  };
  const big: V1Container = { name: "big", resources: { requests: { memory: "4Gi" } } };
  const small: V1Container = { name: "small", resources: { requests: { memory: "2Gi" } } };
  const pod: V1Pod = {
    metadata: { name: "p", namespace: "d", uid: "u" },
    spec: { initContainers: [side], containers: [big, small] },
  };
  // Own 993; the smallest app request (2Gi) gives 750; big's own is 500.
  assert.equal(containerOOMScoreAdj(pod, side, cap), 750);
  assert.equal(containerOOMScoreAdj(pod, big, cap), 500);
  // A sidecar asking more than the apps keeps its own, lower score.
  const hungry = { ...side, resources: { requests: { memory: "6Gi" } } };
  const p2: V1Pod = { ...pod, spec: { initContainers: [hungry], containers: [big, small] } };
  assert.equal(containerOOMScoreAdj(p2, hungry, cap), 250);
  // A plain init container is not capped.
  const init = { name: "side", resources: { requests: { memory: "64Mi" } } };
  const p3: V1Pod = { ...pod, spec: { initContainers: [init], containers: [big] } };
  assert.equal(containerOOMScoreAdj(p3, init, cap), 993);
});
