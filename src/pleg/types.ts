import type { RunningPod, RuntimePodStatus } from "../runtime/types.ts";

export type PodLifecycleEventType =
  | "ContainerStarted"
  | "ContainerDied"
  | "ContainerRemoved"
  | "ContainerChanged"
  | "PodSync";

export interface PodLifecycleEvent {
  uid: string;
  type: PodLifecycleEventType;
  /** Container id (for container events). */
  data?: string;
}

/**
 * Latest runtime status per pod UID, written by the PLEG after each relist and read by pod
 * workers. `getNewerThan` lets a worker wait until the cache reflects its own last actions.
 */
export interface PodStatusCache {
  get(uid: string): RuntimePodStatus | undefined;
  set(uid: string, status: RuntimePodStatus): void;
  delete(uid: string): void;
  /** Resolves with a status whose timestamp is >= `minTime` (ms), waiting for a relist if needed. */
  getNewerThan(
    uid: string,
    minTime: number,
    opts?: { signal?: AbortSignal },
  ): Promise<RuntimePodStatus>;
  /** Time (ms) of the last completed relist: every pod's status is at least this fresh. */
  readonly globalTimestamp: number;
}

export interface Pleg {
  /**
   * Relists every `relistPeriodMs` until the signal aborts, updating the cache and calling
   * `onEvent` for each container change. Never throws: a failed relist is logged, counted and
   * reflected in `healthy()`.
   */
  run(onEvent: (e: PodLifecycleEvent) => void, opts: { signal: AbortSignal }): Promise<void>;
  /**
   * What the runtime ran at the last successful relist, one entry per pod UID (empty before the
   * first). Cheap: housekeeping reads it instead of listing the runtime again.
   */
  runningPods(): RunningPod[];
  /**
   * Asks for a relist shortly (a sync just changed something), ahead of the period. Cheap;
   * requests before that relist runs fold into one.
   */
  requestRelist(): void;
  /**
   * Asks for the pod's status to be read again at the next (early) relist even when none of its
   * containers changed state, followed by a PodSync event (RequestPodReinspect: a resize
   * changed its resources). Cheap.
   */
  requestReinspect?(uid: string): void;
  /** False when the last successful relist is older than the threshold (upstream: 3 min). */
  healthy(): { ok: boolean; message?: string };
}
