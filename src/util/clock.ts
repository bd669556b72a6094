/**
 * The only place that touches wall-clock time and timers. Everything else takes a `Clock`
 * so tests can drive time deterministically with `FakeClock`.
 *
 * Two readings, as Go's time.Time carries two: `now()` is the wall clock, for timestamps others
 * read (status times, lease renewals, expiry times the API server sets); `monotonic()` never
 * steps, for every interval, deadline, rate and TTL the agent measures itself. A box without an
 * RTC boots in the past and NTP steps its wall clock by hours: an interval on the wall clock
 * then lasts hours longer (or ends at once).
 */
export interface Clock {
  /** Milliseconds since the epoch (the wall clock; it can step either way). */
  now(): number;
  /**
   * Milliseconds on a clock that only moves forward at the rate of real time, whatever the
   * wall clock does. Only differences between two readings mean anything.
   */
  monotonic(): number;
  /**
   * Resolves after `ms` milliseconds. Rejects with the signal's reason if aborted first;
   * the underlying timer is cleared on abort so nothing leaks.
   */
  sleep(ms: number, opts?: { signal?: AbortSignal }): Promise<void>;
  /** Calls `fn` every `ms` milliseconds until the returned function is called or the signal aborts. */
  every(ms: number, fn: () => void, opts?: { signal?: AbortSignal }): () => void;
}

/** The longest delay setTimeout honours. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Where monotonic readings start: the wall time at start, so readings look like epoch ms. */
const MONOTONIC_ORIGIN = performance.timeOrigin;

export const realClock: Clock = {
  now: () => Date.now(),
  // Deno's performance.now() is CLOCK_MONOTONIC, as its timers are.
  monotonic: () => MONOTONIC_ORIGIN + performance.now(),
  sleep(ms, opts) {
    const signal = opts?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      let id: ReturnType<typeof setTimeout>;
      const onAbort = () => {
        clearTimeout(id);
        reject(signal!.reason);
      };
      // Timers take at most 2^31-1 ms (24.8 days) and fire at once beyond: longer waits (a
      // year-long certificate's renewal) are slept in pieces.
      const end = performance.now() + Math.max(0, ms);
      const arm = () => {
        const left = end - performance.now();
        if (left > MAX_TIMER_MS) {
          id = setTimeout(arm, MAX_TIMER_MS);
          return;
        }
        id = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, Math.max(0, left));
      };
      arm();
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  },
  every(ms, fn, opts) {
    const id = setInterval(fn, ms);
    const stop = () => {
      clearInterval(id);
      opts?.signal?.removeEventListener("abort", stop);
    };
    opts?.signal?.addEventListener("abort", stop, { once: true });
    return stop;
  },
};

/**
 * The real clock with its wall reading moved by the milliseconds written in `file` (re-read
 * every second; missing or unreadable means 0). For the API-mode fault campaign, which steps
 * one agent's wall clock back without touching the machine's: set through the environment
 * variable DENOLET_TEST_WALL_OFFSET_FILE, never in production. Timers and monotonic readings
 * are the real ones, as a stepped system clock leaves them.
 */
export function offsetWallClock(file: string): Clock {
  let offset = 0;
  const reread = () => {
    try {
      offset = Number(Deno.readTextFileSync(file).trim()) || 0;
    } catch {
      offset = 0; // no file: no offset
    }
  };
  reread();
  Deno.unrefTimer(setInterval(reread, 1_000));
  return { ...realClock, now: () => Date.now() + offset };
}

interface Timer {
  at: number;
  fire: () => void;
  period?: number;
  cancelled: boolean;
}

/**
 * A manually advanced clock for tests. `advance` fires due timers in time order and moves both
 * readings; `stepWall` steps the wall clock alone (NTP at boot), as timers do not see it.
 */
export class FakeClock implements Clock {
  /** Monotonic time; timers run on it. */
  #now: number;
  /** Wall time minus monotonic time: 0 until `stepWall`. */
  #wallOffset = 0;
  #timers: Timer[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now + this.#wallOffset;
  }

  monotonic(): number {
    return this.#now;
  }

  /** Steps the wall clock by `ms` (negative: back) without moving monotonic time or timers. */
  stepWall(ms: number): void {
    this.#wallOffset += ms;
  }

  sleep(ms: number, opts?: { signal?: AbortSignal }): Promise<void> {
    const signal = opts?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const timer: Timer = {
        at: this.#now + Math.max(0, ms),
        cancelled: false,
        fire: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        timer.cancelled = true;
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#timers.push(timer);
    });
  }

  every(ms: number, fn: () => void, opts?: { signal?: AbortSignal }): () => void {
    const timer: Timer = { at: this.#now + ms, period: ms, cancelled: false, fire: fn };
    this.#timers.push(timer);
    const stop = () => {
      timer.cancelled = true;
    };
    opts?.signal?.addEventListener("abort", stop, { once: true });
    return stop;
  }

  /** Number of live timers; handy to assert nothing leaked. */
  get pendingTimers(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing due timers in order and letting microtasks run between. */
  async advance(ms: number): Promise<void> {
    const end = this.#now + ms;
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      this.#timers.sort((a, b) => a.at - b.at);
      const next = this.#timers[0];
      if (!next || next.at > end) break;
      this.#now = next.at;
      if (next.period !== undefined) next.at += next.period;
      else this.#timers.shift();
      next.fire();
      await flushMicrotasks();
    }
    this.#now = end;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** Starts a high-resolution stopwatch for measuring durations (metrics); returns elapsed ms. */
export function stopwatch(): () => number {
  const t0 = performance.now();
  return () => performance.now() - t0;
}

/**
 * A signal that aborts with `reason` after `ms` on `clock`, or when `parent` aborts. Call
 * `cancel` once the guarded work is done so the timer does not outlive it.
 */
export function deadlineSignal(
  clock: Clock,
  ms: number,
  opts: { parent?: AbortSignal; reason?: () => Error } = {},
): { signal: AbortSignal; cancel: () => void } {
  const timer = new AbortController();
  const deadline = new AbortController();
  clock.sleep(ms, { signal: timer.signal }).then(
    () => deadline.abort(opts.reason?.() ?? new Error(`deadline of ${ms} ms passed`)),
    () => {}, // cancelled: the work finished first
  );
  const signal = opts.parent ? AbortSignal.any([opts.parent, deadline.signal]) : deadline.signal;
  return { signal, cancel: () => timer.abort() };
}

/**
 * Milliseconds since this process started (Deno's time origin), for start-up timings in the
 * log: the time to a Ready Node counts from there, not from when the agent's code ran.
 */
export function processUptimeMs(): number {
  return Math.round(performance.now());
}
