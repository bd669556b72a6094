/** What pod workers are told and what they call: updates, targets and the three-phase syncer. */
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { PodStatusCache } from "../pleg/types.ts";
import type { RunningPod, RuntimePodStatus } from "../runtime/types.ts";

export type PodWorkState = "syncing" | "terminating" | "terminated";

/** The only moves a worker may make; the compiler rejects any other `transition` call. */
export interface Transitions {
  syncing: "terminating";
  terminating: "terminated";
  terminated: never;
}

export type UpdateType = "create" | "update" | "sync" | "kill";

export interface PodUpdate {
  type: UpdateType;
  /** The desired pod; absent for orphans that only the runtime knows. */
  pod?: V1Pod;
  /** For orphans: what the runtime runs. */
  runningPod?: RunningPod;
  /** For kill: override of the pod's terminationGracePeriodSeconds (may only shorten it). */
  gracePeriodSeconds?: number;
  /** For kill: the pod left its source, so everything it left behind is removed too. */
  removed?: boolean;
}

/** Who the terminating/terminated calls are about. */
export interface PodTarget {
  uid: string;
  pod?: V1Pod;
  runningPod?: RunningPod;
}

export interface SyncOutcome {
  /** The pod reached Succeeded or Failed: the worker moves on to terminating. */
  terminal: boolean;
  /**
   * Sync again without an event at the latest this soon (capped by the normal resync period);
   * undefined = the normal resync period.
   */
  requeueAfterMs?: number;
}

/** What a worker calls; the kubelet's three-phase podSyncer. */
export interface PodSyncer {
  /**
   * Reconciles a pod that should be running, given the runtime's view. Idempotent. Throws for
   * failures worth a retry after a back-off. Abort: returns or throws soon, between CRI calls.
   */
  syncPod(
    pod: V1Pod,
    status: RuntimePodStatus,
    opts: { signal: AbortSignal; updateType: UpdateType },
  ): Promise<SyncOutcome>;
  /**
   * Stops every container of the pod within the grace period and its sandboxes. Throws if
   * anything still runs afterwards; the worker retries. Idempotent.
   */
  syncTerminatingPod(
    target: PodTarget,
    opts: { gracePeriodSeconds?: number; signal: AbortSignal },
  ): Promise<void>;
  /** Releases what a stopped pod holds; with `removed`, its containers, sandboxes and logs too. */
  syncTerminatedPod(
    target: PodTarget,
    opts: { removed: boolean; signal: AbortSignal },
  ): Promise<void>;
}

export interface PodWorkersDeps {
  syncer: PodSyncer;
  cache: PodStatusCache;
  clock: Clock;
  logger: Logger;
  /** Called after each sync attempt so the caller can schedule the next one. */
  requeue: (uid: string, afterMs: number | undefined, err?: unknown) => void;
  /** Observes how long each operation took: the update type (create/update/sync) or the phase. */
  onWorkDone?: (operation: string, ms: number) => void;
  /** Pause before retrying a failed termination step. Default 1 s, doubling to 30 s. */
  retryBaseMs?: number;
  /**
   * Live runtime pods with the same namespace and name as `pod` but another UID that no source
   * asks for (a static pod whose manifest changed while the agent was down). A static pod does
   * not start while any exist; they are killed first. Reads the last relist; cheap.
   */
  otherInstances?: (pod: V1Pod) => RunningPod[];
  /** A worker finished terminating (both phases done). `pod` is absent for orphans. */
  onTerminated?: (uid: string, pod: V1Pod | undefined) => void;
}
