/**
 * Pod and container stats from what the runtime reports (ListContainerStats, and
 * ListPodSandboxStats when it works) completed from the cgroup files, the pod's network
 * namespace and the disk usage of logs and emptyDir volumes.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type {
  Container,
  ContainerStats as CriContainerStats,
  PodSandbox,
  PodSandboxStats,
} from "../cri/types.ts";
import type { CgroupMemory, CgroupReader, CgroupSample } from "./_cgroup.ts";
import type { FsCapacity } from "../util/statfs.ts";
import type { DirUsage } from "./_fs.ts";
import type { CpuRateTracker } from "./_rate.ts";
import { cpuStats, memoryStats } from "./_node.ts";
import { networkStats, readNetDev } from "./_system.ts";
import type { ClaimVolume } from "../volumes/mod.ts";
import type { ContainerStats, FsStats, NetworkStats, PodStats, VolumeStats } from "./types.ts";

/** containerd's cgroupfs default parent when a sandbox has no `cgroup_parent`. */
export const DEFAULT_CGROUP_PARENT = "k8s.io";
const EMPTY_DIR_PLUGIN_DIR = "kubernetes.io~empty-dir";

/**
 * Where a container's (or sandbox's) cgroup is, relative to the hierarchy root: under the
 * pod's cgroup when it has one (`cgroup_parent`), else under containerd's default.
 */
export function containerCgroupPath(podCgroup: string | undefined, containerId: string): string {
  const parent = (podCgroup ?? DEFAULT_CGROUP_PARENT).replace(/^\/+|\/+$/g, "");
  // Under a slice (the systemd cgroup driver) containerd names the scope it has runc create.
  if (parent.endsWith(".slice")) return `${parent}/cri-containerd-${containerId}.scope`;
  return `${parent}/${containerId}`;
}

export interface PodInputs {
  sandbox: PodSandbox;
  containers: Container[];
  /** CRI stats by container id. */
  criStats: Map<string, CriContainerStats>;
  /** CRI sandbox stats, when the runtime gave them. */
  sandboxStats?: PodSandboxStats;
  pod?: V1Pod;
}

export interface PodEnv {
  cgroups: CgroupReader;
  rates: CpuRateTracker;
  procRoot: string;
  rootDir: string;
  podLogsDir: string;
  /** The pod-level cgroup (e.g. `/kubepods/burstable/pod<uid>`), when the pod has one. */
  podCgroupPath?: (pod: V1Pod) => string | undefined;
  /** The pod's claim volumes as mounted, by pod UID. */
  claimVolumes?: (uid: string) => ClaimVolume[];
  nodefs?: FsCapacity;
  imagefs?: FsCapacity;
  dirUsage: (dir: string) => Promise<DirUsage>;
  /** statfs of a memory-backed emptyDir (its own tmpfs). */
  statfs: (path: string) => Promise<FsCapacity>;
  now: Date;
  /** The sample's monotonic time: CPU rates divide by it, whatever the wall clock does. */
  monoMs: number;
}

export async function podStats(input: PodInputs, env: PodEnv): Promise<PodStats> {
  const { sandbox } = input;
  const { now } = env;
  const uid = sandbox.metadata.uid;
  const podCgroup = input.pod ? env.podCgroupPath?.(input.pod) : undefined;
  const logDir = `${
    env.podLogsDir.replace(/\/+$/, "")
  }/${sandbox.metadata.namespace}_${sandbox.metadata.name}_${uid}`;

  // The pod's own cgroup first: with it, a container the runtime reports CPU and memory for
  // needs only its limit from the cgroup files, and the sandbox only its processes (network).
  const podCg = podCgroup !== undefined ? await env.cgroups.read(podCgroup) : undefined;
  const containers: ContainerStats[] = [];
  const containerSamples: CgroupSample[] = [];
  for (const c of input.containers) {
    const cri = input.criStats.get(c.id);
    let cgroup: CgroupSample | undefined;
    let limitBytes: number | undefined;
    if (podCg && criCovers(cri)) {
      limitBytes = (await findMemoryLimit(env.cgroups, podCgroup, c.id))?.limitBytes;
    } else {
      cgroup = (await findContainerCgroup(env.cgroups, podCgroup, c.id))?.sample;
      if (cgroup) containerSamples.push(cgroup);
      limitBytes = cgroup?.memory?.limitBytes;
    }
    const logs = await env.dirUsage(`${logDir}/${c.metadata.name}`);
    containers.push(containerStats(c, { cri, cgroup, limitBytes, logs, env }));
  }

  const linux = input.sandboxStats?.linux;
  let pod = podCg;
  let sandboxPids: number[];
  if (pod) {
    sandboxPids = await findProcs(env.cgroups, podCgroup, sandbox.id);
  } else {
    // Without a pod cgroup the pod is the sum of its containers and the sandbox (pause).
    const sandboxCgroup = await findContainerCgroup(env.cgroups, podCgroup, sandbox.id);
    pod = sumSamples([...containerSamples, ...(sandboxCgroup ? [sandboxCgroup.sample] : [])]);
    sandboxPids = sandboxCgroup ? await env.cgroups.procs(sandboxCgroup.path) : [];
  }
  const podCpuNs = linux?.cpu?.usageCoreNanoSeconds?.value ?? pod.cpuUsageNs;

  const volumes = await volumeStats(input.pod, uid, env);
  return {
    podRef: { name: sandbox.metadata.name, namespace: sandbox.metadata.namespace, uid },
    startTime: new Date(sandbox.createdAt / 1e6),
    containers,
    cpu: podCpuNs === undefined
      ? undefined
      : cpuStats(now, podCpuNs, env.rates.update(`pod/${uid}`, podCpuNs, env.monoMs)),
    memory: pod.memory ? memoryStats(now, pod.memory) : undefined,
    network: (await podNetwork(env, sandboxPids)) ?? criNetwork(input.sandboxStats, now),
    volume: volumes.length > 0 ? volumes.map((v) => v.stats) : undefined,
    "ephemeral-storage": ephemeralStorage(containers, volumes, env),
    process_stats: pod.pids !== undefined ? { process_count: pod.pids } : undefined,
  };
}

/**
 * A container's (or sandbox's) cgroup: under the pod cgroup when the pod has one, else (a pod
 * started before pod cgroups were enabled) under containerd's default parent.
 */
async function findContainerCgroup(
  cgroups: CgroupReader,
  podCgroup: string | undefined,
  id: string,
): Promise<{ path: string; sample: CgroupSample } | undefined> {
  for (const path of candidatePaths(podCgroup, id)) {
    const sample = await cgroups.read(path);
    if (sample) return { path, sample };
  }
  return undefined;
}

/** The container's memory limit, under the pod cgroup or containerd's default parent. */
async function findMemoryLimit(
  cgroups: CgroupReader,
  podCgroup: string | undefined,
  id: string,
): Promise<{ limitBytes?: number } | undefined> {
  for (const path of candidatePaths(podCgroup, id)) {
    const limit = await cgroups.memoryLimit(path);
    if (limit) return limit;
  }
  return undefined;
}

/** The processes of a container's (sandbox's) cgroup, wherever it is; empty when none. */
async function findProcs(
  cgroups: CgroupReader,
  podCgroup: string | undefined,
  id: string,
): Promise<number[]> {
  for (const path of candidatePaths(podCgroup, id)) {
    const pids = await cgroups.procs(path);
    if (pids.length > 0) return pids;
  }
  return [];
}

function candidatePaths(podCgroup: string | undefined, id: string): string[] {
  const paths = [containerCgroupPath(podCgroup, id)];
  if (podCgroup !== undefined) paths.push(containerCgroupPath(undefined, id));
  return paths;
}

/** The runtime reports the container's CPU and memory: its cgroup adds only the limit. */
function criCovers(s: CriContainerStats | undefined): boolean {
  return s?.cpu?.usageCoreNanoSeconds !== undefined && criMemory(s) !== undefined;
}

interface ContainerParts {
  cri?: CriContainerStats;
  /** The container's cgroup counters, when read (the runtime did not report them all). */
  cgroup?: CgroupSample;
  limitBytes?: number;
  logs: DirUsage;
  env: PodEnv;
}

function containerStats(c: Container, p: ContainerParts): ContainerStats {
  const { now, monoMs, rates, nodefs, imagefs } = p.env;
  const cpuNs = p.cri?.cpu?.usageCoreNanoSeconds?.value ?? p.cgroup?.cpuUsageNs;
  const mem = criMemory(p.cri) ?? p.cgroup?.memory;
  const layer = p.cri?.writableLayer;
  return {
    name: c.metadata.name,
    startTime: new Date(c.createdAt / 1e6),
    cpu: cpuNs === undefined
      ? undefined
      : cpuStats(now, cpuNs, rates.update(`container/${c.id}`, cpuNs, monoMs)),
    // Limits come from the cgroup: containerd 1.6 reports availableBytes 0 without one.
    memory: mem ? memoryStats(now, { ...mem, limitBytes: p.limitBytes }) : undefined,
    rootfs: {
      ...capacityOf(now, imagefs),
      usedBytes: layer?.usedBytes?.value ?? 0,
      inodesUsed: layer?.inodesUsed?.value ?? 0,
    },
    logs: {
      ...capacityOf(now, nodefs),
      usedBytes: p.logs.usedBytes,
      inodesUsed: p.logs.inodesUsed,
    },
  };
}

function criMemory(s: CriContainerStats | undefined): CgroupMemory | undefined {
  const m = s?.memory;
  if (m?.usageBytes === undefined || m.workingSetBytes === undefined) return undefined;
  return {
    usageBytes: m.usageBytes.value,
    workingSetBytes: m.workingSetBytes.value,
    rssBytes: m.rssBytes?.value,
    pageFaults: m.pageFaults?.value,
    majorPageFaults: m.majorPageFaults?.value,
  };
}

/** Adds up container cgroups when there is no pod-level one. */
export function sumSamples(samples: CgroupSample[]): CgroupSample {
  const add = (a: number | undefined, b: number | undefined) =>
    a === undefined ? b : b === undefined ? a : a + b;
  let out: CgroupSample = {};
  for (const s of samples) {
    out = {
      cpuUsageNs: add(out.cpuUsageNs, s.cpuUsageNs),
      pids: add(out.pids, s.pids),
      memory: !s.memory ? out.memory : !out.memory ? { ...s.memory, limitBytes: undefined } : {
        usageBytes: out.memory.usageBytes + s.memory.usageBytes,
        workingSetBytes: out.memory.workingSetBytes + s.memory.workingSetBytes,
        rssBytes: add(out.memory.rssBytes, s.memory.rssBytes),
        pageFaults: add(out.memory.pageFaults, s.memory.pageFaults),
        majorPageFaults: add(out.memory.majorPageFaults, s.memory.majorPageFaults),
      },
    };
  }
  return out;
}

/**
 * Pod network from the sandbox's network namespace: the pause process is in the sandbox
 * cgroup, and `/proc/<pid>/net/dev` shows its namespace's counters — two small file reads,
 * no exec, no CRI call.
 */
async function podNetwork(env: PodEnv, pids: number[]): Promise<NetworkStats | undefined> {
  for (const pid of pids) {
    const counters = await readNetDev(env.procRoot, pid);
    if (counters.length > 0) return networkStats(counters, env.now);
  }
  return undefined;
}

function criNetwork(s: PodSandboxStats | undefined, time: Date): NetworkStats | undefined {
  const n = s?.linux?.network;
  if (!n) return undefined;
  const iface = (i: NonNullable<typeof n.defaultInterface>) => ({
    name: i.name,
    rxBytes: i.rxBytes?.value,
    rxErrors: i.rxErrors?.value,
    txBytes: i.txBytes?.value,
    txErrors: i.txErrors?.value,
  });
  return {
    time,
    ...(n.defaultInterface ? iface(n.defaultInterface) : {}),
    interfaces: n.interfaces.map(iface),
  };
}

interface PodVolume {
  stats: VolumeStats;
  /** Memory- and hugepage-backed volumes are not node disk: they stay out of ephemeral storage. */
  onDisk: boolean;
}

async function volumeStats(pod: V1Pod | undefined, uid: string, env: PodEnv): Promise<PodVolume[]> {
  const out: PodVolume[] = [];
  for (const v of pod?.spec?.volumes ?? []) {
    if (!v.emptyDir) continue;
    const dir = `${
      env.rootDir.replace(/\/+$/, "")
    }/pods/${uid}/volumes/${EMPTY_DIR_PLUGIN_DIR}/${v.name}`;
    const usage = await env.dirUsage(dir);
    // Only the default medium is node disk; Memory (tmpfs) and HugePages have their own.
    const onDisk = (v.emptyDir.medium ?? "") === "";
    const cap = onDisk ? env.nodefs : await env.statfs(dir).catch(() => undefined);
    out.push({
      stats: {
        ...capacityOf(env.now, cap),
        usedBytes: usage.usedBytes,
        inodesUsed: usage.inodesUsed,
        name: v.name,
      },
      onDisk,
    });
  }
  for (const c of env.claimVolumes?.(uid) ?? []) {
    // Upstream's hostPath plugin reports no metrics; a local volume is its file system's
    // (MetricsStatFS); a CSI volume is what its driver's NodeGetVolumeStats says, if it serves it.
    if (c.source === "hostPath") continue;
    const cap = c.source === "csi"
      ? await c.stats?.().catch(() => undefined)
      : await env.statfs(c.path).catch(() => undefined);
    if (!cap) continue;
    out.push({
      stats: {
        ...capacityOf(env.now, cap),
        usedBytes: cap.usedBytes,
        inodesUsed: cap.inodesUsed,
        name: c.name,
        pvcRef: { name: c.claimName, namespace: c.namespace },
      },
      onDisk: false,
    });
  }
  return out;
}

/** Writable layers + logs + disk-backed emptyDirs, with the nodefs capacity (as upstream). */
function ephemeralStorage(
  containers: ContainerStats[],
  volumes: PodVolume[],
  env: PodEnv,
): FsStats {
  let used = 0;
  let inodes = 0;
  for (const c of containers) {
    used += (c.rootfs?.usedBytes ?? 0) + (c.logs?.usedBytes ?? 0);
    inodes += (c.rootfs?.inodesUsed ?? 0) + (c.logs?.inodesUsed ?? 0);
  }
  for (const v of volumes) {
    if (!v.onDisk) continue;
    used += v.stats.usedBytes ?? 0;
    inodes += v.stats.inodesUsed ?? 0;
  }
  return { ...capacityOf(env.now, env.nodefs), usedBytes: used, inodesUsed: inodes };
}

function capacityOf(time: Date, cap: FsCapacity | undefined): FsStats {
  return {
    time,
    availableBytes: cap?.availableBytes,
    capacityBytes: cap?.capacityBytes,
    inodesFree: cap?.inodesFree,
    inodes: cap?.inodes,
  };
}
