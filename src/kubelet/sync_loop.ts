/**
 * The sync loop: one loop that takes source updates, PLEG events, a 1 s tick for pods due a
 * resync, and housekeeping every 2 s, and hands work to the pod workers (kubelet syncLoop).
 */
import type { V1Pod } from "@kubernetes/client-node";
import { stopwatch } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { AsyncQueue } from "../util/async_queue.ts";
import type { PodLifecycleEvent } from "../pleg/types.ts";
import type { ManifestProblem, PodSourceUpdate } from "../sources/types.ts";
import type { ProbeUpdate } from "../prober/types.ts";
import { PodManager } from "./pod_manager.ts";
import type { PodWorkers, PodWorkState } from "./pod_workers.ts";
import type { StatusManager } from "./status_manager.ts";
import { WorkQueue } from "./_work_queue.ts";
import { checkRuntime, cleanupOrphans } from "./_housekeeping.ts";
import { keepRunning } from "./_keep_running.ts";
import { runningCounts } from "./_runtime_view.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import type { RuntimeContainerState } from "../runtime/types.ts";
import type { AllocationManager } from "../allocation/mod.ts";
import { createKubeletParts } from "./_kubelet_parts.ts";
import {
  applySourceUpdate,
  type EvictOptions,
  evictPod,
  type PodUpdateParts,
} from "./_pod_updates.ts";
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
  /** What the source-update and eviction steps (`_pod_updates.ts`) work on. */
  readonly #updateParts: PodUpdateParts;

  constructor(deps: KubeletDeps) {
    this.#deps = deps;
    this.#log = deps.logger;
    this.#housekeepingFailures = new RepeatedFailures(deps.logger, { clock: deps.clock });
    const parts = createKubeletParts(deps, {
      podManager: this.podManager,
      admittedPods: () => this.#admittedPods(),
      sourcesReady: () => this.sourcesReady(),
      allocated: (pod) => this.#allocated(pod),
      requeue: (uid, afterMs, err) => this.#requeue(uid, afterMs, err),
    });
    this.statuses = parts.statuses;
    this.#allocation = parts.allocation;
    this.#workers = parts.workers;
    this.#updateParts = {
      podManager: this.podManager,
      statuses: this.statuses,
      workers: this.#workers,
      workQueue: this.#workQueue,
      allocation: this.#allocation,
      deps,
      log: this.#log,
      allocated: (pod) => this.#allocated(pod),
      withStatus: (pod) => this.#withStatus(pod),
    };
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
  evictPod(
    uid: string,
    opts: EvictOptions,
  ): Promise<void> {
    return evictPod(uid, this.#updateParts, opts);
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
        return applySourceUpdate(ev.update, this.#updateParts);
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
}
