/**
 * A keyed exponential back-off, after client-go's `flowcontrol.Backoff` (no jitter): each key
 * has a current delay that starts at `initialMs`, doubles on every `next` and is capped at
 * `maxMs`. An entry that has not been touched for `2 × maxMs` is considered stable and starts
 * over (and is dropped by `gc`). Used for crash-loop restarts and image pulls.
 */
import type { Clock } from "./clock.ts";

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  clock: Clock;
  /**
   * Measure on the monotonic clock (event times passed in must be monotonic readings too). The
   * default, the wall clock, is for crash loops: their event times are the runtime's finish times.
   */
  monotonic?: boolean;
}

interface Entry {
  delayMs: number;
  lastUpdate: number;
}

export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();

  constructor(opts: BackoffOptions) {
    if (opts.initialMs <= 0 || opts.maxMs < opts.initialMs) {
      throw new RangeError(
        `Cannot create back-off: need 0 < initialMs <= maxMs, got ${opts.initialMs}/${opts.maxMs}`,
      );
    }
    this.#initialMs = opts.initialMs;
    this.#maxMs = opts.maxMs;
    const clock = opts.clock;
    this.#now = opts.monotonic ? () => clock.monotonic() : () => clock.now();
  }

  /** Current delay of `key` in ms; 0 when the key has no entry. */
  get(key: string): number {
    return this.#entries.get(key)?.delayMs ?? 0;
  }

  /**
   * Moves `key` to its next delay: the initial delay for a new or expired entry (the event at
   * `eventTime` came more than 2 × max after the last update), otherwise double, capped at max.
   */
  next(key: string, eventTime: number = this.#now()): void {
    const entry = this.#entries.get(key);
    const now = this.#now();
    if (!entry || this.#expired(eventTime, entry)) {
      this.#entries.set(key, { delayMs: this.#initialMs, lastUpdate: now });
      return;
    }
    entry.delayMs = Math.min(entry.delayMs * 2, this.#maxMs);
    entry.lastUpdate = now;
  }

  /**
   * True while less than the current delay has passed since `eventTime` (for crash loops: when
   * the container last finished). False for unknown or expired keys.
   */
  inBackOffSince(key: string, eventTime: number): boolean {
    const entry = this.#entries.get(key);
    if (!entry || this.#expired(eventTime, entry)) return false;
    return this.#now() - eventTime < entry.delayMs;
  }

  /**
   * True while less than the current delay has passed between the last `next` and `eventTime`
   * (for image pulls: "now" against the last failure).
   */
  inBackOffSinceUpdate(key: string, eventTime: number): boolean {
    const entry = this.#entries.get(key);
    if (!entry || this.#expired(eventTime, entry)) return false;
    return eventTime - entry.lastUpdate < entry.delayMs;
  }

  /** Forgets `key`. */
  reset(key: string): void {
    this.#entries.delete(key);
  }

  /** Forgets every key for which `pred` is true (e.g. all keys of a deleted pod). */
  resetWhere(pred: (key: string) => boolean): void {
    for (const key of [...this.#entries.keys()]) {
      if (pred(key)) this.#entries.delete(key);
    }
  }

  /** Drops entries not updated for more than 2 × max; callers run it now and then. */
  gc(): void {
    const now = this.#now();
    for (const [key, entry] of [...this.#entries]) {
      if (now - entry.lastUpdate > 2 * this.#maxMs) this.#entries.delete(key);
    }
  }

  /** Number of live entries (for tests and metrics). */
  get size(): number {
    return this.#entries.size;
  }

  // Upstream treats a key as stable once it stayed quiet for twice the maximum delay.
  #expired(eventTime: number, entry: Entry): boolean {
    return eventTime - entry.lastUpdate > 2 * this.#maxMs;
  }
}
