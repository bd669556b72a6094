import assert from "node:assert/strict";
import { createCgroupStatsReader } from "../../src/stats/cadvisor/_cgroup_stats.ts";
import { CreationTimes, ownCgroup, walkCgroups } from "../../src/stats/cadvisor/_tree.ts";
import {
  BOOT_S,
  CGROUP_MTIME_S,
  CONTAINER_ID,
  CONTAINER_PID,
  POD_CGROUP,
  POD_UID,
  SANDBOX_ID,
  writeFixture,
} from "./_cadvisor_fixtures.ts";

const CONTAINER = `${POD_CGROUP}/${CONTAINER_ID}`;

Deno.test("cgroup v1: a container's CPU, memory breakdown, blkio, pids and spec", async () => {
  const dir = await writeFixture("v1");
  try {
    const r = createCgroupStatsReader(`${dir}/cgroup`, { mode: "v1" });
    const c = r.read(CONTAINER)!;
    assert.deepEqual(c.cpu, {
      totalNs: 19.5e9,
      // cpuacct.stat in USER_HZ ticks: 975 each.
      userNs: 9.75e9,
      systemNs: 9.75e9,
      periods: 40,
      throttledPeriods: 4,
      throttledNs: 500_000_000,
      // runc reads no burst counters on v1, even where the kernel has them.
      burstPeriods: 0,
      burstNs: 0,
    });
    const m = c.memory;
    // use_hierarchy=1: the total_* fields; working set = usage - total_inactive_file.
    assert.equal(m.usage, 55_000_000);
    assert.equal(m.workingSet, 50_000_000);
    assert.equal(m.cache, 5_004_096);
    assert.equal(m.rss, 55_000_000 - 5_000_000 - 4096);
    assert.equal(m.mappedFile, 8192);
    assert.equal(m.maxUsage, 56_000_000);
    assert.equal(m.failcnt, 2);
    assert.equal(m.kernel, 65536);
    assert.equal(m.inactiveFile, 5_000_000);
    assert.equal(m.activeFile, 4096);
    // pgfault is memory.stat's own field (not total_), as cAdvisor takes it.
    assert.equal(m.pgfault, 1200);
    assert.equal(m.pgmajfault, 3);
    assert.equal(m.eventsHigh, 0);
    assert.equal(c.oomKills, 1);
    assert.deepEqual(c.procs, [CONTAINER_PID, CONTAINER_PID + 1]);
    assert.equal(c.threads, 6);
    assert.equal(c.threadsMax, 0);
    // BFQ's file has no lines, so the throttle's recursive files are used.
    assert.deepEqual(
      c.io.serviceBytes.map((
        d,
      ) => [`${d.major}:${d.minor}`, d.ops.get("Read"), d.ops.get("Write")]),
      [["254:0", 4096, 8192], ["7:0", 1, 0]],
    );
    assert.equal(c.io.serviced[0].ops.get("Write"), 2);
    assert.deepEqual(c.spec, {
      hasCpu: true,
      cpuShares: 102,
      cpuPeriod: 100000,
      cpuQuota: 50000,
      hasMemory: true,
      memoryLimit: 134217728,
      memorySwapLimit: 9223372036854771712,
      memoryReservation: 9223372036854771712,
    });
    assert.equal(r.read("/kubepods")!.spec.cpuQuota, 0, "cfs_quota_us -1 is no quota");
    assert.equal(r.read(`${POD_CGROUP}/gone`), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cgroup v2: cpu.stat with bursts, memory.stat, events, io.stat, PSI and spec", async () => {
  const dir = await writeFixture("v2");
  try {
    const r = createCgroupStatsReader(`${dir}/cgroup`, {
      mode: "v2",
      procRoot: `${dir}/proc`,
      psi: true,
    });
    const c = r.read(CONTAINER)!;
    assert.deepEqual(c.cpu, {
      totalNs: 19.5e9,
      userNs: 9.75e9,
      systemNs: 9.75e9,
      periods: 10,
      throttledPeriods: 1,
      throttledNs: 2_500_000,
      burstPeriods: 1,
      burstNs: 700_000,
      psi: { some: 3_000_000, full: 1_000_000 },
    });
    const m = c.memory;
    assert.equal(m.usage, 56_000_000);
    assert.equal(m.workingSet, 56_000_000 - 7_000_000);
    assert.equal(m.rss, 28_000_000);
    assert.equal(m.cache, 14_000_000);
    assert.equal(m.maxUsage, 112_000_000, "memory.peak");
    assert.equal(m.failcnt, 0, "no failcnt on v2");
    assert.deepEqual(
      [m.eventsHigh, m.eventsMax, m.fileDirty, m.pgscan, m.pgsteal, m.refaultAnon, m.refaultFile],
      [3, 4, 8192, 5, 4, 2, 3],
    );
    // OOM kills of this cgroup's own processes: memory.events.local.
    assert.equal(c.oomKills, 2);
    assert.equal(r.read(POD_CGROUP)!.oomKills, 0);
    assert.deepEqual(c.spec, {
      hasCpu: true,
      cpuShares: 2 + Math.floor((3 * 262142) / 9999),
      cpuPeriod: 100000,
      cpuQuota: 50000,
      hasMemory: true,
      memoryLimit: 134217728,
      memorySwapLimit: 18446744073709551615,
      memoryReservation: 0,
    });
    assert.equal(c.io.serviceBytes[0].ops.get("Write"), 8192);
    assert.deepEqual(c.io.psi, { some: 0, full: 0 });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cgroup v2 root: usage is anon + file and swap comes from /proc/meminfo, as runc", async () => {
  const dir = await writeFixture("v2");
  try {
    const r = createCgroupStatsReader(`${dir}/cgroup`, { mode: "v2", procRoot: `${dir}/proc` });
    const root = r.read("/")!;
    assert.equal(root.memory.usage, 1_000_000_000 + 500_000_000);
    assert.equal(root.memory.swap, (1048576 - 524288) * 1024);
    assert.equal(root.spec.hasMemory, false, "the root has no memory.max");
    assert.equal(root.cpu.psi, undefined, "PSI only when enabled");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

for (const mode of ["v1", "v2"] as const) {
  Deno.test(`cgroup ${mode}: the walk finds root, QoS tree, the pod cgroup and its children`, async () => {
    const dir = await writeFixture(mode);
    try {
      const hierarchy = mode === "v1" ? `${dir}/cgroup/memory` : `${dir}/cgroup`;
      const entries = walkCgroups(hierarchy, { podsRoot: "/kubepods/", extra: ["/nope"] });
      assert.deepEqual(entries, [
        { name: "/", kind: "root" },
        { name: "/kubepods", kind: "raw" },
        { name: "/kubepods/burstable", kind: "raw" },
        { name: POD_CGROUP, kind: "pod", podUid: POD_UID },
        { name: `${POD_CGROUP}/${SANDBOX_ID}`, kind: "child", id: SANDBOX_ID },
        { name: `${POD_CGROUP}/${CONTAINER_ID}`, kind: "child", id: CONTAINER_ID },
      ]);
      const times = new CreationTimes(
        hierarchy,
        mode === "v1" ? "cgroup.clone_children" : "cgroup.events",
      );
      assert.equal(times.get(POD_CGROUP, BOOT_S * 1000), CGROUP_MTIME_S * 1000);
      // Never before boot.
      assert.equal(times.get("/", (CGROUP_MTIME_S + 5) * 1000), (CGROUP_MTIME_S + 5) * 1000);
      assert.equal(times.get("/kubepods/none", 0), undefined);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("systemd driver: pod slices and container scopes are found, with the pod's uid and the container's id", async () => {
  const root = await Deno.makeTempDir({ prefix: "denolet-cadvisor-systemd-" });
  try {
    const qos = "/kubepods.slice/kubepods-burstable.slice";
    const pod = `${qos}/kubepods-burstable-pod${POD_UID.replaceAll("-", "_")}.slice`;
    await Deno.mkdir(`${root}${pod}/cri-containerd-${CONTAINER_ID}.scope`, { recursive: true });
    assert.deepEqual(walkCgroups(root, { podsRoot: "/kubepods.slice" }), [
      { name: "/", kind: "root" },
      { name: "/kubepods.slice", kind: "raw" },
      { name: qos, kind: "raw" },
      { name: pod, kind: "pod", podUid: POD_UID },
      { name: `${pod}/cri-containerd-${CONTAINER_ID}.scope`, kind: "child", id: CONTAINER_ID },
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the agent's own cgroup comes from /proc/self/cgroup", async () => {
  const dir = await writeFixture("v2");
  try {
    assert.equal(ownCgroup(`${dir}/proc`, "v2"), "/system.slice/denolet.service");
    await Deno.writeTextFile(
      `${dir}/proc/self/cgroup`,
      "5:pids:/x\n4:memory:/system.slice/kubelet.service\n0::/\n",
    );
    assert.equal(ownCgroup(`${dir}/proc`, "v1"), "/system.slice/kubelet.service");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cgroup v1: without the throttle's recursive files the plain ones are read", async () => {
  const dir = await writeFixture("v1");
  try {
    const blkio = `${dir}/cgroup/blkio`;
    for (const cg of ["", POD_CGROUP, CONTAINER]) {
      for (const f of ["serviced", "service_bytes"]) {
        await Deno.remove(`${blkio}${cg}/blkio.throttle.io_${f}_recursive`);
      }
    }
    await Deno.writeTextFile(`${blkio}${CONTAINER}/blkio.throttle.io_serviced`, "8:0 Read 5\n");
    await Deno.writeTextFile(
      `${blkio}${CONTAINER}/blkio.throttle.io_service_bytes`,
      "8:0 Read 50\n",
    );
    const c = createCgroupStatsReader(`${dir}/cgroup`, { mode: "v1" }).read(CONTAINER)!;
    assert.equal(c.io.serviced[0].ops.get("Read"), 5);
    assert.equal(c.io.serviceBytes[0].ops.get("Read"), 50);
    // memory.kmem.* is optional too: a kernel without it reads 0, with no error.
    await Deno.remove(`${dir}/cgroup/memory/memory.kmem.usage_in_bytes`);
    const fresh = createCgroupStatsReader(`${dir}/cgroup`, { mode: "v1" }).read(CONTAINER)!;
    assert.equal(fresh.memory.kernel, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
