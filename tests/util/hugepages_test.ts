import assert from "node:assert/strict";
import { hugePageLimits, hugePageSizeName, hugePageSizeOf } from "../../src/util/hugepages.ts";

Deno.test("huge page sizes are named as the hugetlb cgroup names them", () => {
  assert.equal(hugePageSizeName(2 * 2 ** 20), "2MB");
  assert.equal(hugePageSizeName(2 ** 30), "1GB");
  assert.equal(hugePageSizeName(64 * 1024), "64KB");
  assert.equal(hugePageSizeName(32 * 2 ** 20), "32MB");
  assert.equal(hugePageSizeName(1025 * 2 ** 20), undefined);
  assert.equal(hugePageSizeOf("hugepages-2Mi"), 2 * 2 ** 20);
  assert.equal(hugePageSizeOf("hugepages-1Gi"), 2 ** 30);
  assert.equal(hugePageSizeOf("memory"), undefined);
});

Deno.test("hugepages-<size> entries become limits by page size; two names of one size add up", () => {
  assert.deepEqual(
    hugePageLimits({ "hugepages-2Mi": "4Mi", "hugepages-2048Ki": "2Mi", memory: "1Gi" }),
    { "2MB": 6 * 2 ** 20 },
  );
  assert.deepEqual(hugePageLimits({ "hugepages-1Gi": "2Gi" }), { "1GB": 2 * 2 ** 30 });
});
