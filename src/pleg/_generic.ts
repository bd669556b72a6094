/**
 * The generic PLEG (pkg/kubelet/pleg/generic.go): relist the runtime periodically, diff each
 * pod's containers and sandboxes against the previous relist, refresh the status cache for the
 * pods that changed, and then tell the sync loop which pods to look at.
 */
import { formatDuration } from "../config/duration.ts";
import { isUnimplemented } from "../cri/mod.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { PodRuntime, RunningPod, RuntimePodStatus } from "../runtime/types.ts";
import type { Pleg, PodLifecycleEvent } from "./types.ts";
import type { RelistCache } from "./_cache.ts";
import { computePodEvents } from "./_events.ts";

export interface PlegDeps {
  runtime: PodRuntime;
  /** Written after every relist; `createPodStatusCache` makes one. */
  cache: RelistCache;
  clock: Clock;
  logger: Logger;
  /** Pause between the end of one relist and the start of the next (default 1 s). */
  relistPeriodMs?: number;
  /** `healthy()` turns false when no relist succeeded for this long (default 3 min). */
  relistThresholdMs?: number;
  /** Metrics hook: duration of each relist, with the error when the runtime could not list. */
  onRelist?: (ms: number, err?: unknown) => void;
  /**
   * The runtime's container event stream (CRI GetContainerEvents, `RuntimeService.
   * containerEvents`). While it is up, each event asks for an early relist and the periodic
   * relist runs only every `eventedRelistPeriodMs` (the evented PLEG); when the runtime does
   * not serve it or it fails, the PLEG relists every `relistPeriodMs` and tries it again later.
   */
  events?: (
    onEvent: (e: { containerId: string }) => void,
    opts: { signal: AbortSignal; onReady?: () => void },
  ) => Promise<void>;
  /** Period of the safety-net relist while events flow (default 300 s, as upstream). */
  eventedRelistPeriodMs?: number;
  /** `relistThresholdMs` while events flow (default 10 min, as upstream). */
  eventedRelistThresholdMs?: number;
}

/** The PLEG plus a way to relist on demand (start-up, tests). */
export interface GenericPleg extends Pleg {
  /**
   * Runs one relist now, after any relist in progress (relists never overlap). Never throws:
   * failures are logged and retried on the next relist. On abort, returns without advancing
   * the cache's global timestamp.
   */
  relist(onEvent: (e: PodLifecycleEvent) => void, opts?: { signal?: AbortSignal }): Promise<void>;
  /** True while the runtime's container events drive relists (the evented PLEG). */
  readonly evented: boolean;
}

export const DEFAULT_RELIST_PERIOD_MS = 1_000;
export const DEFAULT_EVENTED_RELIST_PERIOD_MS = 300_000;
/** A stream that failed is opened again after this long... */
const EVENTS_RETRY_MS = 5_000;
/** ...and after this long when the runtime does not serve it (it may be upgraded meanwhile). */
const EVENTS_UNSERVED_RETRY_MS = 10 * 60_000;
export const DEFAULT_RELIST_THRESHOLD_MS = 3 * 60_000;
export const DEFAULT_EVENTED_RELIST_THRESHOLD_MS = 10 * 60_000;
/**
 * While events flow the cache's global timestamp moves on this often without a relist, so that
 * pod workers waiting for a status newer than their last sync are not held until the next
 * relist, minutes away (upstream's evented PLEG updates it every 5 s too).
 */
export const EVENTED_CACHE_TICK_MS = 5_000;

class GenericPlegImpl implements GenericPleg {
  /** Each pod as of the last relist that processed it (upstream's podRecords `old`). */
  #records = new Map<string, RunningPod>();
  /** When an early relist was asked for (requestRelist), until it has run. */
  #earlyAt?: number;
  #wake?: AbortController;
  /** Pods whose status fetch failed: fetched again on the next relist even without events. */
  #reinspect = new Set<string>();
  /** Start time of the last relist whose list call succeeded; 0 = never. */
  #relistTime = 0;
  #chain: Promise<void> = Promise.resolve();
  readonly #period: number;
  readonly #eventedPeriod: number;
  readonly #threshold: number;
  readonly #eventedThreshold: number;
  /** The runtime's event stream is up: relists come from events, the period is long. */
  #eventsUp = false;
  /** Relists asked for and not finished (`#chain`'s length). */
  #relisting = 0;

  readonly #listFailures: RepeatedFailures;

  constructor(private readonly deps: PlegDeps) {
    this.#period = deps.relistPeriodMs ?? DEFAULT_RELIST_PERIOD_MS;
    this.#eventedPeriod = deps.eventedRelistPeriodMs ?? DEFAULT_EVENTED_RELIST_PERIOD_MS;
    this.#threshold = deps.relistThresholdMs ?? DEFAULT_RELIST_THRESHOLD_MS;
    this.#eventedThreshold = deps.eventedRelistThresholdMs ?? DEFAULT_EVENTED_RELIST_THRESHOLD_MS;
    this.#listFailures = new RepeatedFailures(deps.logger, { clock: deps.clock });
  }

  runningPods(): RunningPod[] {
    return [...this.#records.values()];
  }

  /** Whether relists are driven by the runtime's container events now. */
  get evented(): boolean {
    return this.#eventsUp;
  }

  async run(onEvent: (e: PodLifecycleEvent) => void, opts: { signal: AbortSignal }) {
    const { signal } = opts;
    const { clock } = this.deps;
    const watching = this.deps.events ? this.#watchEvents(signal) : Promise.resolve();
    while (!signal.aborted) {
      await this.relist(onEvent, { signal });
      const ended = clock.monotonic();
      // Sleep until the period ends, or until an early relist asked for meanwhile is due. The
      // period is read on every wake: it shortens when the event stream goes down.
      for (;;) {
        const wake = new AbortController();
        this.#wake = wake;
        const period = this.#eventsUp ? this.#eventedPeriod : this.#period;
        const until = Math.min(ended + period, this.#earlyAt ?? Infinity);
        try {
          await clock.sleep(until - clock.monotonic(), {
            signal: AbortSignal.any([signal, wake.signal]),
          });
          break;
        } catch {
          if (signal.aborted) break;
          // Woken by requestRelist or the event stream: sleep again towards the nearer time.
        }
      }
      if (signal.aborted) break;
      this.#earlyAt = undefined;
    }
    await watching;
  }

  /**
   * Keeps the runtime's event stream open: each event asks for an early relist (which reads
   * only what changed). When the stream fails, relists go back to every period at once.
   */
  async #watchEvents(signal: AbortSignal): Promise<void> {
    const { clock, logger } = this.deps;
    let unserved = false;
    while (!signal.aborted) {
      let retryMs = EVENTS_RETRY_MS;
      const streamDone = new AbortController();
      try {
        await this.deps.events!(() => this.requestRelist(), {
          signal,
          onReady: () => {
            clock.every(EVENTED_CACHE_TICK_MS, () => this.#cacheTick(), {
              signal: AbortSignal.any([signal, streamDone.signal]),
            });
            this.#eventsUp = true;
            unserved = false;
            logger.info("PLEG: following the runtime's container events", {
              relistPeriod: formatDuration(this.#eventedPeriod),
            });
            // Whatever changed while the stream was down is found by one relist now.
            this.requestRelist();
          },
        });
      } catch (err) {
        if (signal.aborted) break;
        const wasUp = this.#eventsUp;
        this.#eventsUp = false;
        this.#wake?.abort();
        if (isUnimplemented(err)) {
          retryMs = EVENTS_UNSERVED_RETRY_MS;
          if (!unserved) {
            logger.info("PLEG: the runtime serves no container events; relisting", {
              relistPeriod: formatDuration(this.#period),
            });
          }
          unserved = true;
        } else {
          logger.warn("PLEG: container event stream failed; relisting until it is back", {
            err,
            wasUp,
          });
        }
      }
      streamDone.abort();
      this.#eventsUp = false;
      try {
        await clock.sleep(retryMs, { signal });
      } catch {
        break;
      }
    }
    this.#eventsUp = false;
  }

  /**
   * While events flow: the cache is as fresh as now unless an event's relist is still to come
   * or running. Pods whose status fetch failed are fetched again now rather than minutes later.
   */
  #cacheTick(): void {
    if (!this.#eventsUp) return;
    if (this.#reinspect.size > 0) return this.requestRelist();
    if (this.#earlyAt !== undefined || this.#relisting > 0) return;
    this.deps.cache.updateTime(this.deps.clock.monotonic());
  }

  requestRelist(): void {
    if (this.#earlyAt !== undefined) return;
    this.#earlyAt = this.deps.clock.monotonic() + EARLY_RELIST_DELAY_MS;
    this.#wake?.abort();
  }

  requestReinspect(uid: string): void {
    this.#reinspect.add(uid);
    this.requestRelist();
  }

  relist(onEvent: (e: PodLifecycleEvent) => void, opts?: { signal?: AbortSignal }) {
    this.#relisting++;
    const next = this.#chain
      .then(() => this.#relistOnce(onEvent, opts?.signal))
      .catch((e) => this.deps.logger.error("PLEG: relist failed unexpectedly", { err: e }))
      .finally(() => this.#relisting--);
    this.#chain = next;
    return next;
  }

  healthy(): { ok: boolean; message?: string } {
    if (this.#relistTime === 0) return { ok: false, message: "pleg has yet to be successful" };
    const elapsed = this.deps.clock.monotonic() - this.#relistTime;
    const threshold = this.#eventsUp ? this.#eventedThreshold : this.#threshold;
    if (elapsed > threshold) {
      return {
        ok: false,
        message: `pleg was last seen active ${formatDuration(elapsed)} ago; threshold is ${
          formatDuration(threshold)
        }`,
      };
    }
    return { ok: true };
  }

  async #relistOnce(onEvent: (e: PodLifecycleEvent) => void, signal?: AbortSignal) {
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
    this.#relistTime = timestamp;

    const current = new Map(pods.map((p) => [p.uid, p]));
    // Taken now: a reinspection asked for while this relist runs is the next one's (the status
    // read here may predate what it was asked for).
    const reinspect = this.#reinspect;
    this.#reinspect = new Set();
    const uids = new Set([...this.#records.keys(), ...current.keys(), ...reinspect]);
    const needsReinspection = new Set<string>();
    const toEmit: PodLifecycleEvent[] = [];
    const changed: { uid: string; newPod?: RunningPod; events: PodLifecycleEvent[] }[] = [];
    for (const uid of uids) {
      const oldPod = this.#records.get(uid);
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
      if (newPod) this.#records.set(uid, newPod);
      else this.#records.delete(uid);
      // ContainerChanged (a container seen only as created/unknown) is not reliable enough to
      // act on; upstream drops it too. The cache has the new state regardless.
      toEmit.push(...events.filter((e) => e.type !== "ContainerChanged"));
      // As upstream: a full reinspection always ends in a sync of the pod.
      if (events.length === 0) toEmit.push({ uid, type: "PodSync" });
    });

    // Only after every changed pod is in the cache: waiters may now trust the whole cache.
    cache.updateTime(timestamp);
    for (const uid of needsReinspection) this.#reinspect.add(uid);
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

/** Creates the PLEG; nothing runs until `run` or `relist` is called. */
export function createPleg(deps: PlegDeps): GenericPleg {
  return new GenericPlegImpl(deps);
}

/**
 * How long after a sync that changed something the PLEG relists, instead of at the next
 * period: the runtime has registered the change by then, and a burst of syncs folds into one
 * relist. It cuts the time until the status shows a started container from up to a second.
 */
const EARLY_RELIST_DELAY_MS = 50;

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
