import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { openPodCgroups } from "../../src/cm/mod.ts";
import { nullLogger } from "../../src/util/log.ts";
import { fs, v1Fixture, v2Fixture, v2fs } from "./_fixtures.ts";

const ALLOC = { cpuMilli: 2000, memoryBytes: 8 * 2 ** 30 };
const read = (p: string) => Deno.readTextFile(p).then((s) => s.trim());
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);
const CONFIG = { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs" };

function pod(uid: string, spec: Partial<V1Pod["spec"]> = {}): V1Pod {
  return {
    metadata: { uid, name: uid, namespace: "default" },
    spec: { containers: [{ name: "c" }], ...spec },
  };
}

Deno.test("--pod-max-pids: pids.max of each pod cgroup, v1 and v2", async () => {
  for (const v of [1, 2] as const) {
    const root = v === 1 ? await v1Fixture() : await v2Fixture();
    const pidsDir = v === 1 ? `${root}/pids` : root;
    try {
      const cg = await openPodCgroups(
        { ...CONFIG, mountRoot: root },
        { logger: nullLogger, fs: v === 1 ? fs : v2fs, nodeAllocatable: ALLOC, podPidsLimit: 64 },
      );
      await cg.ensure(pod("p1"));
      assert.equal(await read(`${pidsDir}/kubepods/besteffort/podp1/pids.max`), "64", `v${v}`);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
});

Deno.test("podPidsLimit -1 or 0 writes no pids.max to pod cgroups", async () => {
  for (const limit of [-1, 0]) {
    const root = await v1Fixture();
    try {
      const cg = await openPodCgroups(
        { ...CONFIG, mountRoot: root },
        { logger: nullLogger, fs, nodeAllocatable: ALLOC, podPidsLimit: limit },
      );
      await cg.ensure(pod("p1"));
      assert.ok(await exists(`${root}/pids/kubepods/besteffort/podp1`));
      assert.ok(!(await exists(`${root}/pids/kubepods/besteffort/podp1/pids.max`)), `${limit}`);
    } finally {
      await Deno.remove(root, { recursive: true });
    }
  }
});
