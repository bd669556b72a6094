/**
 * The sync loop: one loop that takes source updates, PLEG events, a 1 s tick for pods due a
 * resync, and housekeeping every 2 s, and hands work to the pod workers (kubelet syncLoop).
 */
import type { V1Pod, V1PodCondition } from "@kubernetes/client-node";
import { stopwatch } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { AsyncQueue } from "../util/async_queue.ts";
import type { PodLifecycleEvent } from "../pleg/types.ts";
import type { ManifestProblem, PodSourceUpdate } from "../sources/types.ts";
import type { ProbeUpdate } from "../prober/types.ts";
import { PodManager } from "./pod_manager.ts";
import { PodWorkers, type PodWorkState } from "./pod_workers.ts";
import { StatusManager } from "./status_manager.ts";
import { WorkQueue } from "./_work_queue.ts";
import { createPodSyncer } from "./pod_syncer.ts";
import { podRef } from "./_pod_ref.ts";
import { checkRuntime, cleanupOrphans } from "./_housekeeping.ts";
import { keepRunning } from "./_keep_running.ts";
import { otherInstances, runningCounts } from "./_runtime_view.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import type { RuntimeContainerState } from "../runtime/types.ts";
import { type AllocationManager, ResizeConditions } from "../allocation/mod.ts";
import { createAllocation } from "./_allocation.ts";
import { rejectPod } from "./_reject.ts";
import type { HealthCheck, KubeletDeps } from "./types.ts";

export type { HealthCheck, KubeletDeps, PodStatusSink } from "./types.ts";

type LoopEvent =
  | { kind: "source"; update: PodSourceUpdate }
  | { kind: "pleg"; event: PodLifecycleEvent }
  | { kind: "probe"; update: ProbeUpdate }
  | { kind: "resync"; uid: string }
  | { kind: "tick" }
  | { kind: "housekeeping" };

const TICK_MS = 1000;
const HOUSEKEEPING_MS = 2000;
/** Upstream workerResyncIntervalJitterFactor: spreads resyncs so pods do not sync in lockstep. */
const RESYNC_JITTER = 0.5;
/** Upstream backOffPeriod for a failed sync. */
const ERROR_BACKOFF_MS = 10_000;
/** The loop is unhealthy when it has not turned for this long. */
const LOOP_STALL_MS = 30_000;

export class Kubelet {
  readonly podManager = new PodManager();
  readonly statuses: StatusManager;
  readonly #workQueue = new WorkQueue();
  readonly #inbox = new AsyncQueue<LoopEvent>();
  readonly #workers: PodWorkers;
  readonly #deps: KubeletDeps;
  readonly #log: Logger;
  #lastIteration = 0;
  #runtimeHealth: HealthCheck = { name: "runtime", ok: false, message: "not checked yet" };
  /** Housekeeping runs every 2 s: a failure that repeats is logged once, then rate-limited. */
  readonly #housekeepingFailures: RepeatedFailures;
  /** The running housekeeping round, if any; awaited on shutdown. */
  #housekeeping?: Promise<void>;
  /** What each admitted pod was given; resizes wait here until they fit. */
  readonly #allocation: AllocationManager;
  readonly #resizeConditions: ResizeConditions;

  constructor(deps: KubeletDeps) {
    this.#deps = deps;
    this.#log = deps.logger;
    this.#housekeepingFailures = new RepeatedFailures(deps.logger, { clock: deps.clock });
    // Without a sink (standalone) there is no one to tell, and no status comparison to pay for.
    const sink = deps.statusSink;
    this.statuses = new StatusManager({
      onChange: sink &&
        ((uid, status) => {
          const pod = this.podManager.get(uid);
          if (pod) sink.statusChanged(pod, status);
        }),
    });
    this.#resizeConditions = new ResizeConditions(deps.clock);
    this.#allocation = createAllocation({
      state: deps.allocated,
      conditions: this.#resizeConditions,
      settings: deps.resize,
      before: deps.admit,
      maxPods: deps.maxPods ?? Infinity,
      node: () => deps.admissionNode?.(),
      nodeAllocatable: deps.nodeAllocatable,
      activePods: () => this.#admittedPods(),
      podByUid: (uid) => this.podManager.get(uid),
      sourcesReady: () => this.sourcesReady(),
      syncPod: (pod) => this.#workers.updatePod({ type: "sync", pod: this.#allocated(pod) }),
      events: deps.events,
      clock: deps.clock,
      logger: deps.logger,
    });
    const syncer = createPodSyncer({
      runtime: deps.runtime,
      statuses: this.statuses,
      podLevelStatus: deps.resize?.podLevel ?? true,
      resize: {
        conditions: this.#resizeConditions,
        events: deps.events,
        reinspect: (uid) => deps.pleg.requestReinspect?.(uid),
        // What it has may have shrunk: room for a pending resize (HandlePodReconcile).
        completed: () => {
          if (this.#allocation.hasPendingResizes()) {
            this.#allocation.retryPendingResizes("pod_resized");
          }
        },
      },
      clock: deps.clock,
      logger: deps.logger,
      hostIP: () => deps.nodeIP,
      hostIPs: () => deps.nodeIPs,
      prober: deps.prober,
      onRuntimeChanged: () => deps.pleg.requestRelist(),
    });
    this.#workers = new PodWorkers({
      syncer,
      cache: deps.cache,
      clock: deps.clock,
      logger: deps.logger,
      requeue: (uid, afterMs, err) => this.#requeue(uid, afterMs, err),
      onWorkDone: (op, ms) => deps.observe?.podWorker?.(op, ms),
      otherInstances: (pod) =>
        otherInstances(deps.pleg.runningPods(), pod, (uid) => !!this.podManager.get(uid)),
      onTerminated: (uid, pod) => {
        const current = this.podManager.get(uid) ?? pod;
        if (current) deps.statusSink?.podTerminated(current);
        // What it was given is free again: a deferred resize may fit now.
        this.#allocation.podTerminated();
      },
    });
  }

  /** Runs sources, PLEG and the loop until the signal aborts, then stops the workers. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock } = this.#deps;
    this.#lastIteration = clock.monotonic();
    const tasks: Promise<void>[] = [
      ...this.#deps.sources.map((s) =>
        keepRunning(
          `source ${s.name}`,
          (sig) => s.run((update) => this.#inbox.push({ kind: "source", update }), { signal: sig }),
          { signal, clock, logger: this.#log },
        )
      ),
      keepRunning(
        "pleg",
        (sig) =>
          this.#deps.pleg.run((event) => this.#inbox.push({ kind: "pleg", event }), {
            signal: sig,
          }),
        { signal, clock, logger: this.#log },
      ),
    ];
    const stopTick = clock.every(TICK_MS, () => this.#inbox.push({ kind: "tick" }), { signal });
    const stopHk = clock.every(HOUSEKEEPING_MS, () => this.#inbox.push({ kind: "housekeeping" }), {
      signal,
    });
    // The first round at once, as upstream's runtime check starts: the Node's readiness waits
    // for the runtime's health, and a 2 s wait for it was most of the time to a Ready Node.
    this.#inbox.push({ kind: "housekeeping" });
    try {
      await this.#loop(signal);
    } finally {
      stopTick();
      stopHk();
      await this.#housekeeping;
      await this.#workers.stop();
      await Promise.allSettled(tasks);
    }
  }

  /** Whether a source currently asks for the pod. */
  isPodDesired(uid: string): boolean {
    return this.podManager.get(uid) !== undefined;
  }

  /** The pod's worker state, or undefined when no worker exists (never started, or finished and forgotten). */
  podWorkState(uid: string): PodWorkState | undefined {
    return this.#workers.state(uid);
  }

  /** Every source has delivered its first snapshot. */
  sourcesReady(): boolean {
    return this.podManager.allSourcesSeen(this.#deps.sources.map((s) => s.name));
  }

  /** Feeds a changed probe result into the loop (the prober's onUpdate). */
  onProbeUpdate(update: ProbeUpdate): void {
    this.#inbox.push({ kind: "probe", update });
  }

  /**
   * Stops a pod for good while it stays desired (eviction): its status turns Failed with
   * `reason`/`message` (and `condition`, e.g. DisruptionTarget) and its containers are killed
   * within the grace period. The pod is not started again unless its manifest changes (a new
   * UID). Resolves once the pod's containers are stopped.
   */
  async evictPod(
    uid: string,
    opts: {
      reason: string;
      message: string;
      gracePeriodSeconds?: number;
      condition?: V1PodCondition;
      signal?: AbortSignal;
    },
  ): Promise<void> {
    const pod = this.podManager.get(uid);
    if (!pod) return;
    const current = this.statuses.get(uid) ?? {};
    const now = new Date(Math.floor(this.#deps.clock.now() / 1000) * 1000);
    const conditions = (current.conditions ?? []).filter((c) => c.type !== opts.condition?.type);
    if (opts.condition) conditions.push({ ...opts.condition, lastTransitionTime: now });
    this.statuses.set(uid, {
      ...current,
      phase: "Failed",
      reason: opts.reason,
      message: opts.message,
      conditions,
    });
    this.#log.warn("Evicting pod", {
      ...this.#fields(pod),
      reason: opts.reason,
      message: opts.message,
    });
    this.#workQueue.delete(uid);
    this.#workers.updatePod({
      type: "kill",
      pod: this.#allocated(pod),
      gracePeriodSeconds: opts.gracePeriodSeconds,
    });
    await this.#workers.whenTerminated(uid, { signal: opts.signal });
  }

  /** Pods that are admitted and not finished, with their status (eviction candidates). */
  activePods(): V1Pod[] {
    return this.podsWithStatus().filter((p) => {
      const phase = p.status?.phase;
      const state = this.#workers.state(p.metadata!.uid!);
      return phase !== "Failed" && phase !== "Succeeded" && state === "syncing";
    });
  }

  /** Desired pods with their latest status, for the node API. */
  podsWithStatus(): V1Pod[] {
    return this.podManager.pods().map((p) => ({
      ...p,
      status: this.statuses.get(p.metadata!.uid!) ?? { phase: "Pending" },
    }));
  }

  /** Pods with a ready sandbox and containers by state, from the last relist (metrics). */
  runningCounts(): { pods: number; containers: Record<RuntimeContainerState, number> } {
    return runningCounts(this.#deps.pleg.runningPods());
  }

  manifestProblems(): ManifestProblem[] {
    return this.podManager.problems();
  }

  healthChecks(): HealthCheck[] {
    const stalled = this.#deps.clock.monotonic() - this.#lastIteration > LOOP_STALL_MS;
    const pleg = this.#deps.pleg.healthy();
    return [
      { name: "ping", ok: true },
      {
        name: "syncloop",
        ok: !stalled,
        message: stalled ? "sync loop has not run recently" : undefined,
      },
      { name: "pleg", ok: pleg.ok, message: pleg.message },
      this.#runtimeHealth,
    ];
  }

  async #loop(signal: AbortSignal): Promise<void> {
    const { clock } = this.#deps;
    for (;;) {
      let ev: LoopEvent;
      try {
        ev = await this.#inbox.next({ signal });
      } catch {
        return; // aborted
      }
      this.#lastIteration = clock.monotonic();
      const elapsed = stopwatch();
      try {
        this.#handle(ev, signal);
      } catch (e) {
        this.#log.error("Sync loop iteration failed", { event: ev.kind, err: e });
      }
      this.#deps.observe?.loopIteration?.(elapsed());
    }
  }

  #handle(ev: LoopEvent, signal: AbortSignal): void {
    switch (ev.kind) {
      case "source":
        return this.#onSource(ev.update);
      case "pleg":
      case "probe":
      case "resync": {
        const uid = ev.kind === "pleg"
          ? ev.event.uid
          : ev.kind === "probe"
          ? ev.update.uid
          : ev.uid;
        const pod = this.podManager.get(uid);
        if (pod) this.#workers.updatePod({ type: "sync", pod: this.#allocated(pod) });
        return;
      }
      case "tick": {
        for (const uid of this.#workQueue.takeDue(this.#deps.clock.monotonic())) {
          const pod = this.podManager.get(uid);
          if (pod) this.#workers.updatePod({ type: "sync", pod: this.#allocated(pod) });
        }
        this.#allocation.tick();
        return;
      }
      case "housekeeping":
        if (this.#housekeeping) return; // the previous round is still running
        this.#housekeeping = this.#housekeep(signal)
          .then(() => this.#housekeepingFailures.clear("round"))
          .catch((e) => {
            if (!signal.aborted) {
              this.#housekeepingFailures.warn("round", "Housekeeping failed", { err: e });
            }
          })
          .finally(() => this.#housekeeping = undefined);
        return;
    }
  }

  #onSource(update: PodSourceUpdate): void {
    // The sources log their problems when they appear; here they only reach /sources.
    const changes = this.podManager.apply(update, this.#deps.clock.now());
    for (const pod of changes.removed) {
      this.#log.info("Pod removed from its source; stopping it", this.#fields(pod));
      this.#workQueue.delete(pod.metadata!.uid!);
      this.#workers.updatePod({ type: "kill", pod: this.#allocated(pod), removed: true });
      this.#allocation.removePod(pod.metadata!.uid!);
    }
    const admitted: V1Pod[] = [];
    for (const pod of changes.added) {
      if (this.#killIfDeleted(pod)) continue;
      // Admitted beside what the others were allocated; a pod known before a restart keeps
      // what it was given.
      const verdict = this.#allocation.addPod(
        pod,
        this.podManager.pods().filter((p) => this.#workers.isActive(p.metadata!.uid!))
          .map((p) => this.#withStatus(p)),
      );
      if (!verdict.admit) {
        rejectPod(pod, verdict, { ...this.#deps, statuses: this.statuses });
        continue;
      }
      this.#log.info("Pod added", this.#fields(pod));
      admitted.push(pod);
      this.#workers.updatePod({ type: "create", pod: this.#allocated(pod) });
    }
    // Resize conditions the API shows, and resizes a restart left pending.
    if (admitted.length > 0) this.#allocation.podsAdded(admitted);
    for (const pod of changes.updated) {
      if (this.#killIfDeleted(pod)) continue;
      this.#log.info("Pod updated", this.#fields(pod));
      this.#allocation.podUpdated(changes.replaced.get(pod.metadata!.uid!), pod);
      this.#workers.updatePod({ type: "update", pod: this.#allocated(pod) });
    }
  }

  /** The pod the workers run: its spec with the resources it was allocated. */
  #allocated(pod: V1Pod): V1Pod {
    return this.#allocation.fromAllocation(pod).pod;
  }

  /** Desired pods whose workers run them and that have not finished, with their status. */
  #admittedPods(): V1Pod[] {
    return this.podManager.pods().filter((p) => {
      const uid = p.metadata!.uid!;
      const phase = this.statuses.get(uid)?.phase;
      return this.#workers.isActive(uid) && phase !== "Succeeded" && phase !== "Failed";
    }).map((p) => this.#withStatus(p));
  }

  /**
   * The pod with the status last computed for it: admission counts a pod being resized at
   * the most of what it asks, was allocated and has.
   */
  #withStatus(pod: V1Pod): V1Pod {
    const status = this.statuses.get(pod.metadata!.uid!);
    return status ? { ...pod, status } : pod;
  }

  /**
   * A pod the API server is deleting (deletionTimestamp set) is stopped within its
   * deletionGracePeriodSeconds and not started again; once it has terminated the status sink
   * deletes it for good (upstream's graceful deletion).
   */
  #killIfDeleted(pod: V1Pod): boolean {
    if (!pod.metadata?.deletionTimestamp) return false;
    const uid = pod.metadata.uid!;
    if (this.#workers.state(uid) === undefined || this.#workers.state(uid) === "syncing") {
      this.#log.info("Pod is being deleted; stopping it", {
        ...this.#fields(pod),
        gracePeriod: pod.metadata.deletionGracePeriodSeconds,
      });
    }
    this.#workQueue.delete(uid);
    this.#workers.updatePod({
      type: "kill",
      pod: this.#allocated(pod),
      gracePeriodSeconds: pod.metadata.deletionGracePeriodSeconds,
    });
    return true;
  }

  /** Asks for a sync of the pod soon (its configMap or secret changed, say). */
  requestSync(uid: string): void {
    const pod = this.podManager.get(uid);
    if (pod) this.#inbox.push({ kind: "resync", uid });
  }

  /** Cleans up what no source asks for any more, and checks the runtime (HandlePodCleanups). */
  async #housekeep(signal: AbortSignal): Promise<void> {
    const desired = this.podManager.uids();
    this.#workers.syncKnownPods(desired);
    this.#deps.prober?.cleanupPods(desired);
    this.#runtimeHealth = await checkRuntime(this.#deps, this.#runtimeHealth, signal);
    // Until every source has spoken, an unknown pod may just be one not read yet.
    if (!this.sourcesReady()) return;
    // Read now: pods may have been added while the runtime was asked.
    this.#allocation.removeOrphans(this.podManager.uids());
    if (!this.#runtimeHealth.ok) return;
    await cleanupOrphans(this.#deps, { desired, workers: this.#workers, signal });
  }

  #requeue(uid: string, afterMs: number | undefined, err?: unknown): void {
    const period = this.#deps.syncFrequencyMs;
    const resync = period + Math.random() * RESYNC_JITTER * period;
    // An early ask (step errors, an active deadline) never pushes out the periodic resync.
    const delay = err ? ERROR_BACKOFF_MS : Math.min(afterMs ?? Infinity, resync);
    this.#workQueue.enqueue(uid, this.#deps.clock.monotonic() + delay);
  }

  #fields(pod: V1Pod) {
    return { pod: podRef(pod), uid: pod.metadata?.uid };
  }
}
