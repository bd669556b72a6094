/**
 * One relist of the generic PLEG: list the runtime's pods, diff each against the previous relist,
 * refresh the status cache for the pods that changed, then report their lifecycle events. The
 * PLEG decides when relists run (and never runs two at once); this is what one does.
 */
import { RepeatedFailures } from "../util/repeated_failures.ts";
import type { RunningPod, RuntimePodStatus } from "../runtime/types.ts";
import type { PodLifecycleEvent } from "./types.ts";
import { computePodEvents } from "./_events.ts";
import type { PlegDeps } from "./_generic.ts";

/** Runs relists, one at a time, and keeps what the last one saw for the next. */
export class Relister {
  /** Each pod as of the last relist that processed it (upstream's podRecords `old`). */
  readonly records = new Map<string, RunningPod>();
  /** Pods whose status fetch failed: fetched again on the next relist even without events. */
  reinspect = new Set<string>();
  /** Start time of the last relist whose list call succeeded; 0 = never. */
  relistTime = 0;
  readonly #listFailures: RepeatedFailures;

  constructor(private readonly deps: PlegDeps) {
    this.#listFailures = new RepeatedFailures(deps.logger, { clock: deps.clock });
  }

  /** Runs one relist; the caller makes sure relists never overlap. */
  async relistOnce(onEvent: (e: PodLifecycleEvent) => void, signal?: AbortSignal) {
    const { runtime, cache, clock, logger } = this.deps;
    if (signal?.aborted) return;
    const timestamp = clock.monotonic();
    let pods: RunningPod[];
    try {
      pods = await runtime.getPods({ all: true, signal });
    } catch (e) {
      if (signal?.aborted) return;
      // Every second while the runtime is down: once, then rate-limited (housekeeping reports
      // the outage itself on /healthz and in one log line).
      this.#listFailures.warn("list", "PLEG: unable to list pods from the runtime", { err: e });
      this.deps.onRelist?.(clock.monotonic() - timestamp, e);
      return;
    }
    this.#listFailures.clear("list");
    this.relistTime = timestamp;

    const current = new Map(pods.map((p) => [p.uid, p]));
    // Taken now: a reinspection asked for while this relist runs is the next one's (the status
    // read here may predate what it was asked for).
    const reinspect = this.reinspect;
    this.reinspect = new Set();
    const uids = new Set([...this.records.keys(), ...current.keys(), ...reinspect]);
    const needsReinspection = new Set<string>();
    const toEmit: PodLifecycleEvent[] = [];
    const changed: { uid: string; newPod?: RunningPod; events: PodLifecycleEvent[] }[] = [];
    for (const uid of uids) {
      const oldPod = this.records.get(uid);
      const newPod = current.get(uid);
      if (oldPod && newPod && !reinspect.has(uid) && sameEntries(oldPod, newPod)) continue;
      const events = computePodEvents(uid, { old: oldPod, new: newPod });
      if (events.length === 0 && !reinspect.has(uid)) continue;
      for (const e of events) logger.debug(4, "PLEG: container changed", { ...e });
      changed.push({ uid, newPod: current.get(uid), events });
    }
    // Status reads of changed pods go out together (a burst of new pods must not cost one
    // round-trip chain per pod in a row), a few at a time so the runtime is not flooded.
    const ok = await mapLimit(
      changed,
      STATUS_CONCURRENCY,
      (c) => this.#updateCache(c.uid, c.newPod, signal),
    );
    if (signal?.aborted) return;
    changed.forEach(({ uid, newPod, events }, i) => {
      if (!ok[i]) {
        // Keep the old record so the same events are computed again next time.
        needsReinspection.add(uid);
        return;
      }
      if (newPod) this.records.set(uid, newPod);
      else this.records.delete(uid);
      // ContainerChanged (a container seen only as created/unknown) is not reliable enough to
      // act on; upstream drops it too. The cache has the new state regardless.
      toEmit.push(...events.filter((e) => e.type !== "ContainerChanged"));
      // As upstream: a full reinspection always ends in a sync of the pod.
      if (events.length === 0) toEmit.push({ uid, type: "PodSync" });
    });

    // Only after every changed pod is in the cache: waiters may now trust the whole cache.
    cache.updateTime(timestamp);
    for (const uid of needsReinspection) this.reinspect.add(uid);
    for (const e of toEmit) {
      try {
        onEvent(e);
      } catch (err) {
        logger.error("PLEG: event handler failed", { err, uid: e.uid, event: e.type });
      }
    }
    this.deps.onRelist?.(clock.monotonic() - timestamp);
  }

  /** Refreshes one pod's cache entry; false when its status could not be read. */
  async #updateCache(
    uid: string,
    pod: RunningPod | undefined,
    signal?: AbortSignal,
  ): Promise<boolean> {
    const { runtime, cache, clock, logger } = this.deps;
    if (!pod) {
      // No sandbox and no container left: the runtime has nothing for this pod.
      logger.debug(4, "PLEG: delete status for pod", { uid });
      cache.delete(uid);
      return true;
    }
    // Stamp the status with the time before the call: it reflects at least everything that
    // happened before then, which is what getNewerThan waiters need.
    const timestamp = clock.monotonic();
    let status: RuntimePodStatus;
    try {
      status = await runtime.getPodStatus(uid, pod.name, pod.namespace, { signal });
    } catch (e) {
      if (!signal?.aborted) {
        logger.error("PLEG: cannot read pod status; will retry on the next relist", {
          pod: `${pod.namespace}/${pod.name}`,
          uid,
          err: e,
        });
      }
      return false;
    }
    cache.set(uid, { ...status, timestamp, ips: this.#podIPs(uid, status) });
    logger.debug(4, "PLEG: wrote status", { pod: `${pod.namespace}/${pod.name}`, uid });
    return true;
  }

  /**
   * Keeps the previous pod IPs when the pod's sandboxes are all gone or stopped: the API expects
   * a finished pod to keep its IP, and the network may be torn down before we look.
   */
  #podIPs(uid: string, status: RuntimePodStatus): string[] {
    if (status.ips.length > 0) return status.ips;
    const old = this.deps.cache.get(uid);
    if (!old || old.ips.length === 0) return status.ips;
    if (status.sandboxes.some((s) => s.state === "ready")) return status.ips;
    return old.ips;
  }
}

/**
 * True when both lists hold the very same entry objects: the runtime manager reuses the entry
 * of a sandbox or container the runtime reported unchanged (see listPods), so an idle pod costs
 * the relist one comparison per container instead of its events computed afresh.
 */
function sameEntries(a: RunningPod, b: RunningPod): boolean {
  if (a.sandboxes.length !== b.sandboxes.length) return false;
  if (a.containers.length !== b.containers.length) return false;
  for (let i = 0; i < a.sandboxes.length; i++) if (a.sandboxes[i] !== b.sandboxes[i]) return false;
  for (let i = 0; i < a.containers.length; i++) {
    if (a.containers[i] !== b.containers[i]) return false;
  }
  return true;
}

/** How many pod status reads one relist has in flight at once. */
const STATUS_CONCURRENCY = 8;

/** `fn` over `items` with at most `limit` calls pending; results in input order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
