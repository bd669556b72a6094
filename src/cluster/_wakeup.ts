/**
 * A wake-up for a background loop: `wait` resolves at the next `wake` (one that came while
 * nobody waited is kept, so none is lost), after `ms` on the clock, or when the signal aborts.
 */
import type { Clock } from "../util/clock.ts";

export class Wakeup {
  #pending = false;
  #resolve?: () => void;

  constructor(readonly clock: Clock) {}

  wake(): void {
    const r = this.#resolve;
    if (r) {
      this.#resolve = undefined;
      r();
    } else this.#pending = true;
  }

  /** Never rejects; `ms` undefined waits for a wake-up or the abort only. */
  async wait(ms: number | undefined, opts: { signal: AbortSignal }): Promise<void> {
    if (this.#pending || opts.signal.aborted) {
      this.#pending = false;
      return;
    }
    const done = new AbortController();
    const signal = AbortSignal.any([opts.signal, done.signal]);
    const woken = new Promise<void>((resolve) => {
      this.#resolve = resolve;
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    const timer = ms === undefined ? undefined : this.clock.sleep(Math.max(0, ms), { signal }).then(
      () => undefined,
      () => undefined, // cancelled: woken or aborted first
    );
    try {
      await (timer ? Promise.race([woken, timer]) : woken);
    } finally {
      this.#resolve = undefined;
      done.abort();
      await timer;
    }
  }
}
