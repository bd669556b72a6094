/**
 * Which pod goes first (upstream rankMemoryPressure, rankDiskPressureFunc, rankPIDPressure):
 * pods without stats, then pods using more than they requested, then lower priority, then
 * the largest use above requests. Also the critical-pod rule and the pod request sums.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { tryIntegerQuantity } from "../util/quantity.ts";
import { isStaticPod } from "../util/static_pod.ts";
import {
  aggregateContainers,
  isPodLevelResource,
  podLevelList,
  podLevelRequestsSet,
  podLevelResourcesSet,
} from "../util/pod_level.ts";
import type { EvictionSummary, Signal } from "./types.ts";

export type PodStats = EvictionSummary["pods"][number];
export type StatsOf = (pod: V1Pod) => PodStats | undefined;

/** upstream scheduling.SystemCriticalPriority: priorities at or above it are critical. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
const CONFIG_MIRROR = "kubernetes.io/config.mirror";

/**
 * upstream kubelettypes.IsCriticalPod: static, mirror, or priority >= 2e9. With
 * `evictStaticPods` (denolet opt-in) only the priority rule (and mirror pods) counts.
 */
export function isCriticalPod(pod: V1Pod, opts: { evictStaticPods: boolean }): boolean {
  if (!opts.evictStaticPods && isStaticPod(pod)) return true;
  if (pod.metadata?.annotations?.[CONFIG_MIRROR] !== undefined) return true;
  return podPriority(pod) >= SYSTEM_CRITICAL_PRIORITY;
}

export function podPriority(pod: V1Pod): number {
  return pod.spec?.priority ?? 0;
}

function request(c: V1Container, resource: string): number {
  const raw = c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource];
  if (raw === undefined) return 0;
  return tryIntegerQuantity(raw)?.value ?? 0;
}

/**
 * The pod's effective request (GetResourceRequestQuantity): the larger of the app containers'
 * sum (plus restartable init containers) and each init container's; with pod-level resources
 * set, the pod-level request alone (upstream skips the containers then, even for resources
 * that cannot be pod-level). Overhead is added to a non-zero request. A limit without a
 * request counts as the request, as API defaulting would have made it.
 */
export function podRequest(pod: V1Pod, resource: string): number {
  let total: number;
  if (podLevelResourcesSet(pod)) {
    const q = podLevelRequestsSet(pod) && isPodLevelResource(resource)
      ? podLevelList(pod, "requests")[resource]
      : undefined;
    total = q === undefined ? 0 : tryIntegerQuantity(q)?.value ?? 0;
  } else {
    total = aggregateContainers(pod, (c) => request(c, resource));
  }
  const overhead = pod.spec?.overhead?.[resource];
  if (overhead !== undefined && total !== 0) total += tryIntegerQuantity(overhead)?.value ?? 0;
  return total;
}

type Cmp = (a: V1Pod, b: V1Pod) => number;

/** true sorts first. */
const cmpBool = (a: boolean, b: boolean) => (a === b ? 0 : a ? -1 : 1);

/** Wraps a comparison so pods without stats sort first. */
function withStats(
  stats: StatsOf,
  cmp: (a: PodStats, b: PodStats, pa: V1Pod, pb: V1Pod) => number,
) {
  return (pa: V1Pod, pb: V1Pod) => {
    const a = stats(pa);
    const b = stats(pb);
    if (!a || !b) return cmpBool(!a, !b);
    return cmp(a, b, pa, pb);
  };
}

const byPriority: Cmp = (a, b) => Math.sign(podPriority(a) - podPriority(b));

function orderedBy(pods: V1Pod[], ...cmps: Cmp[]): V1Pod[] {
  return [...pods].sort((a, b) => {
    for (const cmp of cmps) {
      const r = cmp(a, b);
      if (r !== 0) return r;
    }
    return 0;
  });
}

const memoryUsage = (s: PodStats) => s.memory?.workingSetBytes ?? 0;

export function rankMemoryPressure(pods: V1Pod[], stats: StatsOf): V1Pod[] {
  const exceeds = withStats(stats, (a, b, pa, pb) =>
    cmpBool(
      memoryUsage(a) > podRequest(pa, "memory"),
      memoryUsage(b) > podRequest(pb, "memory"),
    ));
  const aboveRequest = withStats(stats, (a, b, pa, pb) =>
    Math.sign(
      (memoryUsage(b) - podRequest(pb, "memory")) - (memoryUsage(a) - podRequest(pa, "memory")),
    ));
  return orderedBy(pods, exceeds, byPriority, aboveRequest);
}

export function rankPIDPressure(pods: V1Pod[], stats: StatsOf): V1Pod[] {
  const procs = (s: PodStats) => s.process_stats?.process_count ?? 0;
  return orderedBy(pods, byPriority, withStats(stats, (a, b) => Math.sign(procs(b) - procs(a))));
}

/** Which parts of a pod's storage count against a disk signal (upstream fsStatsType). */
export type FsParts = { root: boolean; logs: boolean; volumes: boolean };

/** Volumes on local disk (localVolumeNames: hostPath, disk-backed emptyDir, gitRepo, configMap). */
function localVolumeNames(pod: V1Pod): Set<string> {
  const local = (pod.spec?.volumes ?? []).filter((v) =>
    v.hostPath !== undefined || v.gitRepo !== undefined || v.configMap !== undefined ||
    (v.emptyDir !== undefined && (v.emptyDir.medium ?? "") === "")
  );
  return new Set(local.map((v) => v.name));
}

/** Bytes or inodes the pod uses on the measured parts (podDiskUsage). */
export function podDiskUsage(
  pod: V1Pod,
  s: PodStats,
  parts: FsParts,
  unit: "bytes" | "inodes",
): number {
  const pick = (fs?: { usedBytes?: number; inodesUsed?: number }) =>
    (unit === "bytes" ? fs?.usedBytes : fs?.inodesUsed) ?? 0;
  let total = 0;
  for (const c of s.containers ?? []) {
    if (parts.root) total += pick(c.rootfs);
    if (parts.logs) total += pick(c.logs);
  }
  if (parts.volumes) {
    const local = localVolumeNames(pod);
    for (const v of s.volume ?? []) if (v.name !== undefined && local.has(v.name)) total += pick(v);
  }
  return total;
}

export function rankDiskPressure(
  pods: V1Pod[],
  stats: StatsOf,
  opts: { parts: FsParts; unit: "bytes" | "inodes" },
): V1Pod[] {
  const usage = (pod: V1Pod, s: PodStats) => podDiskUsage(pod, s, opts.parts, opts.unit);
  // Upstream compares inode usage with the (nonexistent) "inodes" request, i.e. zero.
  const req = (pod: V1Pod) => (opts.unit === "bytes" ? podRequest(pod, "ephemeral-storage") : 0);
  const exceeds = withStats(
    stats,
    (a, b, pa, pb) => cmpBool(usage(pa, a) > req(pa), usage(pb, b) > req(pb)),
  );
  const above = withStats(stats, (a, b, pa, pb) =>
    Math.sign(
      (usage(pb, b) - podRequest(pb, "ephemeral-storage")) -
        (usage(pa, a) - podRequest(pa, "ephemeral-storage")),
    ));
  return orderedBy(pods, exceeds, byPriority, above);
}

/** The ranking for a signal (buildSignalToRankFunc); with a dedicated imagefs nodefs excludes rootfs. */
export function rankFor(
  signal: Signal,
  dedicatedImageFs: boolean,
): (pods: V1Pod[], stats: StatsOf) => V1Pod[] {
  if (signal === "memory.available") return rankMemoryPressure;
  if (signal === "pid.available") return rankPIDPressure;
  const unit = signal.endsWith("inodesFree") ? "inodes" : "bytes";
  let parts: FsParts = { root: true, logs: true, volumes: true };
  if (dedicatedImageFs) {
    parts = signal.startsWith("nodefs")
      ? { root: false, logs: true, volumes: true }
      : { root: true, logs: false, volumes: false };
  }
  return (pods, stats) => rankDiskPressure(pods, stats, { parts, unit });
}
