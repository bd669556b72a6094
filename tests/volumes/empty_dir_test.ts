import assert from "node:assert/strict";
import { totalmem } from "node:os";
import { emptyDirMemorySize, setUpEmptyDir } from "../../src/volumes/_empty_dir.ts";
import { FakeMounter } from "./_fakes.ts";

const GiB = 2 ** 30;

Deno.test("a Memory emptyDir is sized min(node allocatable, pod memory limit, sizeLimit)", () => {
  const node = { nodeAllocatableBytes: 8 * GiB };
  assert.equal(emptyDirMemorySize(0, node), 8 * GiB);
  assert.equal(emptyDirMemorySize(0, { ...node, podLimitBytes: 1 * GiB }), 1 * GiB);
  assert.equal(emptyDirMemorySize(GiB / 2, { ...node, podLimitBytes: 1 * GiB }), GiB / 2);
  // Larger bounds than what the pod may use do not raise it.
  assert.equal(emptyDirMemorySize(4 * GiB, { ...node, podLimitBytes: 1 * GiB }), 1 * GiB);
  assert.equal(emptyDirMemorySize(16 * GiB, node), 8 * GiB);
  assert.equal(emptyDirMemorySize(0, { ...node, podLimitBytes: 16 * GiB }), 8 * GiB);
  assert.equal(emptyDirMemorySize(0), totalmem());
});

Deno.test("setUpEmptyDir mounts the tmpfs with the computed size", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const m = new FakeMounter();
    await setUpEmptyDir("v", `${dir}/a`, { medium: "Memory" }, { mounter: m });
    await setUpEmptyDir("v", `${dir}/b`, { medium: "Memory", sizeLimit: "64Mi" }, {
      mounter: m,
      memory: () => ({ nodeAllocatableBytes: 8 * GiB, podLimitBytes: 128 * 2 ** 20 }),
    });
    await setUpEmptyDir("v", `${dir}/c`, { medium: "Memory" }, {
      mounter: m,
      memory: () => ({ nodeAllocatableBytes: 8 * GiB, podLimitBytes: 128 * 2 ** 20 }),
    });
    assert.match(m.calls[0], new RegExp(`size=${totalmem()}\\b`), m.calls[0]);
    assert.match(m.calls[1], new RegExp(`size=${64 * 2 ** 20}\\b`), m.calls[1]);
    assert.match(m.calls[2], new RegExp(`size=${128 * 2 ** 20}\\b`), m.calls[2]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a HugePages emptyDir is a hugetlbfs of the page size the pod requests", async () => {
  const dir = await Deno.makeTempDir();
  const huge = (requests: Record<string, string>) => ({
    spec: { containers: [{ name: "c", resources: { requests, limits: requests } }] },
  });
  try {
    const m = new FakeMounter();
    const pod = huge({ memory: "64Mi", "hugepages-2Mi": "4Mi" });
    const r = await setUpEmptyDir("h", `${dir}/a`, { medium: "HugePages" }, { mounter: m, pod });
    assert.equal(r.medium, "HugePages");
    assert.deepEqual(m.mounted.get(`${dir}/a`), [{
      fstype: "hugetlbfs",
      options: ["pagesize=2Mi"],
    }]);
    // Set up again: the mount is kept.
    await setUpEmptyDir("h", `${dir}/a`, { medium: "HugePages" }, { mounter: m, pod });
    assert.equal(m.calls.length, 1);
    // A sized medium picks that size among several.
    const two = huge({ memory: "1Gi", "hugepages-2Mi": "4Mi", "hugepages-1Gi": "1Gi" });
    await setUpEmptyDir("h", `${dir}/b`, { medium: "HugePages-1Gi" }, { mounter: m, pod: two });
    assert.deepEqual(m.mounted.get(`${dir}/b`)?.[0].options, ["pagesize=1Gi"]);
    // Upstream's refusals.
    await assert.rejects(
      setUpEmptyDir("h", `${dir}/c`, { medium: "HugePages" }, { mounter: m, pod: two }),
      /medium: HugePages can't be used if container requests multiple huge page sizes/,
    );
    await assert.rejects(
      setUpEmptyDir("h", `${dir}/d`, { medium: "HugePages" }, { mounter: m, pod: huge({}) }),
      /medium HugePages: hugePages storage requested, but there is no resource request for huge pages/,
    );
    // Pod-level requests count too.
    const podLevel = {
      spec: {
        resources: { requests: { memory: "1Gi", "hugepages-2Mi": "2Mi" } },
        containers: [{ name: "c" }],
      },
    };
    await setUpEmptyDir("h", `${dir}/e`, { medium: "HugePages-2Mi" }, {
      mounter: m,
      pod: podLevel,
    });
    assert.deepEqual(m.mounted.get(`${dir}/e`)?.[0].options, ["pagesize=2Mi"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
