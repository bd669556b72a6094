import type { Clock } from "../util/clock.ts";

/** Why a wait ended: the period ran out, a change notification came, or the signal aborted. */
export type WakeReason = "period" | "notify" | "abort";

/**
 * The file source's wait between reads: a period that a change notification can cut short. A
 * burst of notifications within `debounceMs` wakes the loop once, after the burst's first
 * notification plus `debounceMs`, so an editor's write-rename-chmod is read as one change.
 */
export class Waker {
  #pending = false;
  #debouncing = false;
  #wake: (() => void) | undefined;

  constructor(readonly clock: Clock, readonly signal: AbortSignal) {}

  /** Requests a wake-up `debounceMs` from now unless one is already scheduled. Never throws. */
  notify(debounceMs: number): void {
    if (this.#debouncing || this.signal.aborted) return;
    this.#debouncing = true;
    this.clock.sleep(debounceMs, { signal: this.signal }).then(
      () => {
        this.#debouncing = false;
        if (this.#wake) this.#wake();
        else this.#pending = true;
      },
      // Only an abort rejects the sleep; the run loop is ending and needs no wake-up.
      () => {
        this.#debouncing = false;
      },
    );
  }

  /**
   * Resolves after `periodMs`, on a (debounced) notification, or when the signal aborts, saying
   * which; never rejects. A notification that arrived while nobody waited wakes the next wait
   * at once.
   */
  async wait(periodMs: number): Promise<WakeReason> {
    if (this.#pending) {
      this.#pending = false;
      return "notify";
    }
    if (this.signal.aborted) return "abort";
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    this.signal.addEventListener("abort", onAbort, { once: true });
    const woken = new Promise<WakeReason>((resolve) => (this.#wake = () => resolve("notify")));
    const period = this.clock.sleep(periodMs, { signal: stop.signal }).then(() =>
      "period" as const
    );
    try {
      return await Promise.race([period, woken]);
    } catch (e) {
      if (!stop.signal.aborted) throw e;
      return "abort";
    } finally {
      this.#wake = undefined;
      this.signal.removeEventListener("abort", onAbort);
      stop.abort();
    }
  }
}
