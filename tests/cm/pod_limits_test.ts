import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { CgroupError, type CgroupFs, openPodCgroups } from "../../src/cm/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";
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

Deno.test("kubepods is sized to the node allocatable given: cpu shares, memory and pids", async () => {
  const root = await v1Fixture();
  try {
    const cg = await openPodCgroups(
      { ...CONFIG, mountRoot: root },
      {
        logger: nullLogger,
        fs,
        nodeAllocatable: { cpuMilli: 1500, memoryBytes: 3 * 2 ** 30, pids: 30000 },
      },
    );
    await cg.ensure(pod("p1"));
    assert.equal(await read(`${root}/cpu,cpuacct/kubepods/cpu.shares`), "1536");
    assert.equal(await read(`${root}/memory/kubepods/memory.limit_in_bytes`), `${3 * 2 ** 30}`);
    assert.equal(await read(`${root}/pids/kubepods/pids.max`), "30000");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a kubepods limit the kernel refuses is reported, pods still start, and it is retried a minute later", async () => {
  const root = await v1Fixture();
  const clock = new FakeClock();
  const events: string[] = [];
  const lines: string[] = [];
  let busy = true;
  const busyFs: CgroupFs = {
    ...fs,
    writeFile: (path, data) =>
      busy && path.endsWith("/kubepods/memory.limit_in_bytes")
        ? Promise.reject(
          new CgroupError(`Cannot write ${data} to ${path}: Device or resource busy`),
        )
        : fs.writeFile(path, data),
  };
  try {
    const cg = await openPodCgroups(
      { ...CONFIG, mountRoot: root },
      {
        logger: createLogger({ write: (l) => lines.push(l), now: () => clock.now() }),
        fs: busyFs,
        clock,
        nodeAllocatable: { cpuMilli: 1000, memoryBytes: 2 ** 30 },
        nodeEvents: {
          nodeName: "n1",
          events: {
            event: (ref, type, reason, msg) =>
              events.push(`${ref.kind}/${ref.name} ${type} ${reason} ${msg}`),
          },
        },
      },
    );
    assert.equal(await cg.ensure(pod("p1")), "/kubepods/besteffort/podp1");
    assert.deepEqual(events, [
      `Node/n1 Warning FailedNodeAllocatableEnforcement Failed to update Node Allocatable Limits "/kubepods": Cannot write ${
        2 ** 30
      } to ${root}/memory/kubepods/memory.limit_in_bytes: Device or resource busy`,
    ]);
    assert.ok(lines.some((l) => l.includes("Failed to update Node Allocatable Limits")));
    busy = false;
    await clock.advance(59_000);
    await cg.cleanupOrphans(new Set(["p1"]));
    assert.equal(events.length, 1, "not before the minute is up");
    await clock.advance(1_000);
    await cg.cleanupOrphans(new Set(["p1"]));
    assert.equal(
      events[1],
      "Node/n1 Normal SuccessfulNodeAllocatableEnforcement Updated Node Allocatable limit across pods",
    );
    assert.equal(await read(`${root}/memory/kubepods/memory.limit_in_bytes`), `${2 ** 30}`);
    await clock.advance(120_000);
    await cg.cleanupOrphans(new Set(["p1"]));
    assert.equal(events.length, 2, "written once");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

const RESERVED = {
  kubeReservedCgroup: "/kube.slice",
  systemReservedCgroup: "/system.slice",
  kubeReserved: { cpu: "500m", memory: "512Mi", pid: "1000" },
  systemReserved: { cpu: "250m", memory: "256Mi" },
};

Deno.test("kube- and system-reserved cgroups get their reservations as limits (v1)", async () => {
  const root = await v1Fixture();
  const events: string[] = [];
  try {
    for (const h of ["cpu,cpuacct", "memory", "pids", "cpuset", "systemd", "unified"]) {
      await Deno.mkdir(`${root}/${h}/kube.slice`);
      await Deno.mkdir(`${root}/${h}/system.slice`);
    }
    await openPodCgroups({ ...CONFIG, mountRoot: root }, {
      logger: nullLogger,
      fs,
      reserved: { ...RESERVED, enforce: ["pods", "kube-reserved", "system-reserved-compressible"] },
      nodeEvents: {
        nodeName: "n1",
        events: { event: (_r, t, reason, m) => events.push(`${t} ${reason} ${m}`) },
      },
    });
    assert.equal(await read(`${root}/cpu,cpuacct/kube.slice/cpu.shares`), "512");
    assert.equal(await read(`${root}/memory/kube.slice/memory.limit_in_bytes`), `${512 * 2 ** 20}`);
    assert.equal(await read(`${root}/pids/kube.slice/pids.max`), "1000");
    // Compressible: cpu only.
    assert.equal(await read(`${root}/cpu,cpuacct/system.slice/cpu.shares`), "256");
    assert.ok(!(await exists(`${root}/memory/system.slice/memory.limit_in_bytes`)));
    assert.deepEqual(events, [
      "Normal SuccessfulNodeAllocatableEnforcement Updated limits on kube reserved cgroup /kube.slice",
      "Normal SuccessfulNodeAllocatableEnforcement Updated limits on system reserved cgroup /system.slice",
    ]);
    // Nothing of the pods is created by opening.
    assert.ok(!(await exists(`${root}/memory/kubepods`)));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a reserved cgroup that does not exist, or no reservation, fails the start with upstream's message", async () => {
  const root = await v1Fixture();
  const events: string[] = [];
  try {
    await Deno.mkdir(`${root}/memory/kube.slice`);
    await assert.rejects(
      openPodCgroups({ ...CONFIG, mountRoot: root }, {
        logger: nullLogger,
        fs,
        reserved: { ...RESERVED, enforce: ["kube-reserved"] },
        nodeEvents: {
          nodeName: "n1",
          events: { event: (_r, t, reason, m) => events.push(`${t} ${reason} ${m}`) },
        },
      }),
      (e: unknown) =>
        e instanceof CgroupError &&
        e.message.startsWith(
          `Failed to enforce Kube Reserved Cgroup Limits on "/kube.slice": cgroup ["kube.slice"] has some missing paths: ${root}/cpu,cpuacct/kube.slice, `,
        ) && !e.message.includes(`${root}/memory/kube.slice`),
    );
    assert.match(
      events[0],
      /^Warning FailedNodeAllocatableEnforcement Failed to enforce Kube Reserved/,
    );
    await assert.rejects(
      openPodCgroups({ ...CONFIG, mountRoot: root }, {
        logger: nullLogger,
        fs,
        reserved: { ...RESERVED, systemReserved: {}, enforce: ["system-reserved"] },
      }),
      (e: unknown) =>
        e instanceof CgroupError &&
        e.message ===
          'Failed to enforce System Reserved Cgroup Limits on "/system.slice": ["system.slice"] cgroup is not configured properly',
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("cgroup v2: a reserved cgroup needs its controllers enabled", async () => {
  const root = await v2Fixture();
  try {
    await v2fs.mkdir(`${root}/kube.slice`); // the root delegates only memory
    await assert.rejects(
      openPodCgroups({ ...CONFIG, mountRoot: root }, {
        logger: nullLogger,
        fs: v2fs,
        reserved: { ...RESERVED, enforce: ["kube-reserved"] },
      }),
      (e: unknown) =>
        e instanceof CgroupError &&
        /cgroup \["kube.slice"\] has some missing controllers: cpu, cpuset, hugetlb, pids$/.test(
          e.message,
        ),
    );
    await v2fs.writeFile(`${root}/cgroup.subtree_control`, "+cpu +cpuset +hugetlb +pids");
    await Deno.writeTextFile(
      `${root}/kube.slice/cgroup.controllers`,
      "cpuset cpu memory hugetlb pids",
    );
    await openPodCgroups({ ...CONFIG, mountRoot: root }, {
      logger: nullLogger,
      fs: v2fs,
      reserved: { ...RESERVED, enforce: ["kube-reserved"] },
    });
    assert.equal(await read(`${root}/kube.slice/memory.max`), `${512 * 2 ** 20}`);
    assert.equal(await read(`${root}/kube.slice/pids.max`), "1000");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

const SIZES = ["2MB", "1GB"];
const UNBOUNDED = `${2 ** 62}`;

function hugePod(uid: string, podLevel?: object): V1Pod {
  return pod(uid, {
    ...(podLevel ? { resources: podLevel } : {}),
    containers: [{
      name: "c",
      resources: {
        requests: { memory: "64Mi", "hugepages-2Mi": "4Mi" },
        limits: { memory: "64Mi", "hugepages-2Mi": "4Mi" },
      },
    }],
  });
}

Deno.test("hugetlb v1: pod limits from requests, 0 for other sizes, QoS levels unbounded, kubepods the node's", async () => {
  const root = await v1Fixture();
  try {
    await Deno.mkdir(`${root}/hugetlb`);
    const cg = await openPodCgroups(
      { ...CONFIG, mountRoot: root, hugePageSizes: SIZES },
      {
        logger: nullLogger,
        fs,
        nodeAllocatable: { ...ALLOC, hugePages: { "2MB": 64 * 2 ** 20, "1GB": 0 } },
      },
    );
    // The kernel has reservation files from Linux 5.7: they get the same limits.
    await Deno.mkdir(`${root}/hugetlb/kubepods/burstable/podh1`, { recursive: true });
    await Deno.writeTextFile(
      `${root}/hugetlb/kubepods/burstable/podh1/hugetlb.2MB.rsvd.limit_in_bytes`,
      "",
    );
    await cg.ensure(hugePod("h1"));
    const dir = `${root}/hugetlb/kubepods`;
    assert.equal(await read(`${dir}/hugetlb.2MB.limit_in_bytes`), `${64 * 2 ** 20}`);
    assert.equal(await read(`${dir}/hugetlb.1GB.limit_in_bytes`), "0");
    for (const qos of ["burstable", "besteffort"]) {
      assert.equal(await read(`${dir}/${qos}/hugetlb.2MB.limit_in_bytes`), UNBOUNDED, qos);
      assert.equal(await read(`${dir}/${qos}/hugetlb.1GB.limit_in_bytes`), UNBOUNDED, qos);
    }
    assert.equal(await read(`${dir}/burstable/podh1/hugetlb.2MB.limit_in_bytes`), `${4 * 2 ** 20}`);
    assert.equal(
      await read(`${dir}/burstable/podh1/hugetlb.2MB.rsvd.limit_in_bytes`),
      `${4 * 2 ** 20}`,
    );
    assert.equal(await read(`${dir}/burstable/podh1/hugetlb.1GB.limit_in_bytes`), "0");
    assert.ok(!(await exists(`${dir}/burstable/podh1/hugetlb.1GB.rsvd.limit_in_bytes`)));
    // A pod without huge pages may use none.
    await cg.ensure(pod("none"));
    assert.equal(await read(`${dir}/besteffort/podnone/hugetlb.2MB.limit_in_bytes`), "0");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("hugetlb v2: hugetlb.<size>.max; a pod-level request replaces the containers'", async () => {
  const root = await v2Fixture();
  try {
    const cg = await openPodCgroups(
      { ...CONFIG, mountRoot: root, hugePageSizes: SIZES },
      { logger: nullLogger, fs: v2fs, nodeAllocatable: ALLOC },
    );
    await cg.ensure(hugePod("h2", { requests: { memory: "64Mi", "hugepages-2Mi": "8Mi" } }));
    assert.equal(await read(`${root}/kubepods/burstable/podh2/hugetlb.2MB.max`), `${8 * 2 ** 20}`);
    assert.equal(await read(`${root}/kubepods/burstable/podh2/hugetlb.1GB.max`), "0");
    assert.equal(await read(`${root}/kubepods/burstable/hugetlb.1GB.max`), UNBOUNDED);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("no hugetlb controller (v1 hybrid hosts): no hugetlb file is written", async () => {
  const root = await v1Fixture(); // no hugetlb hierarchy
  try {
    const cg = await openPodCgroups(
      { ...CONFIG, mountRoot: root, hugePageSizes: SIZES },
      { logger: nullLogger, fs, nodeAllocatable: ALLOC },
    );
    await cg.ensure(hugePod("h3"));
    for (const h of ["memory", "unified"]) {
      const files = [...Deno.readDirSync(`${root}/${h}/kubepods/burstable/podh3`)].map((e) =>
        e.name
      );
      assert.ok(!files.some((f) => f.startsWith("hugetlb.")), `${h}: ${files}`);
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
