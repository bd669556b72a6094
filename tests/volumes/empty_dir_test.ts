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
