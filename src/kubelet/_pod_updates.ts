/**
 * What the sources and the eviction manager ask for a pod, turned into pod worker updates
 * (kubelet HandlePodAdditions, HandlePodUpdates, HandlePodRemoves): a removed pod is killed,
 * an added one admitted and created, an updated one updated, an evicted one stopped for good.
 */
import type { V1Pod, V1PodCondition } from "@kubernetes/client-node";
import type { Logger } from "../util/log.ts";
import type { PodSourceUpdate } from "../sources/types.ts";
import type { AllocationManager } from "../allocation/mod.ts";
import type { PodManager } from "./pod_manager.ts";
import type { PodWorkers } from "./pod_workers.ts";
import type { StatusManager } from "./status_manager.ts";
import type { WorkQueue } from "./_work_queue.ts";
import { podRef } from "./_pod_ref.ts";
import { rejectPod } from "./_reject.ts";
import type { KubeletDeps } from "./types.ts";

/** The sync loop's parts these steps work on. */
export interface PodUpdateParts {
  podManager: PodManager;
  statuses: StatusManager;
  workers: PodWorkers;
  workQueue: WorkQueue;
  allocation: AllocationManager;
  deps: KubeletDeps;
  log: Logger;
  /** The pod the workers run: its spec with the resources it was allocated. */
  allocated: (pod: V1Pod) => V1Pod;
  /** The pod with the status last computed for it. */
  withStatus: (pod: V1Pod) => V1Pod;
}

export function applySourceUpdate(update: PodSourceUpdate, parts: PodUpdateParts): void {
  // The sources log their problems when they appear; here they only reach /sources.
  const changes = parts.podManager.apply(update, parts.deps.clock.now());
  for (const pod of changes.removed) {
    parts.log.info("Pod removed from its source; stopping it", podFields(pod));
    parts.workQueue.delete(pod.metadata!.uid!);
    parts.workers.updatePod({ type: "kill", pod: parts.allocated(pod), removed: true });
    parts.allocation.removePod(pod.metadata!.uid!);
  }
  const admitted: V1Pod[] = [];
  for (const pod of changes.added) {
    if (killIfDeleted(pod, parts)) continue;
    // Admitted beside what the others were allocated; a pod known before a restart keeps
    // what it was given.
    const verdict = parts.allocation.addPod(
      pod,
      parts.podManager.pods().filter((p) => parts.workers.isActive(p.metadata!.uid!))
        .map((p) => parts.withStatus(p)),
    );
    if (!verdict.admit) {
      rejectPod(pod, verdict, { ...parts.deps, statuses: parts.statuses });
      continue;
    }
    parts.log.info("Pod added", podFields(pod));
    admitted.push(pod);
    parts.workers.updatePod({ type: "create", pod: parts.allocated(pod) });
  }
  // Resize conditions the API shows, and resizes a restart left pending.
  if (admitted.length > 0) parts.allocation.podsAdded(admitted);
  for (const pod of changes.updated) {
    if (killIfDeleted(pod, parts)) continue;
    parts.log.info("Pod updated", podFields(pod));
    parts.allocation.podUpdated(changes.replaced.get(pod.metadata!.uid!), pod);
    parts.workers.updatePod({ type: "update", pod: parts.allocated(pod) });
  }
}

/**
 * A pod the API server is deleting (deletionTimestamp set) is stopped within its
 * deletionGracePeriodSeconds and not started again; once it has terminated the status sink
 * deletes it for good (upstream's graceful deletion).
 */
function killIfDeleted(pod: V1Pod, parts: PodUpdateParts): boolean {
  if (!pod.metadata?.deletionTimestamp) return false;
  const uid = pod.metadata.uid!;
  if (parts.workers.state(uid) === undefined || parts.workers.state(uid) === "syncing") {
    parts.log.info("Pod is being deleted; stopping it", {
      ...podFields(pod),
      gracePeriod: pod.metadata.deletionGracePeriodSeconds,
    });
  }
  parts.workQueue.delete(uid);
  parts.workers.updatePod({
    type: "kill",
    pod: parts.allocated(pod),
    gracePeriodSeconds: pod.metadata.deletionGracePeriodSeconds,
  });
  return true;
}

/** How a pod is evicted: the status it ends with, the grace period, the caller's abort. */
export interface EvictOptions {
  reason: string;
  message: string;
  gracePeriodSeconds?: number;
  condition?: V1PodCondition;
  signal?: AbortSignal;
}

/**
 * Stops a pod for good while it stays desired (eviction): its status turns Failed with
 * `reason`/`message` (and `condition`, e.g. DisruptionTarget) and its containers are killed
 * within the grace period. The pod is not started again unless its manifest changes (a new
 * UID). Resolves once the pod's containers are stopped.
 */
export async function evictPod(
  uid: string,
  parts: PodUpdateParts,
  opts: EvictOptions,
): Promise<void> {
  const pod = parts.podManager.get(uid);
  if (!pod) return;
  const current = parts.statuses.get(uid) ?? {};
  const now = new Date(Math.floor(parts.deps.clock.now() / 1000) * 1000);
  const conditions = (current.conditions ?? []).filter((c) => c.type !== opts.condition?.type);
  if (opts.condition) conditions.push({ ...opts.condition, lastTransitionTime: now });
  parts.statuses.set(uid, {
    ...current,
    phase: "Failed",
    reason: opts.reason,
    message: opts.message,
    conditions,
  });
  parts.log.warn("Evicting pod", {
    ...podFields(pod),
    reason: opts.reason,
    message: opts.message,
  });
  parts.workQueue.delete(uid);
  parts.workers.updatePod({
    type: "kill",
    pod: parts.allocated(pod),
    gracePeriodSeconds: opts.gracePeriodSeconds,
  });
  await parts.workers.whenTerminated(uid, { signal: opts.signal });
}

function podFields(pod: V1Pod) {
  return { pod: podRef(pod), uid: pod.metadata?.uid };
}
