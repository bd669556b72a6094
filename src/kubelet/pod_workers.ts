/**
 * One async loop per pod UID (the kubelet's podWorkers). Each worker holds a single pending
 * update: a newer update replaces the one not yet started, so a burst of changes costs one sync.
 * Work for one pod is serialised; different pods proceed concurrently.
 *
 * A worker moves syncing → terminating → terminated, never back. A kill request aborts an
 * in-flight sync (its signal fires) so termination starts promptly.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { PodStatusCache } from "../pleg/types.ts";
import type { RunningPod, RuntimePodStatus } from "../runtime/types.ts";
import { podRef } from "./_pod_ref.ts";

export type PodWorkState = "syncing" | "terminating" | "terminated";

/** The only moves a worker may make; the compiler rejects any other `transition` call. */
interface Transitions {
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
  /** When to sync again without an event; undefined = the normal resync period. */
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
}

interface Worker {
  uid: string;
  state: PodWorkState;
  pod?: V1Pod;
  runningPod?: RunningPod;
  pending?: PodUpdate;
  kill?: { gracePeriodSeconds?: number; removed: boolean };
  /** A create for the same UID that arrived while the old incarnation was being torn down. */
  restartWith?: PodUpdate;
  lastSyncTime: number;
  inflight?: AbortController;
  wake?: () => void;
  finished: boolean;
  /** Resolved when the worker finishes terminating (whenTerminated). */
  onFinished: (() => void)[];
  loop?: Promise<void>;
  log: Logger;
}

export class PodWorkers {
  readonly #deps: PodWorkersDeps;
  readonly #workers = new Map<string, Worker>();
  readonly #root = new AbortController();

  constructor(deps: PodWorkersDeps) {
    this.#deps = deps;
  }

  /** Queues work for a pod. Never blocks. */
  updatePod(u: PodUpdate): void {
    const uid = u.pod?.metadata?.uid ?? u.runningPod?.uid;
    if (!uid || this.#root.signal.aborted) return;
    let w = this.#workers.get(uid);
    if (!w) {
      if (u.type === "kill" && !u.runningPod && !u.pod) return;
      w = this.#newWorker(uid, u);
    }
    if (u.type === "kill") {
      this.#requestKill(w, u);
      return;
    }
    if (w.state !== "syncing" || w.kill) {
      // A pod that is going away only comes back as a fresh worker once the old one is done.
      if (u.type === "create" && w.kill?.removed) w.restartWith = u;
      return;
    }
    // A newer update supersedes the pending one; keep the stronger type for logs/metrics.
    w.pending = { ...u, type: w.pending?.type === "create" ? "create" : u.type };
    if (u.pod) w.pod = u.pod;
    this.#wake(w);
  }

  /** The state of a pod's worker, or undefined when there is none. */
  state(uid: string): PodWorkState | undefined {
    return this.#workers.get(uid)?.state;
  }

  /** True while the worker exists and has not finished terminating. */
  isActive(uid: string): boolean {
    const w = this.#workers.get(uid);
    return !!w && !w.finished;
  }

  knownUids(): string[] {
    return [...this.#workers.keys()];
  }

  /** UIDs whose workers have not finished (syncing or still terminating). */
  activeUids(): string[] {
    return [...this.#workers.values()].filter((w) => !w.finished).map((w) => w.uid);
  }

  /**
   * Forgets finished workers of pods that are no longer desired (housekeeping). A terminal pod
   * that is still desired keeps its finished worker so it is not started again.
   */
  syncKnownPods(desired: Set<string>): void {
    for (const [uid, w] of this.#workers) {
      if (w.finished && !desired.has(uid)) this.#workers.delete(uid);
    }
  }

  /**
   * Resolves once the pod's worker has finished terminating (at once when there is no worker
   * or it already has). Rejects with the signal's reason on abort.
   */
  whenTerminated(uid: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const w = this.#workers.get(uid);
    if (!w || w.finished) return Promise.resolve();
    const signal = opts.signal;
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal!.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      w.onFinished.push(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      });
    });
  }

  /** Aborts every worker and waits for their loops to return. */
  async stop(): Promise<void> {
    this.#root.abort(new Error("pod workers stopped"));
    await Promise.allSettled([...this.#workers.values()].map((w) => w.loop));
  }

  #newWorker(uid: string, u: PodUpdate): Worker {
    const pod = u.pod;
    const ref = pod ? podRef(pod) : `${u.runningPod?.namespace}/${u.runningPod?.name}`;
    const w: Worker = {
      uid,
      state: "syncing",
      pod,
      runningPod: u.runningPod,
      lastSyncTime: 0,
      finished: false,
      onFinished: [],
      log: this.#deps.logger.child({ pod: ref, uid }),
    };
    this.#workers.set(uid, w);
    this.#start(w);
    return w;
  }

  #start(w: Worker): void {
    w.finished = false;
    w.loop = this.#run(w).catch((e) => {
      // #run handles its own errors; anything here is a bug worth seeing.
      w.log.error("Pod worker crashed", { err: e });
    });
  }

  #requestKill(w: Worker, u: PodUpdate): void {
    const removed = (w.kill?.removed ?? false) || (u.removed ?? false);
    const prev = w.kill?.gracePeriodSeconds;
    const grace = prev === undefined
      ? u.gracePeriodSeconds
      : Math.min(prev, u.gracePeriodSeconds ?? prev);
    w.kill = { gracePeriodSeconds: grace, removed };
    if (u.runningPod) w.runningPod = u.runningPod;
    if (w.finished && removed && w.state === "terminated") {
      // A terminal pod kept for its status is now removed: clean up what it left behind.
      this.#start(w);
    }
    w.inflight?.abort(new Error("pod is being killed"));
    this.#wake(w);
  }

  #wake(w: Worker): void {
    const f = w.wake;
    w.wake = undefined;
    f?.();
  }

  async #waitForWork(w: Worker, signal: AbortSignal): Promise<void> {
    while (!w.pending && !w.kill && w.state === "syncing") {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        w.wake = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
      });
    }
  }

  #transition<S extends PodWorkState>(w: Worker & { state: S }, to: Transitions[S]): void {
    w.log.debug(2, "Pod worker state change", { from: w.state, to });
    (w as Worker).state = to;
  }

  async #run(w: Worker): Promise<void> {
    const signal = this.#root.signal;
    let retries = 0;
    while (!signal.aborted) {
      try {
        await this.#waitForWork(w, signal);
      } catch {
        return; // stopped
      }
      if (w.state === "syncing" && !w.kill) {
        await this.#syncOnce(w, signal);
        continue;
      }
      if (w.state === "syncing") {
        this.#transition(w as Worker & { state: "syncing" }, "terminating");
      }
      const ok = w.state === "terminating"
        ? await this.#step(
          w,
          "terminating",
          (s) =>
            this.#deps.syncer.syncTerminatingPod(this.#target(w), {
              gracePeriodSeconds: w.kill?.gracePeriodSeconds,
              signal: s,
            }),
        )
        : await this.#step(
          w,
          "terminated",
          (s) =>
            this.#deps.syncer.syncTerminatedPod(this.#target(w), {
              removed: w.kill?.removed ?? false,
              signal: s,
            }),
        );
      if (!ok) {
        retries++;
        const base = this.#deps.retryBaseMs ?? 1000;
        const delay = Math.min(base * 2 ** (retries - 1), 30_000);
        try {
          await this.#deps.clock.sleep(delay, { signal });
        } catch {
          return;
        }
        continue;
      }
      retries = 0;
      if (w.state === "terminating") {
        this.#transition(w as Worker & { state: "terminating" }, "terminated");
        continue;
      }
      this.#finish(w);
      return;
    }
  }

  #finish(w: Worker): void {
    w.finished = true;
    for (const f of w.onFinished.splice(0)) f();
    if (!w.kill?.removed) return; // terminal but still desired: keep the record
    this.#workers.delete(w.uid);
    const again = w.restartWith;
    if (again) {
      w.log.info("Starting pod again after its previous incarnation was removed");
      this.updatePod(again);
    }
  }

  #target(w: Worker): PodTarget {
    return { uid: w.uid, pod: w.pod, runningPod: w.runningPod };
  }

  async #step(
    w: Worker,
    op: "terminating" | "terminated",
    fn: (signal: AbortSignal) => Promise<void>,
  ): Promise<boolean> {
    const start = this.#deps.clock.now();
    try {
      await fn(this.#root.signal);
      return true;
    } catch (e) {
      if (!this.#root.signal.aborted) w.log.warn(`Pod ${op} step failed; will retry`, { err: e });
      return false;
    } finally {
      this.#deps.onWorkDone?.(op, this.#deps.clock.now() - start);
    }
  }

  async #syncOnce(w: Worker, root: AbortSignal): Promise<void> {
    const update = w.pending!;
    w.pending = undefined;
    const pod = w.pod;
    if (!pod) return;
    const ac = new AbortController();
    w.inflight = ac;
    const signal = AbortSignal.any([root, ac.signal]);
    const start = this.#deps.clock.now();
    try {
      // Wait for a status read strictly after our previous sync ended, so the sync never acts on
      // a view that misses containers it just created.
      const status = await this.#deps.cache.getNewerThan(w.uid, w.lastSyncTime + 1, { signal });
      let outcome: SyncOutcome;
      try {
        outcome = await this.#deps.syncer.syncPod(pod, status, { signal, updateType: update.type });
      } finally {
        w.lastSyncTime = this.#deps.clock.now();
      }
      if (outcome.terminal) {
        w.log.info("Pod reached a terminal phase; stopping it");
        w.kill ??= { removed: false };
      } else {
        this.#deps.requeue(w.uid, outcome.requeueAfterMs);
      }
    } catch (e) {
      if (!signal.aborted) {
        w.log.warn("Pod sync failed; will retry", { err: e });
        this.#deps.requeue(w.uid, undefined, e);
      }
    } finally {
      w.inflight = undefined;
      this.#deps.onWorkDone?.(update.type, this.#deps.clock.now() - start);
    }
  }
}
