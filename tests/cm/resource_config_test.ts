import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { cpuMax, podCgroupName, resourceConfigForPod, sharesToWeight } from "../../src/cm/mod.ts";
import { containerOOMScoreAdj } from "../../src/runtime/mod.ts";

function res(cpu: string, memory: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (cpu) out.cpu = cpu;
  if (memory) out.memory = memory;
  return out;
}

function c(requests: [string, string], limits: [string, string], extra: Partial<V1Container> = {}) {
  return {
    name: extra.name ?? "c",
    image: "x",
    resources: { requests: res(...requests), limits: res(...limits) },
    ...extra,
  } as V1Container;
}

function pod(containers: V1Container[], initContainers: V1Container[] = []): V1Pod {
  return { metadata: { uid: "u1" }, spec: { containers, initContainers } };
}

const MI = 1024 * 1024;

// Numbers from upstream's TestResourceConfigForPod (pkg/kubelet/cm/helpers_linux_test.go).
Deno.test("resourceConfigForPod: best effort gets the minimum shares only", () => {
  assert.deepEqual(resourceConfigForPod(pod([c(["", ""], ["", ""])])), { cpuShares: 2 });
});

Deno.test("resourceConfigForPod: burstable without limits gets shares only", () => {
  assert.deepEqual(resourceConfigForPod(pod([c(["100m", "100Mi"], ["", ""])])), { cpuShares: 102 });
});

Deno.test("resourceConfigForPod: burstable with limits gets quota and memory", () => {
  assert.deepEqual(resourceConfigForPod(pod([c(["100m", "100Mi"], ["200m", "200Mi"])])), {
    cpuShares: 102,
    cpuQuota: 20000,
    cpuPeriod: 100000,
    memoryLimitBytes: 200 * MI,
  });
});

Deno.test("resourceConfigForPod: one container without limits makes the pod unlimited", () => {
  const p = pod([c(["100m", "100Mi"], ["200m", "200Mi"]), c(["100m", "100Mi"], ["", ""])]);
  assert.deepEqual(resourceConfigForPod(p), { cpuShares: 204 });
});

Deno.test("resourceConfigForPod: guaranteed gets shares, quota, period and memory", () => {
  assert.deepEqual(resourceConfigForPod(pod([c(["100m", "100Mi"], ["100m", "100Mi"])])), {
    cpuShares: 102,
    cpuQuota: 10000,
    cpuPeriod: 100000,
    memoryLimitBytes: 100 * MI,
  });
});

Deno.test("resourceConfigForPod: guaranteed without CFS enforcement and a tuned period", () => {
  const p = pod([c(["100m", "100Mi"], ["100m", "100Mi"])]);
  assert.equal(resourceConfigForPod(p, { enforceCPULimits: false }).cpuQuota, -1);
  // 5ms period: 100m of it is 500µs, raised to the 1000µs minimum.
  assert.deepEqual(resourceConfigForPod(p, { cpuPeriod: 5000 }).cpuQuota, 1000);
});

Deno.test("resourceConfigForPod: init containers count by their maximum, sidecars add up", () => {
  const init = c(["500m", "300Mi"], ["500m", "300Mi"], { name: "init" });
  const side = c(["100m", "50Mi"], ["100m", "50Mi"], { name: "side", restartPolicy: "Always" });
  const app = c(["200m", "100Mi"], ["200m", "100Mi"], { name: "app" });
  // Sidecar declared first: the init container runs beside it (600m), the app beside it (300m).
  const cfg = resourceConfigForPod(pod([app], [side, init]));
  assert.equal(cfg.cpuShares, Math.floor(600 * 1024 / 1000));
  assert.equal(cfg.cpuQuota, 60000);
  assert.equal(cfg.memoryLimitBytes, 350 * MI);
});

Deno.test("resourceConfigForPod: overhead adds to requests and to limits that exist", () => {
  const p = pod([c(["100m", "100Mi"], ["100m", "100Mi"])]);
  p.spec!.overhead = { cpu: "50m", memory: "10Mi" };
  const cfg = resourceConfigForPod(p);
  assert.equal(cfg.cpuShares, 153);
  assert.equal(cfg.cpuQuota, 15000);
  assert.equal(cfg.memoryLimitBytes, 110 * MI);
});

Deno.test("pod cgroup names follow the QoS class and the cgroup root", () => {
  assert.equal(podCgroupName(pod([c(["", ""], ["", ""])])), "/kubepods/besteffort/podu1");
  assert.equal(
    podCgroupName(pod([c(["1", ""], ["", ""])]), "/edge"),
    "/edge/kubepods/burstable/podu1",
  );
  assert.equal(podCgroupName(pod([c(["1", "1Gi"], ["1", "1Gi"])])), "/kubepods/podu1");
});

Deno.test("cgroup v2 values: cpu.weight from shares and cpu.max", () => {
  assert.equal(sharesToWeight(2), 1);
  assert.equal(sharesToWeight(1024), 39);
  assert.equal(sharesToWeight(262144), 10000);
  assert.equal(cpuMax(20000, 100000), "20000 100000");
  assert.equal(cpuMax(-1, 100000), "max 100000");
});

// pkg/kubelet/qos/policy_test.go: memory capacity 4000000000 in the upstream cases.
Deno.test("oom_score_adj per QoS by the upstream formula", () => {
  const cap = 4_000_000_000;
  const ctr = (req: string, lim = "") => c(["", req], ["", lim]);
  const be = pod([c(["", ""], ["", ""])]);
  assert.equal(containerOOMScoreAdj(be, be.spec!.containers[0], cap), 1000);
  const g = pod([c(["1", "1G"], ["1", "1G"])]);
  assert.equal(containerOOMScoreAdj(g, g.spec!.containers[0], cap), -997);
  const b = pod([ctr("2000000000", "3000000000")]);
  assert.equal(containerOOMScoreAdj(b, b.spec!.containers[0], cap), 500);
  // Requests near capacity clamp to 3 (1000 + -997); tiny requests stay below BestEffort.
  const big = pod([ctr("4000000000")]);
  assert.equal(containerOOMScoreAdj(big, big.spec!.containers[0], cap), 3);
  const tiny = pod([ctr("1")]);
  assert.equal(containerOOMScoreAdj(tiny, tiny.spec!.containers[0], cap), 999);
});

// Upstream's pod-level cases (TestResourceConfigForPod, PodLevelResources on).
Deno.test("resourceConfigForPod: pod-level requests and limits replace the containers' sums", () => {
  const withPod = (
    requests: [string, string],
    limits: [string, string],
    containers: V1Container[],
  ) =>
    ({
      metadata: { uid: "u1" },
      spec: { resources: { requests: res(...requests), limits: res(...limits) }, containers },
    }) as V1Pod;
  const bare = { name: "c", image: "x" } as V1Container;
  assert.deepEqual(resourceConfigForPod(withPod(["100m", "100Mi"], ["", ""], [bare])), {
    cpuShares: 102,
  });
  assert.deepEqual(
    resourceConfigForPod(withPod(["100m", "100Mi"], ["", ""], [c(["10m", "50Mi"], ["", ""])])),
    { cpuShares: 102 },
  );
  const burstable = {
    cpuShares: 102,
    cpuQuota: 20000,
    cpuPeriod: 100000,
    memoryLimitBytes: 200 * MI,
  };
  assert.deepEqual(
    resourceConfigForPod(withPod(["100m", "100Mi"], ["200m", "200Mi"], [bare])),
    burstable,
  );
  assert.deepEqual(
    resourceConfigForPod(
      withPod(["100m", "100Mi"], ["200m", "200Mi"], [c(["10m", "50Mi"], ["50m", "100Mi"])]),
    ),
    burstable,
  );
  // Pod-level requests only: the containers' limits stay the pod's limits.
  assert.deepEqual(
    resourceConfigForPod(
      withPod(["200m", "300Mi"], ["", ""], [c(["200m", "200Mi"], ["200m", "200Mi"])]),
    ),
    { cpuShares: 204, cpuQuota: 20000, cpuPeriod: 100000, memoryLimitBytes: 200 * MI },
  );
  const guaranteed = {
    cpuShares: 102,
    cpuQuota: 10000,
    cpuPeriod: 100000,
    memoryLimitBytes: 100 * MI,
  };
  assert.deepEqual(
    resourceConfigForPod(withPod(["100m", "100Mi"], ["100m", "100Mi"], [bare])),
    guaranteed,
  );
  const initPod = withPod(["100m", "100Mi"], ["100m", "100Mi"], [
    c(["10m", "50Mi"], ["50m", "50Mi"]),
  ]);
  initPod.spec!.initContainers = [c(["10m", "50Mi"], ["50m", "50Mi"], { name: "i" })];
  assert.deepEqual(resourceConfigForPod(initPod), guaranteed);
});
