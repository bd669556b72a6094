/**
 * The eviction manager (upstream eviction_manager.go): every monitoring interval it observes
 * the signals, keeps the pressure conditions (held for the transition period), reclaims
 * node-level resources for disk signals, and if a threshold is still met evicts one pod.
 */
import { podObjectRef } from "../events/mod.ts";
import type { V1Pod } from "@kubernetes/client-node";
import { errorMessage } from "../util/log.ts";
import { isCriticalPod, rankFor, type StatsOf } from "./_rank.ts";
import { admitPod } from "./_admit.ts";
import { evictOverLimits, hasLocalStorageLimit } from "./_local_storage.ts";
import { evictionMessage, REASON } from "./_message.ts";
import {
  byEvictionPriority,
  conditionsLastObservedAt,
  conditionsObservedSince,
  firstObservedAt,
  metGracePeriod,
  type Observations,
  observe,
  SIGNAL_TO_CONDITION,
  SIGNAL_TO_RESOURCE,
  thresholdsMet,
  withUpdatedStats,
} from "./_signals.ts";
import { createConditionTracker } from "./_conditions.ts";
import type {
  EvictionManager,
  EvictionManagerDeps,
  EvictionSummary,
  PressureCondition,
  Signal,
  Threshold,
} from "./types.ts";

/** upstream evictionMonitoringPeriod. */
export const MONITORING_INTERVAL_MS = 10_000;
/** upstream podCleanupTimeout: how long a round waits for an evicted pod to terminate. */
export const POD_CLEANUP_TIMEOUT_MS = 30_000;
/** Grace period for hard evictions (immediateEvictionGracePeriodSeconds). */
const IMMEDIATE_GRACE_SECONDS = 1;
/** Image GC on the eviction path frees every unused image (upstream passes MaxInt64). */
const ALL_UNUSED = Number.MAX_SAFE_INTEGER;

/** Node-level reclaim per signal without a dedicated imagefs: dead containers, then images. */
const DISK_SIGNALS: ReadonlySet<Signal> = new Set([
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
]);

export function createEvictionManager(deps: EvictionManagerDeps): EvictionManager {
  const { config, clock } = deps;
  const log = deps.logger.child({ component: "eviction" });
  const evictions = deps.metrics?.counterVec({
    name: "kubelet_evictions",
    help: "Cumulative number of pod evictions by eviction signal",
    labelNames: ["eviction_signal"],
    stability: "ALPHA",
  });
  const dedicatedImageFs = false;

  let firstSeen = new Map<Threshold, number>();
  let conditionSeen = new Map<PressureCondition, number>();
  let active = new Set<PressureCondition>();
  let met: Threshold[] = [];
  let lastObservations: Observations = new Map();
  /** Signals whose reclaim result could not be seen yet (stale stats); evict next round. */
  const reclaimPending = new Set<Signal>();
  const tracker = createConditionTracker(clock.now());

  /**
   * Which thresholds are met, since when, and the pressure conditions (with the transition
   * period) that admission and the node status read.
   */
  function updateConditions(observations: Observations): void {
    // Grace and transition periods are intervals; the conditions' transition times are stamps.
    const now = clock.monotonic();
    const current = thresholdsMet(config.thresholds, observations, false);
    // Thresholds met earlier stay met until the minimum reclaim above them is reached.
    for (const t of thresholdsMet(met, observations, true)) {
      if (!current.includes(t)) current.push(t);
    }
    firstSeen = firstObservedAt(current, firstSeen, now);
    const observedConditions = [...new Set(current.map((t) => SIGNAL_TO_CONDITION[t.signal]))];
    conditionSeen = conditionsLastObservedAt(observedConditions, conditionSeen, now);
    active = conditionsObservedSince(conditionSeen, config.pressureTransitionPeriodMs, now);
    tracker.update(active, clock.now());
    met = metGracePeriod(firstSeen, now);
  }

  /**
   * Waits for an evicted pod's termination, at most podCleanupTimeout (upstream
   * waitForPodsCleanup), so one pod that does not die cannot stop eviction for good. Meanwhile
   * the conditions and admission keep following the node, sampled every monitoring interval.
   */
  async function awaitCleanup(
    pod: V1Pod,
    kill: (signal: AbortSignal) => Promise<void>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const interval = config.monitoringIntervalMs ?? MONITORING_INTERVAL_MS;
    const stopWaiting = new AbortController();
    const deadline = clock.monotonic() + (config.podCleanupTimeoutMs ?? POD_CLEANUP_TIMEOUT_MS);
    const outcome = kill(stopWaiting.signal).then(() => undefined, (err: unknown) => ({ err }));
    try {
      for (;;) {
        const left = deadline - clock.monotonic();
        if (left <= 0) {
          log.warn("Eviction manager: timed out waiting for the evicted pod to terminate", {
            pod: podKey(pod),
            uid: pod.metadata?.uid,
          });
          stopWaiting.abort(new Error("pod cleanup timeout"));
          break;
        }
        const tick = new AbortController();
        const first = await Promise.race([
          outcome,
          clock.sleep(Math.min(interval, left), { signal: tick.signal }).then(
            () => "tick" as const,
            () => "tick" as const,
          ),
        ]);
        tick.abort();
        if (first !== "tick") {
          if (first) throw first.err;
          return;
        }
        if (signal?.aborted) throw signal.reason;
        await refreshConditions(signal);
      }
    } finally {
      stopWaiting.abort();
      await outcome;
    }
  }

  /** A fresh look at the node between rounds: conditions only, nothing is evicted. */
  async function refreshConditions(signal: AbortSignal | undefined): Promise<void> {
    try {
      updateConditions(observe(await deps.stats.summary({ signal, pods: false })));
    } catch (err) {
      if (signal?.aborted) throw err;
      log.warn("Eviction manager: cannot get summary stats", { err });
    }
  }

  /** One round; `fresh` asks for stats sampled now (after an eviction, to see its effect). */
  async function synchronize(
    opts: { signal?: AbortSignal; fresh?: boolean } = {},
  ): Promise<V1Pod | undefined> {
    const localStorage = config.localStorageCapacityIsolation !== false;
    if (config.thresholds.length === 0 && !localStorage) return undefined;
    const activePods = deps.pods();
    // Pods' stats are read (and so sampled) only while some pod has a local storage limit.
    const storageLimited = localStorage ? activePods.filter(hasLocalStorageLimit) : [];
    if (config.thresholds.length === 0 && storageLimited.length === 0) return undefined;
    let summary: EvictionSummary;
    try {
      summary = opts.fresh && deps.stats.sampleNow
        ? await deps.stats.sampleNow({ signal: opts.signal })
        : await deps.stats.summary({ signal: opts.signal, pods: storageLimited.length > 0 });
    } catch (err) {
      log.warn("Eviction manager: cannot get summary stats", { err });
      return undefined;
    }
    const observations = observe(summary);
    updateConditions(observations);
    for (const s of reclaimPending) if (!met.some((t) => t.signal === s)) reclaimPending.delete(s);

    // A pod over its own local storage limits goes first, and ends the round.
    if (storageLimited.length > 0) {
      const evicted = await localStorageEviction(storageLimited, summary, opts.signal);
      if (evicted) return evicted;
    }

    const actionable = withUpdatedStats(met, observations, lastObservations);
    lastObservations = observations;
    if (actionable.length === 0) return undefined;

    const target = byEvictionPriority(actionable)[0];
    const resource = SIGNAL_TO_RESOURCE[target.signal];
    log.info("Eviction manager: attempting to reclaim", { resourceName: resource });
    deps.events?.event(
      { kind: "Node", apiVersion: "v1", name: deps.nodeName ?? "", uid: deps.nodeName },
      "Warning",
      "EvictionThresholdMet",
      `Attempting to reclaim ${resource}`,
    );

    if (await reclaimNodeLevel(target, observations, opts.signal)) {
      log.info("Eviction manager: able to reduce resource pressure without evicting pods", {
        resourceName: resource,
      });
      return undefined;
    }
    if (activePods.length === 0) {
      log.warn("Eviction manager: thresholds met, but no pods are active to evict");
      return undefined;
    }
    // The signals need the node alone; pods are read (sampled, if nobody else reads them) only
    // to rank them.
    if (!opts.fresh || !deps.stats.sampleNow) {
      try {
        summary = await deps.stats.summary({ signal: opts.signal });
      } catch (err) {
        log.warn("Eviction manager: cannot get pod stats to rank pods", { err });
        return undefined;
      }
    }
    const podStats = new Map(summary.pods.map((p) => [p.podRef.uid, p]));
    const statsOf: StatsOf = (pod) => podStats.get(pod.metadata?.uid ?? "");
    const ranked = rankFor(target.signal, dedicatedImageFs)(activePods, statsOf);
    log.info("Eviction manager: pods ranked for eviction", {
      pods: ranked.map(podKey).join(","),
    });

    for (const pod of ranked) {
      const ctx = { statsOf, actionable, observations, signal: opts.signal };
      if (await evict(pod, target, ctx)) return pod;
    }
    log.warn("Eviction manager: unable to evict any pods from the node");
    return undefined;
  }

  /**
   * Frees dead containers and unused images for disk signals, then re-observes. True when no
   * threshold is met any more (counting minimum reclaim), so no pod needs to go.
   */
  async function reclaimNodeLevel(
    target: Threshold,
    before: Observations,
    signal: AbortSignal | undefined,
  ): Promise<boolean> {
    if (!DISK_SIGNALS.has(target.signal)) return false;
    const steps: Array<[string, () => Promise<void>]> = [
      // Upstream DeleteAllUnusedContainers: finished pods' containers (and logs) go too.
      ["containers", () => deps.reclaimer.collectContainers({ evictNonDeletedPods: true, signal })],
      ["images", () => deps.reclaimer.collectImages({ bytesToFree: ALL_UNUSED, signal })],
    ];
    for (const [what, step] of steps) {
      try {
        await step();
      } catch (err) {
        if (signal?.aborted) throw err;
        log.warn("Eviction manager: unexpected error when attempting to reduce resource pressure", {
          what,
          resourceName: SIGNAL_TO_RESOURCE[target.signal],
          err: errorMessage(err),
        });
      }
    }
    let after: Observations;
    try {
      const summary = deps.stats.sampleNow
        ? await deps.stats.sampleNow({ signal })
        : await deps.stats.summary({ signal, pods: false });
      after = observe(summary);
    } catch (err) {
      log.warn("Eviction manager: cannot get summary stats after resource reclaim", { err });
      return false;
    }
    const prevTime = before.get(target.signal)?.time;
    const time = after.get(target.signal)?.time;
    const stale = prevTime !== undefined && (time === undefined || time <= prevTime);
    if (stale && !reclaimPending.has(target.signal)) {
      // The sample predates the reclaim: judge it next round rather than evict blindly now.
      reclaimPending.add(target.signal);
      return true;
    }
    if (stale) return false;
    reclaimPending.delete(target.signal);
    return thresholdsMet(config.thresholds, after, true).length === 0;
  }

  /**
   * Evicts every pod over a local storage limit (upstream localStorageEviction), immediately
   * and without a DisruptionTarget condition; returns the last one evicted.
   */
  function localStorageEviction(
    pods: V1Pod[],
    summary: EvictionSummary,
    signal: AbortSignal | undefined,
  ): Promise<V1Pod | undefined> {
    return evictOverLimits(pods, summary, {
      isCritical: (pod) => isCriticalPod(pod, config),
      log,
      evict: async (pod, { message, signal: metric }) => {
        deps.events?.event(podObjectRef(pod), "Warning", REASON, message);
        log.info("Evicting pod", { pod: podKey(pod), uid: pod.metadata?.uid, message });
        try {
          await awaitCleanup(pod, (s) =>
            deps.evictPod(pod, {
              reason: REASON,
              message,
              gracePeriodSeconds: IMMEDIATE_GRACE_SECONDS,
              annotations: {},
              signal: s,
            }), signal);
          log.info("Eviction manager: pod is evicted successfully", { pod: podKey(pod) });
        } catch (err) {
          if (signal?.aborted) throw err;
          log.error("Eviction manager: pod failed to evict", { pod: podKey(pod), err });
        }
        evictions?.labels(metric).inc();
      },
    });
  }

  async function evict(
    pod: V1Pod,
    target: Threshold,
    ctx: {
      statsOf: StatsOf;
      actionable: Threshold[];
      observations: Observations;
      signal?: AbortSignal;
    },
  ): Promise<boolean> {
    if (isCriticalPod(pod, config)) {
      log.debug(2, "Eviction manager: cannot evict a critical pod", { pod: podKey(pod) });
      return false;
    }
    let grace = IMMEDIATE_GRACE_SECONDS;
    if (target.gracePeriodMs > 0) {
      grace = config.maxPodGracePeriodSeconds;
      const own = pod.spec?.terminationGracePeriodSeconds;
      if (own !== undefined) grace = Math.min(grace, own);
    }
    const resource = SIGNAL_TO_RESOURCE[target.signal];
    const { message, annotations } = evictionMessage(resource, pod, ctx.statsOf(pod), {
      thresholds: ctx.actionable,
      observations: ctx.observations,
    });
    log.info("Evicting pod", { pod: podKey(pod), uid: pod.metadata?.uid, message });
    deps.events?.event(podObjectRef(pod), "Warning", REASON, message);
    try {
      await awaitCleanup(pod, (signal) =>
        deps.evictPod(pod, {
          reason: REASON,
          message,
          gracePeriodSeconds: grace,
          condition: {
            type: "DisruptionTarget",
            status: "True",
            reason: "TerminationByKubelet",
            message,
          },
          annotations,
          signal,
        }), ctx.signal);
      log.info("Eviction manager: pod is evicted successfully", { pod: podKey(pod) });
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      log.error("Eviction manager: pod failed to evict", { pod: podKey(pod), err });
    }
    // As upstream, an attempted eviction ends the round even if the kill failed.
    evictions?.labels(target.signal).inc();
    return true;
  }

  return {
    synchronize,
    async run({ signal }) {
      const interval = config.monitoringIntervalMs ?? MONITORING_INTERVAL_MS;
      let evicted: V1Pod | undefined;
      while (!signal.aborted) {
        try {
          // After an eviction the next round must see the node after the pod's cleanup.
          evicted = await synchronize({ signal, fresh: evicted !== undefined });
        } catch (err) {
          if (signal.aborted) break;
          log.error("Eviction manager: failed to synchronize", { err });
          evicted = undefined;
        }
        // After an eviction, look again at once (upstream waits for the cleanup, which our
        // evictPod already awaited) so one pod per round does not mean one per 10 s.
        if (evicted !== undefined) continue;
        try {
          await clock.sleep(interval, { signal });
        } catch {
          break; // aborted: the loop ends
        }
      }
    },
    conditions: () => tracker.snapshot(),
    admit: (pod) => admitPod(pod, { active: [...active], config, logger: log }),
  };
}

function podKey(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;
}
