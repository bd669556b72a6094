/**
 * The three phases a pod worker drives (sync, terminating, terminated), carried out through the
 * runtime manager, with the API status recomputed along the way.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { CgroupValues, PodRuntime, RuntimePodStatus } from "../runtime/mod.ts";
import { toRunningPod } from "../runtime/mod.ts";
import type { ProbeManager } from "../prober/types.ts";
import { DenoletError } from "../util/errors.ts";
import { computePodStatus } from "./_pod_status.ts";
import type { PodSyncer, PodTarget, SyncOutcome } from "./pod_workers.ts";
import type { StatusManager, WaitingReason } from "./status_manager.ts";
import { podRef } from "./_pod_ref.ts";
import { activeDeadlineLeftMs } from "./_active_deadline.ts";
import { type EventRecorder, podObjectRef } from "../events/mod.ts";
import { REASON_ERROR, type ResizeConditions, resizeEventMessage } from "../allocation/mod.ts";

export interface PodSyncerDeps {
  runtime: PodRuntime;
  statuses: StatusManager;
  clock: Clock;
  logger: Logger;
  /** The node IP, for status.hostIP and env. */
  hostIP: () => string | undefined;
  /** Both node IPs of a dual-stack node (primary first); default the hostIP alone. */
  hostIPs?: () => string[] | undefined;
  /** How soon to look again at a pod whose last sync hit an error (back-off, pull failure). */
  errorRequeueMs?: number;
  /** Probe results for readiness/startup, and workers started for each synced pod. */
  prober?: ProbeManager;
  /** Called when a sync changed something in the runtime (the PLEG relists early). */
  onRuntimeChanged?: () => void;
  /**
   * InPlacePodLevelResourcesVerticalScaling: the status shows the pod's resources (its cgroup's
   * while it runs) and what it was allocated.
   */
  podLevelStatus?: boolean;
  /** In-place resize: the pods' resize conditions, their events, and a fresh look after one. */
  resize?: {
    conditions: ResizeConditions;
    events?: EventRecorder;
    /** Reads the pod's status again soon and syncs it (a resize changed its resources). */
    reinspect?: (uid: string) => void;
    /** A resize was applied to every running container (its status now says so). */
    completed?: () => void;
  };
}

export function createPodSyncer(deps: PodSyncerDeps): PodSyncer {
  const { runtime, statuses, clock } = deps;

  /** `terminal`: the pod was stopped for good (upstream's podIsTerminal after termination). */
  /** What the pod's cgroup holds, for status.resources of a running pod. */
  const podCgroup = async (pod: V1Pod): Promise<CgroupValues | undefined> => {
    const uid = pod.metadata!.uid!;
    if (!deps.podLevelStatus || statuses.get(uid)?.phase !== "Running") return undefined;
    return await runtime.podCgroupValues?.(pod);
  };

  const updateStatus = (
    pod: V1Pod,
    rs: RuntimePodStatus,
    terminal = false,
    cgroup?: CgroupValues,
  ) => {
    const uid = pod.metadata!.uid!;
    const conditions = deps.resize?.conditions;
    if (terminal) {
      // determinePodResizeStatus: a finished pod has no resize to speak of.
      conditions?.clearPending(uid);
      conditions?.clearInProgress(uid);
    }
    const status = computePodStatus(pod, rs, {
      resizeConditions: conditions?.list(uid),
      podResources: deps.podLevelStatus ? { cgroup } : undefined,
      terminal,
      reasons: statuses.reasons(uid),
      previous: statuses.get(uid),
      hostIP: deps.hostIP(),
      hostIPs: deps.hostIPs?.(),
      now: clock.now(),
      readiness: deps.prober?.readiness(uid),
      startup: deps.prober?.startup(uid),
      recursiveReadOnlyMounts: () => runtime.recursiveReadOnlyMounts?.(pod) ?? false,
    });
    statuses.set(uid, status);
    return status;
  };

  const freshStatus = (t: PodTarget, signal: AbortSignal) => {
    const name = t.pod?.metadata?.name ?? t.runningPod?.name ?? "";
    const ns = t.pod?.metadata?.namespace ?? t.runningPod?.namespace ?? "";
    return runtime.getPodStatus(t.uid, name, ns, { signal });
  };

  /**
   * Before the status: PodResizeInProgress while an allocated resize is not applied to every
   * running container, cleared (with ResizeCompleted) once it is.
   */
  const trackResize = (pod: V1Pod, rs: RuntimePodStatus): boolean => {
    const r = deps.resize;
    if (!r || !runtime.resizeInProgress) return false;
    const uid = pod.metadata!.uid!;
    if (runtime.resizeInProgress(pod, rs)) {
      r.conditions.setInProgress(uid, "", "", pod.metadata?.generation ?? 0);
      return false;
    }
    const { generation, cleared } = r.conditions.clearInProgress(uid);
    if (cleared) {
      resizeEvent(pod, "Normal", "ResizeCompleted", "Pod resize completed", { generation });
    }
    return cleared;
  };

  /** A resize step failed: PodResizeInProgress says why (once per error, with an event). */
  const resizeError = (pod: V1Pod, message: string): boolean => {
    const r = deps.resize;
    if (!r) return false;
    const { generation, changed } = r.conditions.setInProgress(
      pod.metadata!.uid!,
      REASON_ERROR,
      message,
      pod.metadata?.generation ?? 0,
    );
    if (changed) {
      resizeEvent(pod, "Warning", "ResizeError", "Pod resize error", {
        generation,
        error: message,
      });
    }
    return changed;
  };

  const resizeEvent = (
    pod: V1Pod,
    type: "Normal" | "Warning",
    reason: string,
    prefix: string,
    opts: { generation: number; error?: string },
  ) => {
    deps.resize?.events?.event(
      podObjectRef(pod),
      type,
      reason,
      resizeEventMessage(prefix, pod, opts),
    );
  };

  return {
    async syncPod(pod, rs, { signal }): Promise<SyncOutcome> {
      const uid = pod.metadata!.uid!;
      const completed = trackResize(pod, rs);
      const cgroup = await podCgroup(pod);
      const before = updateStatus(pod, rs, false, cgroup);
      if (completed) deps.resize?.completed?.();
      if (before.phase === "Succeeded" || before.phase === "Failed") return { terminal: true };
      deps.prober?.addPod(pod);
      const result = await runtime.syncPod(pod, rs, { hostIP: deps.hostIP(), signal });
      if (result.acted) deps.onRuntimeChanged?.();
      const reasons = new Map<string, WaitingReason>();
      for (const e of result.errors) {
        if (e.container) reasons.set(e.container, { reason: e.reason, message: e.message });
        else {
          deps.logger.warn("Pod sync step failed", {
            pod: podRef(pod),
            uid,
            reason: e.reason,
            err: e.message,
          });
        }
      }
      const changed = !sameReasons(statuses.reasons(uid), reasons);
      statuses.setReasons(uid, reasons);
      const resizeFailed = result.resizeError !== undefined && resizeError(pod, result.resizeError);
      if (result.resized) deps.resize?.reinspect?.(uid);
      if (changed || resizeFailed) updateStatus(pod, rs, false, cgroup);
      // A pod with an active deadline is looked at again when it falls due, to end it then.
      const deadline = activeDeadlineLeftMs(pod, { startTime: before.startTime, now: clock.now() });
      const retry = result.errors.length > 0 ? (deps.errorRequeueMs ?? 2000) : undefined;
      return { terminal: false, requeueAfterMs: earliest(retry, deadline) };
    },

    async syncTerminatingPod(t, { gracePeriodSeconds, signal }) {
      deps.prober?.removePod(t.uid);
      const rs = await freshStatus(t, signal);
      await runtime.killPod(t.pod, toRunningPod(rs), { gracePeriodSeconds, signal });
      deps.onRuntimeChanged?.();
      const after = await freshStatus(t, signal);
      const still = after.containers.filter((c) => c.state === "running");
      if (still.length > 0) {
        throw new DenoletError(
          `Cannot finish stopping pod: containers still running: ${
            still.map((c) => c.name).join(", ")
          }`,
        );
      }
      // A stopped pod's containers will not run again: a deleted or evicted API pod reaches
      // Succeeded or Failed whatever its restart policy, as upstream (static pods excepted).
      if (t.pod) updateStatus(t.pod, after, true);
    },

    async syncTerminatedPod(t, { removed, signal }) {
      if (!removed) {
        // A finished pod keeps its dead containers (status, logs) but gives back its volumes
        // (an evicted pod's tmpfs is memory the node needs) and its cgroup.
        await runtime.releasePod(t.uid, { signal });
        return;
      }
      const rs = await freshStatus(t, signal);
      await runtime.removePod(toRunningPod(rs), { signal });
      runtime.forgetPod(t.uid);
      statuses.delete(t.uid);
    },
  };
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b === undefined ? undefined : Math.max(0, b);
  return b === undefined ? a : Math.max(0, Math.min(a, b));
}

function sameReasons(a: Map<string, WaitingReason>, b: Map<string, WaitingReason>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    const o = b.get(k);
    if (!o || o.reason !== v.reason || o.message !== v.message) return false;
  }
  return true;
}
