import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { CgroupError, type CgroupFs, openPodCgroups } from "../../src/cm/mod.ts";
import { fs, v1Fixture, v2Fixture, v2fs } from "./_fixtures.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";

const ALLOC = { cpuMilli: 2000, memoryBytes: 8 * 2 ** 30 };

function pod(uid: string, cpu: [string, string], mem: [string, string]): V1Pod {
  const list = (i: 0 | 1) => {
    const out: Record<string, string> = {};
    if (cpu[i]) out.cpu = cpu[i];
    if (mem[i]) out.memory = mem[i];
    return out;
  };
  return {
    metadata: { uid, name: uid, namespace: "default" },
    spec: { containers: [{ name: "c", resources: { requests: list(0), limits: list(1) } }] },
  };
}

const read = (p: string) => Deno.readTextFile(p).then((s) => s.trim());
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test("cgroup v1: QoS cgroups and a burstable pod cgroup with upstream values", async () => {
  const root = await v1Fixture();
  try {
    const cg = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
      { logger: nullLogger, fs, nodeAllocatable: ALLOC },
    );
    const parent = await cg.ensure(pod("b1", ["250m", "500m"], ["64Mi", "128Mi"]));
    assert.equal(parent, "/kubepods/burstable/podb1");
    assert.equal(await read(`${root}/cpu,cpuacct/kubepods/cpu.shares`), "2048");
    assert.equal(await read(`${root}/memory/kubepods/memory.limit_in_bytes`), `${8 * 2 ** 30}`);
    assert.equal(await read(`${root}/cpu,cpuacct/kubepods/besteffort/cpu.shares`), "2");
    assert.equal(await read(`${root}/cpu,cpuacct/kubepods/burstable/cpu.shares`), "256");
    const pod1 = `${root}/cpu,cpuacct/kubepods/burstable/podb1`;
    assert.equal(await read(`${pod1}/cpu.shares`), "256");
    assert.equal(await read(`${pod1}/cpu.cfs_period_us`), "100000");
    assert.equal(await read(`${pod1}/cpu.cfs_quota_us`), "50000");
    assert.equal(
      await read(`${root}/memory/kubepods/burstable/podb1/memory.limit_in_bytes`),
      `${128 * 2 ** 20}`,
    );
    // Every hierarchy gets the directory, and cpuset inherits CPUs and memory nodes.
    for (const h of ["pids", "systemd", "unified"]) {
      assert.ok(await exists(`${root}/${h}/kubepods/burstable/podb1`), h);
    }
    assert.equal(await read(`${root}/cpuset/kubepods/burstable/podb1/cpuset.cpus`), "0-3");
    assert.equal(await read(`${root}/cpuset/kubepods/burstable/podb1/cpuset.mems`), "0");

    // A second burstable pod raises the burstable level's shares to the sum of requests.
    await cg.ensure(pod("b2", ["750m", ""], ["", ""]));
    assert.equal(await read(`${root}/cpu,cpuacct/kubepods/burstable/cpu.shares`), "1024");
    assert.ok(!(await exists(`${root}/cpu,cpuacct/kubepods/burstable/podb2/cpu.cfs_quota_us`)));

    // Removal takes leftover (empty) container cgroups along, in every hierarchy.
    await Deno.mkdir(`${root}/memory/kubepods/burstable/podb1/ctr1`);
    await cg.remove("b1");
    for (const h of ["cpu,cpuacct", "memory", "pids", "cpuset", "systemd", "unified"]) {
      assert.ok(!(await exists(`${root}/${h}/kubepods/burstable/podb1`)), h);
    }
    assert.equal(await read(`${root}/cpu,cpuacct/kubepods/burstable/cpu.shares`), "768");
    await cg.remove("b1"); // idempotent
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("cgroup v1: guaranteed pods sit under kubepods; orphans are cleaned up", async () => {
  const root = await v1Fixture();
  try {
    const cg = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/edge", cgroupDriver: "cgroupfs", mountRoot: root },
      { logger: nullLogger, fs, nodeAllocatable: ALLOC },
    );
    assert.equal(await cg.ensure(pod("g1", ["1", "1"], ["1Gi", "1Gi"])), "/edge/kubepods/podg1");
    assert.equal(await read(`${root}/cpu/edge/kubepods/podg1/cpu.cfs_quota_us`), "100000");
    assert.equal(await cg.ensure(pod("e1", ["", ""], ["", ""])), "/edge/kubepods/besteffort/pode1");
    assert.equal(await read(`${root}/cpu/edge/kubepods/besteffort/pode1/cpu.shares`), "2");
    const removed = await cg.cleanupOrphans(new Set(["g1"]));
    assert.deepEqual(removed, ["e1"]);
    assert.ok(await exists(`${root}/memory/edge/kubepods/podg1`));
    assert.ok(!(await exists(`${root}/memory/edge/kubepods/besteffort/pode1`)));
    // QoS-level cgroups are never taken for orphans.
    assert.ok(await exists(`${root}/memory/edge/kubepods/besteffort`));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

const HIERARCHIES = ["cpu,cpuacct", "memory", "pids", "cpuset", "systemd", "unified"];

/** A pod cgroup some other agent or runtime made under the shared kubepods tree. */
async function foreignPodCgroup(root: string, rel: string): Promise<void> {
  for (const h of HIERARCHIES) await Deno.mkdir(`${root}/${h}/${rel}`, { recursive: true });
}

const inAll = async (root: string, rel: string) =>
  (await Promise.all(HIERARCHIES.map((h) => exists(`${root}/${h}/${rel}`)))).every((x) => x);

Deno.test("orphan cleanup removes only pod cgroups this agent created, never a foreign one", async () => {
  const root = await v1Fixture();
  const lines: string[] = [];
  try {
    const cg = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
      { logger: createLogger({ write: (l) => lines.push(l) }), fs, nodeAllocatable: ALLOC },
    );
    await cg.ensure(pod("mine", ["100m", ""], ["", ""]));
    await foreignPodCgroup(root, "kubepods/burstable/podother-agent");
    await foreignPodCgroup(root, "kubepods/podother-guaranteed");
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await cg.cleanupOrphans(new Set()), i === 0 ? ["mine"] : []);
    }
    assert.ok(!(await exists(`${root}/memory/kubepods/burstable/podmine`)));
    assert.ok(await inAll(root, "kubepods/burstable/podother-agent"), "foreign burstable kept");
    assert.ok(await inAll(root, "kubepods/podother-guaranteed"), "foreign guaranteed kept");
    assert.ok(!lines.some((l) => l.includes("other")), lines.join("\n"));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("pod cgroup ownership is recorded under the root dir and survives a restart", async () => {
  const root = await v1Fixture();
  const rootDir = await Deno.makeTempDir({ prefix: "denolet-root-" });
  const open = () =>
    openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
      { logger: nullLogger, fs, nodeAllocatable: ALLOC, rootDir },
    );
  try {
    const before = await open();
    await before.ensure(pod("kept", ["", ""], ["", ""]));
    await before.ensure(pod("gone", ["", ""], ["", ""]));
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(`${rootDir}/pod-cgroups`))).map((e) => e.name).sort(),
      ["gone", "kept"],
    );
    await foreignPodCgroup(root, "kubepods/besteffort/podforeign");

    // A restarted agent: nothing in memory, the records on disk.
    const after = await open();
    assert.deepEqual(await after.cleanupOrphans(new Set(["kept"])), ["gone"]);
    assert.ok(!(await exists(`${root}/memory/kubepods/besteffort/podgone`)));
    assert.ok(!(await exists(`${rootDir}/pod-cgroups/gone`)), "the record goes with the cgroup");
    assert.ok(await exists(`${root}/memory/kubepods/besteffort/podkept`));
    assert.ok(await inAll(root, "kubepods/besteffort/podforeign"));

    // Removal with the pod drops the record too; a record without a cgroup is dropped quietly.
    await after.remove("kept");
    assert.ok(!(await exists(`${rootDir}/pod-cgroups/kept`)));
    await Deno.writeTextFile(`${rootDir}/pod-cgroups/stale`, "");
    assert.deepEqual(await (await open()).cleanupOrphans(new Set()), []);
    assert.ok(!(await exists(`${rootDir}/pod-cgroups/stale`)));
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("a pod cgroup whose ownership cannot be recorded is not created", async () => {
  const root = await v1Fixture();
  const rootDir = await Deno.makeTempDir({ prefix: "denolet-root-" });
  try {
    await Deno.writeTextFile(`${rootDir}/pod-cgroups`, "not a directory");
    const cg = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
      { logger: nullLogger, fs, nodeAllocatable: ALLOC, rootDir },
    );
    await assert.rejects(
      cg.ensure(pod("p1", ["", ""], ["", ""])),
      (e: unknown) => e instanceof CgroupError && /Cannot (record|read) pod cgroup/.test(e.message),
    );
    assert.ok(!(await exists(`${root}/memory/kubepods/besteffort/podp1`)));
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("a busy orphan is retried each round but warned about once, then every 5 minutes", async () => {
  const root = await v1Fixture();
  const clock = new FakeClock();
  const lines: string[] = [];
  let busy = true;
  const busyFs: CgroupFs = {
    ...fs,
    rmdir: (path) =>
      busy && path.endsWith("/podstuck")
        ? Promise.reject(new CgroupError(`Cannot remove ${path}: Device or resource busy`))
        : fs.rmdir(path),
  };
  try {
    const cg = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
      {
        logger: createLogger({ write: (l) => lines.push(l), now: () => clock.now() }),
        fs: busyFs,
        nodeAllocatable: ALLOC,
        clock,
      },
    );
    await cg.ensure(pod("stuck", ["", ""], ["", ""]));
    const warnings = () => lines.filter((l) => l.includes("Cannot remove orphaned pod cgroup"));
    // Housekeeping every 2 s for 6 minutes.
    for (let i = 0; i < 180; i++) {
      assert.deepEqual(await cg.cleanupOrphans(new Set()), []);
      await clock.advance(2000);
    }
    assert.equal(warnings().length, 2, warnings().join("\n"));
    assert.match(warnings()[1], /repeated=149\b/);
    busy = false;
    assert.deepEqual(await cg.cleanupOrphans(new Set()), ["stuck"]);
    assert.equal(warnings().length, 2);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("cgroup v2: detected from cgroup.controllers; delegation, cpu.weight, cpu.max, memory.max", async () => {
  const root = await v2Fixture();
  try {
    const cg = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
      { logger: nullLogger, fs: v2fs, nodeAllocatable: ALLOC },
    );
    const parent = await cg.ensure(pod("g2", ["500m", "500m"], ["256Mi", "256Mi"]));
    assert.equal(parent, "/kubepods/podg2");
    assert.equal(await read(`${root}/cgroup.subtree_control`), "memory cpu cpuset pids io hugetlb");
    assert.equal(
      await read(`${root}/kubepods/cgroup.subtree_control`),
      "cpu cpuset memory pids io hugetlb",
    );
    assert.equal(
      await read(`${root}/kubepods/cpu.weight`),
      `${1 + Math.floor((2048 - 2) * 9999 / 262142)}`,
    );
    assert.equal(await read(`${root}/kubepods/memory.max`), `${8 * 2 ** 30}`);
    assert.equal(await read(`${root}/kubepods/besteffort/cpu.weight`), "1");
    assert.equal(await read(`${root}/kubepods/podg2/cpu.max`), "50000 100000");
    assert.equal(await read(`${root}/kubepods/podg2/memory.max`), `${256 * 2 ** 20}`);
    assert.equal(
      await read(`${root}/kubepods/podg2/cpu.weight`),
      `${1 + Math.floor((512 - 2) * 9999 / 262142)}`,
    );
    await cg.remove("g2");
    assert.ok(!(await exists(`${root}/kubepods/podg2`)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("cgroups-per-qos=false gives no cgroup parent and creates nothing", async () => {
  const root = await v1Fixture();
  try {
    const cg = await openPodCgroups(
      { cgroupsPerQOS: false, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
      { logger: nullLogger, fs },
    );
    assert.equal(await cg.ensure(pod("x", ["", ""], ["", ""])), "");
    assert.ok(!(await exists(`${root}/memory/kubepods`)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("an unknown cgroup driver is refused with a clear message", async () => {
  await assert.rejects(
    openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "systemd-ish" },
      { logger: nullLogger, fs },
    ),
    (e: unknown) =>
      e instanceof ConfigError && /unknown cgroup driver.*cgroupfs or systemd/.test(e.message),
  );
});
