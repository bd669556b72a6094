/**
 * One async loop per pod UID (the kubelet's podWorkers). Each worker holds a single pending
 * update: a newer update replaces the one not yet started, so a burst of changes costs one sync.
 * Work for one pod is serialised; different pods proceed concurrently.
 *
 * A worker moves syncing → terminating → terminated, never back. A kill request aborts an
 * in-flight sync (its signal fires) so termination starts promptly; a kill with a shorter grace
 * period restarts a termination in progress with that period. A static pod does not start while
 * another pod with its full name is still running (StaticPodStartGate).
 */
import { podRef } from "./_pod_ref.ts";
import { isStaticPod } from "../util/static_pod.ts";
import { effectiveGrace, type Worker } from "./_worker_record.ts";
import { StaticPodStartGate } from "./_static_pod_gate.ts";
import type {
  PodTarget,
  PodUpdate,
  PodWorkersDeps,
  PodWorkState,
  SyncOutcome,
  Transitions,
} from "./_worker_types.ts";

export type {
  PodSyncer,
  PodTarget,
  PodUpdate,
  PodWorkersDeps,
  PodWorkState,
  SyncOutcome,
  UpdateType,
} from "./_worker_types.ts";

/** Why a termination step was cut short to run again at once with a shorter grace period. */
const SHORTER_GRACE = new Error("termination restarted with a shorter grace period");

export class PodWorkers {
  readonly #deps: PodWorkersDeps;
  readonly #workers = new Map<string, Worker>();
  readonly #root = new AbortController();
  readonly #gate = new StaticPodStartGate();

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

  /** True while a static pod waits for its predecessor of the same name to terminate. */
  isWaitingToStart(uid: string): boolean {
    const w = this.#workers.get(uid);
    return !!w && !w.started && !w.kill && !w.finished;
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
   * or it already has). Rejects with the signal's reason on abort, at once if already aborted.
   */
  whenTerminated(uid: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const w = this.#workers.get(uid);
    if (!w || w.finished) return Promise.resolve();
    const signal = opts.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const done = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = w.onFinished.indexOf(done);
        if (i >= 0) w.onFinished.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      w.onFinished.push(done);
    });
  }

  /** Aborts every worker and waits for their loops to return. */
  async stop(): Promise<void> {
    this.#root.abort(new Error("pod workers stopped"));
    await Promise.allSettled([...this.#workers.values()].map((w) => w.loop));
  }

  #newWorker(uid: string, u: PodUpdate): Worker {
    const pod = u.pod;
    const ns = pod?.metadata?.namespace ?? u.runningPod?.namespace ?? "default";
    const name = pod?.metadata?.name ?? u.runningPod?.name ?? "";
    const isStatic = pod !== undefined && isStaticPod(pod);
    const w: Worker = {
      uid,
      fullName: `${ns}/${name}`,
      isStatic,
      state: "syncing",
      pod,
      runningPod: u.runningPod,
      started: !isStatic,
      gated: false,
      lastSyncTime: 0,
      finished: false,
      onFinished: [],
      log: this.#deps.logger.child({ pod: pod ? podRef(pod) : `${ns}/${name}`, uid }),
    };
    if (isStatic) this.#gate.enqueue(w.fullName, uid);
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
    const before = w.kill ? effectiveGrace(w, prev) : undefined;
    const shorter = before !== undefined && effectiveGrace(w, grace) < before;
    w.kill = { gracePeriodSeconds: grace, removed };
    // Removed again: a re-add that arrived meanwhile is void (the source no longer has the pod).
    if (u.removed) w.restartWith = undefined;
    if (u.runningPod) w.runningPod = u.runningPod;
    if (w.finished && removed && w.state === "terminated") {
      // A terminal pod kept for its status is now removed: clean up what it left behind.
      this.#start(w);
    }
    w.inflight?.abort(new Error("pod is being killed"));
    if (shorter && w.state === "terminating") {
      w.log.info("Restarting termination with a shorter grace period", { gracePeriod: grace });
      w.terminationInflight?.abort(SHORTER_GRACE);
    }
    this.#wake(w);
  }

  #wake(w: Worker): void {
    const f = w.wake;
    w.wake = undefined;
    f?.();
  }

  async #waitForWork(w: Worker, signal: AbortSignal): Promise<void> {
    while ((!w.pending || w.gated) && !w.kill && w.state === "syncing") {
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
      const result = w.state === "terminating"
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
      if (result === "restart") continue;
      if (result === "failed") {
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
    if (w.isStatic) this.#gate.release(w.fullName, w.uid);
    this.#openGateFor(w.fullName);
    for (const f of w.onFinished.splice(0)) f();
    this.#deps.onTerminated?.(w.uid, w.pod);
    if (!w.kill?.removed) return; // terminal but still desired: keep the record
    this.#workers.delete(w.uid);
    const again = w.restartWith;
    if (again) {
      w.log.info("Starting pod again after its previous incarnation was removed");
      this.updatePod(again);
    }
  }

  /** A pod named `fullName` finished: the ones waiting for that name look again. */
  #openGateFor(fullName: string): void {
    for (const other of this.#workers.values()) {
      if (other.gated && other.fullName === fullName) {
        other.gated = false;
        this.#wake(other);
      }
    }
  }

  /**
   * Whether a static pod may start now: nothing else of its name is active among the workers
   * (a predecessor, or an orphan being killed), it is next in line at the gate, and the runtime
   * runs no unknown instance of its name (those are killed first).
   */
  #mayStart(w: Worker): boolean {
    if (!this.#gate.nameIsFree(w, this.#workers)) return false;
    const others = w.pod ? (this.#deps.otherInstances?.(w.pod) ?? []) : [];
    if (others.length > 0) {
      for (const rp of others) {
        w.log.info("Stopping an earlier instance of this static pod before starting it", {
          previousUid: rp.uid,
        });
        this.updatePod({ type: "kill", runningPod: rp, removed: true });
      }
      return false;
    }
    return this.#gate.tryStart(w.fullName, w.uid, (uid) => {
      const o = this.#workers.get(uid);
      return !!o && !o.kill && !o.finished && o.state === "syncing";
    });
  }

  #target(w: Worker): PodTarget {
    return { uid: w.uid, pod: w.pod, runningPod: w.runningPod };
  }

  async #step(
    w: Worker,
    op: "terminating" | "terminated",
    fn: (signal: AbortSignal) => Promise<void>,
  ): Promise<"done" | "failed" | "restart"> {
    const start = this.#deps.clock.monotonic();
    const ac = new AbortController();
    if (op === "terminating") w.terminationInflight = ac;
    try {
      await fn(AbortSignal.any([this.#root.signal, ac.signal]));
      return "done";
    } catch (e) {
      if (ac.signal.reason === SHORTER_GRACE && !this.#root.signal.aborted) return "restart";
      if (!this.#root.signal.aborted) w.log.warn(`Pod ${op} step failed; will retry`, { err: e });
      return "failed";
    } finally {
      w.terminationInflight = undefined;
      this.#deps.onWorkDone?.(op, this.#deps.clock.monotonic() - start);
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
    const start = this.#deps.clock.monotonic();
    try {
      // Wait for a status read strictly after our previous sync ended, so the sync never acts on
      // a view that misses containers it just created.
      const status = await this.#deps.cache.getNewerThan(w.uid, w.lastSyncTime + 1, { signal });
      if (!w.started) {
        if (!this.#mayStart(w)) {
          // Look again when a pod of this name finishes; a later attempt needs a fresh relist.
          w.log.info("Static pod waits for its previous instance to terminate");
          w.pending ??= update;
          w.gated = true;
          w.lastSyncTime = this.#deps.clock.monotonic();
          return;
        }
        w.started = true;
      }
      let outcome: SyncOutcome;
      try {
        outcome = await this.#deps.syncer.syncPod(pod, status, { signal, updateType: update.type });
      } finally {
        w.lastSyncTime = this.#deps.clock.monotonic();
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
      this.#deps.onWorkDone?.(update.type, this.#deps.clock.monotonic() - start);
    }
  }
}
