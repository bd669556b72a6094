import assert from "node:assert/strict";
import { fsCapacity, statfs, StatfsError } from "../../src/util/statfs.ts";

Deno.test("fsCapacity turns statfs blocks into bytes", () => {
  assert.deepEqual(
    fsCapacity({ bsize: 4096, blocks: 1000, bfree: 600, bavail: 500, files: 100, ffree: 40 }),
    {
      capacityBytes: 4096_000,
      availableBytes: 2048_000,
      usedBytes: 4096 * 400,
      inodes: 100,
      inodesFree: 40,
      inodesUsed: 60,
    },
  );
});

Deno.test("statfs reads the filesystem holding a path and agrees with itself on inodes", async () => {
  const cap = await statfs(Deno.cwd());
  assert.ok(cap.capacityBytes > 0);
  assert.ok(cap.availableBytes <= cap.capacityBytes);
  assert.ok(cap.usedBytes >= 0 && cap.usedBytes <= cap.capacityBytes);
  assert.equal(cap.inodesUsed, cap.inodes - cap.inodesFree);
});

Deno.test("statfs of a missing path is a StatfsError naming it", async () => {
  await assert.rejects(() => statfs("/nonexistent/denolet-statfs"), (err) => {
    assert.ok(err instanceof StatfsError);
    assert.match(err.message, /Cannot statfs \/nonexistent\/denolet-statfs/);
    return true;
  });
  const aborted = AbortSignal.abort(new Error("stop"));
  await assert.rejects(() => statfs("/", { signal: aborted }), /stop/);
});
