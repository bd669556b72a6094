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
