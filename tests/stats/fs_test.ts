import assert from "node:assert/strict";
import { dirUsage } from "../../src/stats/_fs.ts";

Deno.test("dirUsage counts inodes and allocated bytes like du: hard links once, symlinks not followed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "denolet-du-" });
  try {
    await Deno.mkdir(`${dir}/sub/deeper`, { recursive: true });
    await Deno.writeFile(`${dir}/a`, new Uint8Array(10_000).fill(1));
    await Deno.writeFile(`${dir}/sub/deeper/b`, new Uint8Array(5_000).fill(1));
    await Deno.link(`${dir}/a`, `${dir}/sub/a-link`);
    await Deno.symlink("/etc", `${dir}/etc-link`);
    const blocks = (p: string) => (Deno.lstatSync(p).blocks ?? 0) * 512;
    const expected = [dir, `${dir}/sub`, `${dir}/sub/deeper`, `${dir}/a`, `${dir}/sub/deeper/b`]
      .reduce((n, p) => n + blocks(p), blocks(`${dir}/etc-link`));
    assert.deepEqual(await dirUsage(dir), { usedBytes: expected, inodesUsed: 6 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("dirUsage of a missing directory is zero; a large tree yields to the event loop", async () => {
  assert.deepEqual(await dirUsage("/nonexistent/denolet"), { usedBytes: 0, inodesUsed: 0 });
  const dir = await Deno.makeTempDir({ prefix: "denolet-du-" });
  try {
    for (let i = 0; i < 600; i++) await Deno.writeTextFile(`${dir}/f${i}`, "x");
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const usage = await dirUsage(dir);
    clearInterval(ticker);
    assert.equal(usage.inodesUsed, 601);
    assert.ok(turns > 0, "timers ran during the walk");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
