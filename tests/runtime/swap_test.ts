/** Containers' swap settings (configureContainerSwapResources, GetContainerSwapBehavior). */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { linuxResources, type SwapSettings } from "../../src/runtime/_resources.ts";

const GI = 2 ** 30;
const MI = 2 ** 20;

function pod(containers: V1Container[], extra: Partial<V1Pod> = {}): V1Pod {
  return {
    metadata: { name: "p", annotations: { "kubernetes.io/config.source": "api" } },
    spec: { containers },
    ...extra,
  };
}

const burstable: V1Container = {
  name: "b",
  resources: { requests: { memory: "1Gi" }, limits: { memory: "2Gi" } },
};
const node = (behavior: string, controller = true): SwapSettings => ({
  behavior,
  controller,
  capacityBytes: 4 * GI,
  memoryBytes: 16 * GI,
});

Deno.test("cgroup v1 NoSwap: the memory+swap limit is the memory limit (no swap beyond it)", () => {
  const r = linuxResources(burstable, { pod: pod([burstable]), cgroupVersion: 1, swap: node("") });
  assert.equal(r.memorySwapLimitInBytes, 2 * GI);
  assert.equal(r.unified, undefined);
  // Without a memory limit there is nothing to tie it to.
  const free: V1Container = { name: "f" };
  assert.equal(
    linuxResources(free, { pod: pod([free]), cgroupVersion: 1, swap: node("") })
      .memorySwapLimitInBytes,
    undefined,
  );
});

Deno.test("cgroup v2 NoSwap: memory.swap.max=0 for every container", () => {
  for (const behavior of ["", "NoSwap"]) {
    const r = linuxResources(burstable, {
      pod: pod([burstable]),
      cgroupVersion: 2,
      swap: node(behavior),
    });
    assert.equal(r.unified?.["memory.swap.max"], "0", behavior);
    assert.equal(r.unified?.["memory.oom.group"], "1");
    assert.equal(r.memorySwapLimitInBytes, undefined);
  }
});

Deno.test("LimitedSwap on v2: a Burstable container's share of swap by its memory request", () => {
  const r = linuxResources(burstable, {
    pod: pod([burstable]),
    cgroupVersion: 2,
    swap: node("LimitedSwap"),
  });
  // 1Gi of 16Gi memory: a sixteenth of 4Gi swap.
  assert.equal(r.unified?.["memory.swap.max"], `${256 * MI}`);
});

Deno.test("LimitedSwap gives none to Guaranteed, BestEffort, critical pods and request=limit", () => {
  const swap = node("LimitedSwap");
  const opts = { cgroupVersion: 2 as const, swap };
  const g: V1Container = {
    name: "g",
    resources: { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } },
  };
  assert.equal(linuxResources(g, { ...opts, pod: pod([g]) }).unified?.["memory.swap.max"], "0");
  const be: V1Container = { name: "be" };
  assert.equal(linuxResources(be, { ...opts, pod: pod([be]) }).unified?.["memory.swap.max"], "0");
  // A Burstable pod's container without a memory request, or with request = limit.
  const cpuOnly: V1Container = { name: "c", resources: { requests: { cpu: "1" } } };
  assert.equal(
    linuxResources(cpuOnly, { ...opts, pod: pod([cpuOnly]) }).unified?.["memory.swap.max"],
    "0",
  );
  const equal: V1Container = {
    name: "e",
    resources: { requests: { memory: "1Gi" }, limits: { memory: "1Gi" } },
  };
  assert.equal(
    linuxResources(equal, { ...opts, pod: pod([equal, cpuOnly]) }).unified?.["memory.swap.max"],
    "0",
  );
  const critical = pod([burstable], {
    metadata: { name: "s", annotations: { "kubernetes.io/config.source": "file" } },
  });
  assert.equal(
    linuxResources(burstable, { ...opts, pod: critical }).unified?.["memory.swap.max"],
    "0",
  );
  const high = pod([burstable]);
  high.spec!.priority = 2_000_000_000;
  assert.equal(linuxResources(burstable, { ...opts, pod: high }).unified?.["memory.swap.max"], "0");
});

Deno.test("no swap controller, or no settings: nothing about swap is sent", () => {
  for (const swap of [node("", false), undefined]) {
    for (const cgroupVersion of [1, 2] as const) {
      const r = linuxResources(burstable, { pod: pod([burstable]), cgroupVersion, swap });
      assert.equal(r.memorySwapLimitInBytes, undefined);
      assert.equal(r.unified?.["memory.swap.max"], undefined);
    }
  }
});
