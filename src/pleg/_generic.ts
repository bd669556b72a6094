/**
 * The generic PLEG (pkg/kubelet/pleg/generic.go): relist the runtime periodically, diff each
 * pod's containers and sandboxes against the previous relist, refresh the status cache for the
 * pods that changed, and then tell the sync loop which pods to look at.
 */
import { formatDuration } from "../config/duration.ts";
import { isUnimplemented } from "../cri/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { PodRuntime, RunningPod } from "../runtime/types.ts";
import type { Pleg, PodLifecycleEvent } from "./types.ts";
import type { RelistCache } from "./_cache.ts";
import { Relister } from "./_relist.ts";

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
  /** When an early relist was asked for (requestRelist), until it has run. */
  #earlyAt?: number;
  #wake?: AbortController;
  #chain: Promise<void> = Promise.resolve();
  readonly #period: number;
  readonly #eventedPeriod: number;
  readonly #threshold: number;
  readonly #eventedThreshold: number;
  /** The runtime's event stream is up: relists come from events, the period is long. */
  #eventsUp = false;
  /** Relists asked for and not finished (`#chain`'s length). */
  #relisting = 0;

  readonly #relister: Relister;

  constructor(private readonly deps: PlegDeps) {
    this.#period = deps.relistPeriodMs ?? DEFAULT_RELIST_PERIOD_MS;
    this.#eventedPeriod = deps.eventedRelistPeriodMs ?? DEFAULT_EVENTED_RELIST_PERIOD_MS;
    this.#threshold = deps.relistThresholdMs ?? DEFAULT_RELIST_THRESHOLD_MS;
    this.#eventedThreshold = deps.eventedRelistThresholdMs ?? DEFAULT_EVENTED_RELIST_THRESHOLD_MS;
    this.#relister = new Relister(deps);
  }

  runningPods(): RunningPod[] {
    return [...this.#relister.records.values()];
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
    if (this.#relister.reinspect.size > 0) return this.requestRelist();
    if (this.#earlyAt !== undefined || this.#relisting > 0) return;
    this.deps.cache.updateTime(this.deps.clock.monotonic());
  }

  requestRelist(): void {
    if (this.#earlyAt !== undefined) return;
    this.#earlyAt = this.deps.clock.monotonic() + EARLY_RELIST_DELAY_MS;
    this.#wake?.abort();
  }

  requestReinspect(uid: string): void {
    this.#relister.reinspect.add(uid);
    this.requestRelist();
  }

  relist(onEvent: (e: PodLifecycleEvent) => void, opts?: { signal?: AbortSignal }) {
    this.#relisting++;
    const next = this.#chain
      .then(() => this.#relister.relistOnce(onEvent, opts?.signal))
      .catch((e) => this.deps.logger.error("PLEG: relist failed unexpectedly", { err: e }))
      .finally(() => this.#relisting--);
    this.#chain = next;
    return next;
  }

  healthy(): { ok: boolean; message?: string } {
    if (this.#relister.relistTime === 0) {
      return { ok: false, message: "pleg has yet to be successful" };
    }
    const elapsed = this.deps.clock.monotonic() - this.#relister.relistTime;
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
