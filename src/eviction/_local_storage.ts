/**
 * Local storage limits (upstream localStorageEviction): a pod whose emptyDir outgrows its
 * `sizeLimit`, whose containers together outgrow their summed ephemeral-storage limits, or one
 * of whose containers (writable layer plus logs) outgrows its own limit is evicted, whatever
 * the node's free space. The messages are upstream's, word for word.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { aggregateContainers } from "../util/pod_level.ts";
import { formatQuantity, tryIntegerQuantity } from "../util/quantity.ts";
import { isRestartableInit } from "../util/sidecar.ts";
import type { Logger } from "../util/log.ts";
import type { PodStats } from "./_rank.ts";
import type { EvictionSummary } from "./types.ts";

const EPHEMERAL = "ephemeral-storage";

/** The `kubelet_evictions` signal label of each kind (upstream's internal signals). */
export type LocalStorageSignal =
  | "emptydirfs.limit"
  | "ephemeralpodfs.limit"
  | "ephemeralcontainerfs.limit";

export interface LocalStorageViolation {
  signal: LocalStorageSignal;
  message: string;
}

/** A quantity as Quantity.String() prints it, in the format its suffix implies. */
function printed(raw: unknown): { value: number; text: string } | undefined {
  const q = tryIntegerQuantity(raw);
  return q && { value: q.value, text: formatQuantity(q.value, q.format) };
}

function storageLimit(c: V1Container): unknown {
  return (c.resources?.limits as Record<string, unknown> | undefined)?.[EPHEMERAL];
}

/** Whether any local storage limit applies to the pod: only then are its stats worth reading. */
export function hasLocalStorageLimit(pod: V1Pod): boolean {
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  return all.some((c) => storageLimit(c) !== undefined) ||
    (pod.spec?.volumes ?? []).some((v) => v.emptyDir?.sizeLimit !== undefined);
}

/** The first limit the pod is over, in upstream's order: emptyDir, pod total, container. */
export function localStorageViolation(
  pod: V1Pod,
  stats: PodStats,
): LocalStorageViolation | undefined {
  return emptyDirOverLimit(pod, stats) ?? podOverLimit(pod, stats) ??
    containerOverLimit(pod, stats);
}

function emptyDirOverLimit(pod: V1Pod, stats: PodStats): LocalStorageViolation | undefined {
  const used = new Map((stats.volume ?? []).map((v) => [v.name, v.usedBytes]));
  for (const v of pod.spec?.volumes ?? []) {
    if (!v.emptyDir) continue;
    const size = printed(v.emptyDir.sizeLimit);
    const usage = used.get(v.name);
    if (!size || size.value <= 0 || usage === undefined || usage <= size.value) continue;
    return {
      signal: "emptydirfs.limit",
      message: `Usage of EmptyDir volume ${JSON.stringify(v.name)} exceeds the limit ${
        JSON.stringify(size.text)
      }. `,
    };
  }
  return undefined;
}

/** PodLimits' ephemeral-storage: the containers' limits as the pod needs them, plus overhead. */
function podStorageLimit(pod: V1Pod): { value: number; text: string } | undefined {
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  const first = all.map((c) => tryIntegerQuantity(storageLimit(c))).find((q) => q);
  if (!first) return undefined;
  let value = aggregateContainers(pod, (c) => tryIntegerQuantity(storageLimit(c))?.value ?? 0);
  const overhead = tryIntegerQuantity(pod.spec?.overhead?.[EPHEMERAL])?.value ?? 0;
  if (value > 0) value += overhead;
  // A sum keeps the format of the first quantity added, as Quantity.Add does.
  return { value, text: formatQuantity(value, first.format) };
}

function podOverLimit(pod: V1Pod, stats: PodStats): LocalStorageViolation | undefined {
  const limit = podStorageLimit(pod);
  if (!limit) return undefined;
  const used = stats[EPHEMERAL]?.usedBytes ?? 0;
  if (used <= limit.value) return undefined;
  return {
    signal: "ephemeralpodfs.limit",
    message:
      `Pod ephemeral local storage usage exceeds the total limit of containers ${limit.text}. `,
  };
}

function containerOverLimit(pod: V1Pod, stats: PodStats): LocalStorageViolation | undefined {
  const limits = new Map<string, { value: number; text: string }>();
  const limited = [
    ...(pod.spec?.containers ?? []),
    ...(pod.spec?.initContainers ?? []).filter(isRestartableInit),
  ];
  for (const c of limited) {
    const limit = printed(storageLimit(c));
    if (limit && limit.value !== 0) limits.set(c.name, limit);
  }
  for (const cs of stats.containers ?? []) {
    const limit = limits.get(cs.name);
    // No dedicated image filesystem here: the writable layer counts, beside the logs.
    const used = (cs.logs?.usedBytes ?? 0) + (cs.rootfs?.usedBytes ?? 0);
    if (!limit || used <= limit.value) continue;
    return {
      signal: "ephemeralcontainerfs.limit",
      message: `Container ${cs.name} exceeded its local ephemeral storage limit ${
        JSON.stringify(limit.text)
      }. `,
    };
  }
  return undefined;
}

/**
 * Evicts, one after the other, every pod of `pods` over one of its limits; a critical pod is
 * only logged. Returns the last pod evicted, if any.
 */
export async function evictOverLimits(
  pods: readonly V1Pod[],
  summary: EvictionSummary,
  ctx: {
    isCritical: (pod: V1Pod) => boolean;
    /** Kills the pod with the violation's message; resolves when it is done (or given up). */
    evict: (pod: V1Pod, violation: LocalStorageViolation) => Promise<void>;
    log: Logger;
  },
): Promise<V1Pod | undefined> {
  const podStats = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
  let evicted: V1Pod | undefined;
  for (const pod of pods) {
    const stats = podStats.get(pod.metadata?.uid ?? "");
    const violation = stats && localStorageViolation(pod, stats);
    if (!violation) continue;
    if (ctx.isCritical(pod)) {
      ctx.log.error("Eviction manager: cannot evict a critical pod", {
        pod: `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`,
        uid: pod.metadata?.uid,
        message: violation.message,
      });
      continue;
    }
    await ctx.evict(pod, violation);
    evicted = pod;
  }
  return evicted;
}
