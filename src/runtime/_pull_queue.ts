/**
 * Who may pull when (upstream images/puller.go): one pull at a time by default
 * (`serializeImagePulls: true`), else up to `maxParallel` at once (none = no limit). Waiting
 * pulls go in arrival order.
 */

export interface PullQueueOptions {
  /** serializeImagePulls; default true. */
  serialize?: boolean;
  /** maxParallelImagePulls when not serialized; undefined or < 1: no limit. */
  maxParallel?: number;
}

export class PullQueue {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: { start: () => void; signal?: AbortSignal; onAbort: () => void }[] = [];

  constructor(opts: PullQueueOptions = {}) {
    const serialize = opts.serialize ?? true;
    const max = opts.maxParallel ?? 0;
    this.#limit = serialize ? 1 : max >= 1 ? max : Infinity;
  }

  /** Pulls that may run at once. */
  get limit(): number {
    return this.#limit;
  }

  /**
   * Runs `fn` once a slot is free. A caller aborted while waiting leaves the queue without
   * running (rejects with the signal's reason); the slot of a running `fn` is freed when it
   * settles.
   */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.#running >= this.#limit) await this.#wait(signal);
    else this.#running++;
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #wait(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const entry = {
        signal,
        start: () => {
          signal?.removeEventListener("abort", entry.onAbort);
          resolve();
        },
        onAbort: () => {
          const i = this.#waiting.indexOf(entry);
          if (i >= 0) this.#waiting.splice(i, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener("abort", entry.onAbort, { once: true });
      this.#waiting.push(entry);
    });
  }

  // The slot passes straight to the next waiter, so a newcomer cannot overtake the queue.
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next.start();
    else this.#running--;
  }
}

/**
 * registryPullQPS / registryBurst (upstream throttleImagePulling): a token bucket of `burst`
 * pulls refilled at `qps` per second; a pull that finds it empty fails at once ("pull QPS
 * exceeded") and backs off like any failed pull. qps 0: no limit.
 */
export class PullRateLimit {
  readonly #qps: number;
  readonly #burst: number;
  readonly #now: () => number;
  #tokens: number;
  #last: number;

  constructor(opts: { qps: number; burst: number; now: () => number }) {
    this.#qps = opts.qps;
    this.#burst = Math.max(1, opts.burst);
    this.#now = opts.now;
    this.#tokens = this.#burst;
    this.#last = opts.now();
  }

  /** Takes a token if there is one. */
  tryAccept(): boolean {
    if (this.#qps <= 0) return true;
    const now = this.#now();
    this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) / 1000) * this.#qps);
    this.#last = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
