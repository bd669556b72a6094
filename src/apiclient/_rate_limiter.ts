/**
 * client-go's token bucket (`--kube-api-qps`, `--kube-api-burst`): up to `burst` requests at
 * once, refilled at `qps` per second. Waiters are served in arrival order. Time is monotonic.
 */
import type { Clock } from "../util/clock.ts";

export class RateLimiter {
  readonly #clock: Clock;
  readonly #qps: number;
  readonly #burst: number;
  #tokens: number;
  #last: number;

  constructor(opts: { qps: number; burst: number; clock: Clock }) {
    this.#clock = opts.clock;
    this.#qps = opts.qps;
    this.#burst = Math.max(1, opts.burst);
    this.#tokens = this.#burst;
    this.#last = opts.clock.monotonic();
  }

  /** Resolves when a request may be sent. Rejects with the signal's reason on abort. */
  async acquire(opts: { signal?: AbortSignal } = {}): Promise<void> {
    if (this.#qps <= 0) return; // qps 0: no limit
    this.#refill();
    this.#tokens -= 1;
    if (this.#tokens >= 0) return;
    // A negative balance is the queue: each waiter sleeps until its share is paid back at qps.
    const waitMs = Math.ceil((-this.#tokens / this.#qps) * 1000);
    try {
      await this.#clock.sleep(waitMs, { signal: opts.signal });
    } catch (e) {
      this.#tokens += 1; // an abandoned request gives its place back
      throw e;
    }
  }

  /**
   * Takes a token if one is there now; false otherwise, and nothing is queued (client-go's
   * TryAccept). For callers that refuse excess work rather than delay it.
   */
  tryAcquire(): boolean {
    if (this.#qps <= 0) return true;
    this.#refill();
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  #refill(): void {
    const now = this.#clock.monotonic();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
  }
}
