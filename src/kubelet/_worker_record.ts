/** One pod worker's record: what its loop knows about the pod between steps. */
import type { V1Pod } from "@kubernetes/client-node";
import type { Logger } from "../util/log.ts";
import type { RunningPod } from "../runtime/types.ts";
import type { PodUpdate, PodWorkState } from "./_worker_types.ts";

export interface Worker {
  uid: string;
  /** `namespace/name`: static pods sharing it never run at once. */
  fullName: string;
  /** Came from a file or URL (not the API server): subject to the start gate. */
  isStatic: boolean;
  state: PodWorkState;
  pod?: V1Pod;
  runningPod?: RunningPod;
  pending?: PodUpdate;
  kill?: { gracePeriodSeconds?: number; removed: boolean };
  /** A create for the same UID that arrived while the old incarnation was being torn down. */
  restartWith?: PodUpdate;
  /** Allowed past the start gate (always true for pods that are not static). */
  started: boolean;
  /** Waiting at the start gate: pending work stays until the gate opens or a kill arrives. */
  gated: boolean;
  lastSyncTime: number;
  inflight?: AbortController;
  /** The running termination step, aborted when a shorter grace period arrives. */
  terminationInflight?: AbortController;
  wake?: () => void;
  finished: boolean;
  /** Resolved when the worker finishes terminating (whenTerminated). */
  onFinished: (() => void)[];
  loop?: Promise<void>;
  log: Logger;
}

/** The grace period a kill uses: the override, else what the pod asks for (upstream default 30). */
export function effectiveGrace(w: Worker, override: number | undefined): number {
  return override ?? w.pod?.metadata?.deletionGracePeriodSeconds ??
    w.pod?.spec?.terminationGracePeriodSeconds ?? 30;
}
