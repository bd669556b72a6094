import type { Clock } from "../util/clock.ts";

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
   * Resolves after `periodMs`, on a (debounced) notification, or when the signal aborts;
   * never rejects. A notification that arrived while nobody waited wakes the next wait at once.
   */
  async wait(periodMs: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return;
    }
    if (this.signal.aborted) return;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    this.signal.addEventListener("abort", onAbort, { once: true });
    const woken = new Promise<void>((resolve) => (this.#wake = resolve));
    try {
      await Promise.race([this.clock.sleep(periodMs, { signal: stop.signal }), woken]);
    } catch (e) {
      if (!stop.signal.aborted) throw e;
    } finally {
      this.#wake = undefined;
      this.signal.removeEventListener("abort", onAbort);
      stop.abort();
    }
  }
}
