/** Containers' hugetlb limits in the CRI (GetHugepageLimitsFromResources). */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { linuxResources } from "../../src/runtime/_resources.ts";

const MI = 2 ** 20;
const SIZES = ["2MB", "1GB"];

Deno.test("every host page size gets a limit: the container's, else 0", () => {
  const c: V1Container = {
    name: "c",
    resources: { limits: { memory: "64Mi", "hugepages-2Mi": "6Mi" } },
  };
  assert.deepEqual(linuxResources(c, { hugePageSizes: SIZES }).hugepageLimits, [
    { pageSize: "2MB", limit: 6 * MI },
    { pageSize: "1GB", limit: 0 },
  ]);
  assert.deepEqual(linuxResources({ name: "d" }, { hugePageSizes: SIZES }).hugepageLimits, [
    { pageSize: "2MB", limit: 0 },
    { pageSize: "1GB", limit: 0 },
  ]);
  // Sizes unknown (or none on the host): nothing is sent.
  assert.equal(linuxResources(c).hugepageLimits, undefined);
  assert.equal(linuxResources(c, { hugePageSizes: [] }).hugepageLimits, undefined);
});

Deno.test("a pod-level hugepages limit applies to containers without their own", () => {
  const own: V1Container = { name: "own", resources: { limits: { "hugepages-2Mi": "2Mi" } } };
  const bare: V1Container = { name: "bare" };
  const pod: V1Pod = {
    spec: {
      resources: { limits: { memory: "1Gi", "hugepages-2Mi": "8Mi", "hugepages-1Gi": "1Gi" } },
      containers: [own, bare],
    },
  };
  assert.deepEqual(linuxResources(bare, { pod, hugePageSizes: SIZES }).hugepageLimits, [
    { pageSize: "2MB", limit: 8 * MI },
    { pageSize: "1GB", limit: 2 ** 30 },
  ]);
  assert.deepEqual(linuxResources(own, { pod, hugePageSizes: SIZES }).hugepageLimits, [
    { pageSize: "2MB", limit: 2 * MI },
    { pageSize: "1GB", limit: 2 ** 30 },
  ]);
});
