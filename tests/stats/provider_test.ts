import type { ClaimVolume } from "../../src/volumes/mod.ts";
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { createStatsProvider } from "../../src/stats/mod.ts";
import { type CgroupReader, createCgroupReader } from "../../src/stats/_cgroup.ts";
import type { FsCapacity } from "../../src/util/statfs.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { container, criStats, NODE, sandbox, StatsCri } from "./_fakes.ts";

const FIX = new URL("./fixtures/", import.meta.url).pathname;
const T0 = Date.UTC(2026, 10, 22, 3, 0, 0);

const cap = (capacityBytes: number): FsCapacity => ({
  capacityBytes,
  availableBytes: capacityBytes / 2,
  usedBytes: capacityBytes / 4,
  inodes: 1000,
  inodesFree: 600,
  inodesUsed: 400,
});

/**
 * Lets the sampler's file reads finish: it is idle once it sleeps on the fake clock. Yields to
 * the event loop (no wall-clock waiting) and gives up after many turns.
 */
async function sampled(clock: FakeClock): Promise<void> {
  for (let i = 0; i < 2000 && clock.pendingTimers === 0; i++) {
    await new Promise((r) => setTimeout(r, 0));
  }
  assert.ok(clock.pendingTimers > 0, "the sampler did not go back to sleep");
}

/** Advances the fake clock by `ms` and waits for the sample that falls due. */
async function tick(clock: FakeClock, ms: number): Promise<void> {
  for (let left = ms; left > 0; left -= 10_000) {
    await clock.advance(Math.min(10_000, left));
    await sampled(clock);
  }
}

function pod(uid: string, name: string): V1Pod {
  return {
    metadata: { uid, name, namespace: "default" },
    spec: {
      containers: [{ name: "main" }],
      volumes: [
        { name: "cache", emptyDir: {} },
        { name: "shm", emptyDir: { medium: "Memory" } },
        { name: "huge", emptyDir: { medium: "HugePages" } },
      ],
    },
  };
}

function setup(
  opts: {
    cgroupRoot: string;
    podCgroups?: Record<string, string>;
    cgroups?: CgroupReader;
    claimVolumes?: (uid: string) => ClaimVolume[];
  },
) {
  const clock = new FakeClock(T0);
  const cri = new StatsCri();
  const statfsCalls: string[] = [];
  const provider = createStatsProvider({
    runtime: cri.runtime,
    image: cri.image,
    clock,
    logger: nullLogger,
    nodeName: NODE,
    rootDir: "/var/lib/denolet",
    podLogsDir: "/var/log/pods",
    pods: () => [pod("u1", "web"), pod("u2", "db")],
    cgroupRoot: opts.cgroupRoot,
    procRoot: `${FIX}proc`,
    samplePeriodMs: 10_000,
    podCgroupPath: (p) => opts.podCgroups?.[p.metadata?.uid ?? ""],
    cgroups: opts.cgroups,
    claimVolumes: opts.claimVolumes,
    statfs: (path) => {
      statfsCalls.push(path);
      return Promise.resolve(
        path === "/images"
          ? cap(2000)
          : path.endsWith("/shm")
          ? cap(64)
          : path.endsWith("/huge")
          ? cap(32)
          : cap(1000),
      );
    },
    dirUsage: (dir) =>
      Promise.resolve(
        dir.endsWith("/main")
          ? { usedBytes: 300, inodesUsed: 2 }
          : dir.endsWith("/cache")
          ? { usedBytes: 4000, inodesUsed: 5 }
          : { usedBytes: 50, inodesUsed: 1 },
      ),
  });
  return { clock, cri, provider, statfsCalls };
}

Deno.test("Summary assembly on cgroup v1: node, system container, pod from container cgroups", async () => {
  const { cri, provider } = setup({ cgroupRoot: `${FIX}cgroup_v1` });
  cri.sandboxes = [sandbox("sb1", "u1", "web", T0 - 60_000)];
  const c1 = container("c1", "sb1", "main", T0 - 50_000);
  cri.containers = [c1];
  cri.stats.set("c1", criStats(c1, 1_900_000_000, { workingSet: 39_000_000, writable: 8192 }));

  const s = await provider.summary();
  const time = new Date(T0);
  const n = s.node;
  assert.equal(n.nodeName, NODE);
  assert.deepEqual(n.startTime, new Date(1795313512_000));
  assert.deepEqual(n.cpu, { time, usageNanoCores: undefined, usageCoreNanoSeconds: 800e9 });
  assert.equal(n.memory?.workingSetBytes, 1_100_000_000);
  assert.equal(n.memory?.availableBytes, 8000000 * 1024 - 1_100_000_000);
  assert.equal(n.memory?.rssBytes, 300_000_000);
  assert.equal(n.network?.name, "eth0");
  assert.equal(n.network?.rxBytes, 159275645);
  assert.deepEqual(n.network?.interfaces?.map((i) => i.name), ["eth0", "cni0"]);
  assert.equal(n.fs?.capacityBytes, 1000);
  assert.equal(n.runtime?.imageFs?.capacityBytes, 2000);
  assert.equal(n.runtime?.imageFs?.usedBytes, 5_000_000, "images' own bytes from the CRI");
  assert.equal(n.runtime?.imageFs?.inodesUsed, 300);
  assert.deepEqual(n.rlimit, { time, maxpid: 32768, curproc: 267 });
  const kubelet = n.systemContainers?.find((c) => c.name === "kubelet");
  assert.equal(kubelet?.cpu?.usageCoreNanoSeconds, 3e9);
  assert.equal(kubelet?.memory?.workingSetBytes, 80000 * 1024);
  assert.deepEqual(kubelet?.startTime, new Date(1795313512_000 + 10_000));
  assert.equal(n.systemContainers?.some((c) => c.name === "runtime"), false, "no endpoint given");

  assert.equal(s.pods.length, 1);
  const p = s.pods[0];
  assert.deepEqual(p.podRef, { name: "web", namespace: "default", uid: "u1" });
  assert.deepEqual(p.startTime, new Date(T0 - 60_000));
  // Pod = container c1 + sandbox sb1 cgroups.
  assert.equal(p.cpu?.usageCoreNanoSeconds, 2_010_000_000);
  assert.equal(p.memory?.workingSetBytes, 40_000_000 + 400_000);
  assert.equal(p.memory?.availableBytes, undefined, "no pod-level limit");
  assert.equal(p.process_stats?.process_count, 4);
  assert.equal(p.network?.name, "eth0");
  assert.equal(p.network?.rxBytes, 107308);
  const c = p.containers[0];
  assert.equal(c.name, "main");
  assert.deepEqual(c.startTime, new Date(T0 - 50_000));
  assert.equal(c.cpu?.usageCoreNanoSeconds, 1_900_000_000, "the runtime's numbers first");
  assert.equal(c.memory?.workingSetBytes, 39_000_000);
  assert.equal(c.memory?.availableBytes, 104857600 - 39_000_000, "limit from the cgroup");
  assert.equal(c.rootfs?.usedBytes, 8192);
  assert.equal(c.rootfs?.capacityBytes, 2000, "writable layers live on the image fs");
  assert.equal(c.logs?.usedBytes, 300);
  assert.equal(c.logs?.capacityBytes, 1000);
  assert.deepEqual(p.volume?.map((v) => [v.name, v.usedBytes, v.capacityBytes]), [
    ["cache", 4000, 1000],
    ["shm", 50, 64],
    ["huge", 50, 32],
  ]);
  // Writable layer + logs + disk-backed emptyDir; the tmpfs and hugetlbfs ones are not disk.
  assert.equal(p["ephemeral-storage"]?.usedBytes, 8192 + 300 + 4000);
  assert.equal(p["ephemeral-storage"]?.inodesUsed, 9 + 2 + 5);
});

Deno.test("cgroup v2 with a pod cgroup: pod usage comes from kubepods/.../pod<uid>", async () => {
  const { cri, provider } = setup({
    cgroupRoot: `${FIX}cgroup_v2`,
    podCgroups: { u2: "/kubepods/burstable/podu2" },
  });
  cri.sandboxes = [sandbox("sb2", "u2", "db", T0 - 60_000)];
  const c2 = container("c2", "sb2", "main", T0 - 50_000);
  cri.containers = [c2];
  cri.stats.clear(); // a runtime without container stats: the cgroup files answer

  const s = await provider.summary();
  // Root cgroup v2 has no memory.current: usage = MemTotal - MemFree.
  assert.equal(s.node.memory?.usageBytes, 6000000 * 1024);
  assert.equal(s.node.memory?.workingSetBytes, 6000000 * 1024 - 250_000_000);
  assert.equal(s.node.cpu?.usageCoreNanoSeconds, 900e9);
  const p = s.pods[0];
  assert.equal(p.cpu?.usageCoreNanoSeconds, 3e9);
  assert.equal(p.memory?.workingSetBytes, 73400320 - 10485760);
  assert.equal(p.process_stats?.process_count, 5);
  assert.equal(p.network?.rxBytes, 107308, "netns of the pause process in the sandbox cgroup");
  const c = p.containers[0];
  assert.equal(c.cpu?.usageCoreNanoSeconds, 2.5e9);
  assert.equal(c.memory?.workingSetBytes, 52_000_000);
  assert.equal(c.memory?.availableBytes, 104857600 - 52_000_000);
});

Deno.test("with a pod cgroup and the runtime's container stats, containers cost one limit read", async () => {
  const full: string[] = [];
  const real = createCgroupReader(`${FIX}cgroup_v2`, "v2");
  const cgroups: CgroupReader = {
    mode: real.mode,
    read: (path) => (full.push(path), real.read(path)),
    memoryLimit: (path) => real.memoryLimit(path),
    procs: (path) => real.procs(path),
  };
  const { cri, provider } = setup({
    cgroupRoot: `${FIX}cgroup_v2`,
    podCgroups: { u2: "/kubepods/burstable/podu2" },
    cgroups,
  });
  cri.sandboxes = [sandbox("sb2", "u2", "db", T0 - 60_000)];
  const c2 = container("c2", "sb2", "main", T0 - 50_000);
  cri.containers = [c2];
  cri.stats.set("c2", criStats(c2, 1_900_000_000, { workingSet: 39_000_000 }));

  const p = (await provider.summary()).pods[0];
  assert.deepEqual(
    full.sort(),
    ["", "/kubepods/burstable/podu2"],
    "no container or sandbox counters",
  );
  assert.equal(p.cpu?.usageCoreNanoSeconds, 3e9, "the pod's own cgroup");
  assert.equal(p.memory?.workingSetBytes, 73400320 - 10485760);
  assert.equal(p.process_stats?.process_count, 5);
  assert.equal(p.network?.rxBytes, 107308, "netns of the pause process in the sandbox cgroup");
  const c = p.containers[0];
  assert.equal(c.cpu?.usageCoreNanoSeconds, 1_900_000_000);
  assert.equal(c.memory?.workingSetBytes, 39_000_000);
  assert.equal(c.memory?.availableBytes, 104857600 - 39_000_000, "limit from memory.max");
});

Deno.test("a pod started before pod cgroups: its containers are found under k8s.io", async () => {
  const { cri, provider } = setup({
    cgroupRoot: `${FIX}cgroup_v1`,
    podCgroups: { u1: "/kubepods/besteffort/podu1" },
  });
  cri.sandboxes = [sandbox("sb1", "u1", "web", T0 - 60_000)];
  cri.containers = [container("c1", "sb1", "main", T0 - 50_000)];
  const p = (await provider.summary()).pods[0];
  assert.equal(p.cpu?.usageCoreNanoSeconds, 2_010_000_000);
  assert.equal(p.network?.rxBytes, 107308);
  assert.equal(p.containers[0].memory?.workingSetBytes, 40_000_000, "cgroup when CRI is silent");
});

Deno.test("the background sampler turns CPU counters into usageNanoCores", async () => {
  const { clock, cri, provider } = setup({ cgroupRoot: `${FIX}cgroup_v1` });
  cri.sandboxes = [sandbox("sb1", "u1", "web", T0 - 60_000)];
  const c1 = container("c1", "sb1", "main", T0 - 50_000);
  cri.containers = [c1];
  cri.stats.set("c1", criStats(c1, 1e9));
  // A reader first: the background samples include pods from then on.
  const first = await provider.summary();
  assert.equal(first.pods[0].containers[0].cpu?.usageNanoCores, undefined);
  const ctl = new AbortController();
  const running = provider.run({ signal: ctl.signal });
  await sampled(clock);

  cri.stats.set("c1", criStats(c1, 1e9 + 5e9)); // 5 s of CPU in 10 s: half a core
  await tick(clock, 10_000);
  const s = provider.latest()!;
  assert.deepEqual(s.node.cpu?.time, new Date(T0 + 10_000));
  assert.equal(s.pods[0].containers[0].cpu?.usageNanoCores, 500_000_000);
  assert.equal(s.node.cpu?.usageNanoCores, 0, "the fixture node is idle");
  assert.equal(await provider.summary(), s, "requests read the last sample");

  ctl.abort();
  await running;
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("pods are sampled in the background only while someone reads them", async () => {
  const { clock, cri, provider } = setup({ cgroupRoot: `${FIX}cgroup_v1` });
  cri.sandboxes = [sandbox("sb1", "u1", "web", T0 - 60_000)];
  const c1 = container("c1", "sb1", "main", T0 - 50_000);
  cri.containers = [c1];
  cri.stats.set("c1", criStats(c1, 1e9));
  const ctl = new AbortController();
  const running = provider.run({ signal: ctl.signal });
  await sampled(clock);
  await tick(clock, 30_000);
  // Nobody read pods: the node alone, every period, for the eviction manager.
  assert.equal(cri.containerStatsCalls, 0);
  assert.equal(provider.latest(), undefined);
  const node = await provider.summary({ pods: false });
  assert.deepEqual(node.node.cpu?.time, new Date(T0 + 30_000));
  assert.deepEqual(node.pods, []);
  assert.equal(cri.containerStatsCalls, 0, "the node's reader needs no pods");

  // A reader (a metrics-server scrape) pays for one sample; the next periods sample pods too.
  assert.equal((await provider.summary()).pods.length, 1);
  assert.equal(cri.containerStatsCalls, 1);
  await tick(clock, 20_000);
  assert.equal(cri.containerStatsCalls, 3);
  // Ten minutes with no reader: back to the node alone.
  await tick(clock, 600_000);
  const calls = cri.containerStatsCalls;
  await tick(clock, 30_000);
  assert.equal(cri.containerStatsCalls, calls);
  // A rate over a gap that long would be an old average, not current usage: none.
  cri.stats.set("c1", criStats(c1, 9e9));
  assert.equal((await provider.summary()).pods[0].containers[0].cpu?.usageNanoCores, undefined);

  ctl.abort();
  await running;
});

Deno.test("a reader that hangs up cancels only its own wait, not the shared sample", async () => {
  const { cri, provider } = setup({ cgroupRoot: `${FIX}cgroup_v1` });
  cri.sandboxes = [sandbox("sb1", "u1", "web", T0 - 60_000)];
  // The CRI answers only when the test says so: both readers wait on one sample.
  let answer: () => void = () => {};
  cri.gate = new Promise<void>((r) => answer = r);
  const gone = new AbortController();
  const first = provider.summary({ signal: gone.signal });
  const second = provider.summary();
  gone.abort(new Error("client went away"));
  await assert.rejects(first, /client went away/);
  answer();
  assert.equal((await second).pods.length, 1, "the other reader gets the sample");
  assert.equal(cri.containerStatsCalls, 1, "one sample for both");
});

Deno.test("summary samples on demand when no sampler runs; only_cpu_and_memory trims", async () => {
  const { clock, cri, provider } = setup({ cgroupRoot: `${FIX}cgroup_v1` });
  cri.sandboxes = [sandbox("sb1", "u1", "web", T0 - 60_000)];
  const first = await provider.summary();
  assert.equal(await provider.summary(), first);
  await clock.advance(25_000);
  const trimmed = await provider.summary({ onlyCpuAndMemory: true });
  assert.notEqual(provider.latest(), first, "a stale sample is refreshed");
  assert.equal(trimmed.node.fs, undefined);
  assert.equal(trimmed.node.network, undefined);
  assert.ok(trimmed.node.cpu && trimmed.node.memory);
  assert.equal(trimmed.pods[0]["ephemeral-storage"], undefined);
  assert.equal(trimmed.pods[0].network, undefined);
  assert.ok(provider.latest()?.node.fs, "the cached sample keeps everything");
});

Deno.test("a failing ListPodSandboxStats is retried only every few minutes", async () => {
  const { clock, cri, provider } = setup({ cgroupRoot: `${FIX}cgroup_v1` });
  await provider.summary(); // a reader: pods are sampled every period
  const ctl = new AbortController();
  const running = provider.run({ signal: ctl.signal });
  await sampled(clock);
  await tick(clock, 60_000);
  assert.equal(cri.sandboxStatsCalls, 1);
  for (let i = 0; i < 4; i++) {
    await provider.summary();
    await tick(clock, 60_000);
  }
  assert.equal(cri.sandboxStatsCalls, 2);
  ctl.abort();
  await running;
});

Deno.test("a failed sample keeps the previous one", async () => {
  const { clock, cri, provider } = setup({ cgroupRoot: `${FIX}cgroup_v1` });
  await provider.summary(); // a reader: pods are sampled every period
  const ctl = new AbortController();
  const running = provider.run({ signal: ctl.signal });
  await sampled(clock);
  const first = provider.latest();
  assert.ok(first);
  const rt = cri.runtime;
  // Break listPodSandbox for one round.
  const sandboxes = cri.sandboxes;
  Object.defineProperty(cri, "sandboxes", {
    get: () => {
      throw new Error("runtime gone");
    },
    configurable: true,
  });
  await tick(clock, 10_000);
  assert.equal(provider.latest(), first);
  Object.defineProperty(cri, "sandboxes", { value: sandboxes, writable: true });
  await tick(clock, 10_000);
  assert.notEqual(provider.latest(), first);
  assert.ok(rt);
  ctl.abort();
  await running;
});

Deno.test("Summary: a claim's local volume is its file system's, a CSI volume its driver's stats, with a pvcRef; hostPath PVs and CSI drivers without stats report nothing (upstream)", async () => {
  const { cri, provider } = setup({
    cgroupRoot: `${FIX}cgroup_v1`,
    claimVolumes: (uid) =>
      uid === "u1"
        ? [
          {
            name: "data",
            claimName: "data-web-0",
            namespace: "default",
            path: "/pv/local",
            source: "local",
          },
          {
            name: "hp",
            claimName: "hp-claim",
            namespace: "default",
            path: "/srv/hp",
            source: "hostPath",
          },
          {
            name: "csi",
            claimName: "csi-claim",
            namespace: "default",
            path: "/pods/u1/volumes/kubernetes.io~csi/pv/mount",
            source: "csi",
            stats: () =>
              Promise.resolve({
                capacityBytes: 30,
                availableBytes: 10,
                usedBytes: 20,
                inodes: 9,
                inodesFree: 7,
                inodesUsed: 2,
              }),
          },
          {
            name: "csi-nostats",
            claimName: "other",
            namespace: "default",
            path: "/pods/u1/volumes/kubernetes.io~csi/pv2/mount",
            source: "csi",
          },
        ]
        : [],
  });
  cri.sandboxes = [sandbox("sb1", "u1", "web", T0 - 60_000)];
  const s = await provider.summary();
  const data = s.pods[0].volume?.find((v) => v.name === "data");
  assert.deepEqual(data?.pvcRef, { name: "data-web-0", namespace: "default" });
  assert.equal(data?.capacityBytes, 1000);
  assert.equal(data?.availableBytes, 500);
  assert.equal(data?.usedBytes, 250);
  assert.equal(data?.inodesUsed, 400);
  assert.equal(s.pods[0].volume?.some((v) => v.name === "hp"), false);
  const csi = s.pods[0].volume?.find((v) => v.name === "csi");
  assert.equal(csi?.capacityBytes, 30, "the driver's NodeGetVolumeStats, not statfs");
  assert.equal(csi?.inodesUsed, 2);
  assert.equal(s.pods[0].volume?.some((v) => v.name === "csi-nostats"), false);
  // Not node disk: the claim's bytes stay out of the pod's ephemeral storage.
  assert.equal(
    s.pods[0]["ephemeral-storage"]?.usedBytes,
    s.pods[0].volume!
      .filter((v) => v.name === "cache").reduce((n, v) => n + (v.usedBytes ?? 0), 0) +
      (s.pods[0].containers ?? []).reduce(
        (n, c) => n + (c.rootfs?.usedBytes ?? 0) + (c.logs?.usedBytes ?? 0),
        0,
      ),
  );
});
