/**
 * A first-come, first-served limit on sandbox creation (issue 14). 110 pods written at once used
 * to ask the runtime for 110 sandboxes at once: every pod then moved through each stage in step
 * with the others and all of them came up together at the end. With a few sandboxes in flight,
 * the first pods get their sandboxes first and go on to their containers while later ones wait,
 * so pods come up in the order they arrived, with the runtime just as busy.
 */
export class StartGate {
  #free: number;
  readonly #queue: { grant: () => void }[] = [];

  constructor(readonly limit: number) {
    this.#free = limit;
  }

  /**
   * Runs `fn` once a slot is free, waiters in the order they called. Aborting `signal` while
   * waiting rejects with its reason and gives up the place; `fn` itself gets no signal from here.
   */
  async run<T>(fn: () => Promise<T>, opts: { signal?: AbortSignal } = {}): Promise<T> {
    await this.#acquire(opts.signal);
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  /** Holders and waiters now (for tests and logs). */
  get state(): { running: number; waiting: number } {
    return { running: this.limit - this.#free, waiting: this.#queue.length };
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0 && this.#queue.length === 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        const i = this.#queue.indexOf(waiter);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(waiter);
    });
  }

  #release(): void {
    const next = this.#queue.shift();
    // The slot passes straight to the next waiter, so a newcomer cannot jump the queue.
    if (next) next.grant();
    else this.#free++;
  }
}

/** Sandboxes created at once; the rest of a pod's start is not limited. */
export const SANDBOX_CREATION_CONCURRENCY = 4;
