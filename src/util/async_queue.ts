/**
 * An unbounded FIFO with an async `next`. Used as the sync loop's inbox: producers (sources,
 * PLEG, timers) push synchronously; one consumer awaits. Producers are few and coalesce their
 * own work, so the queue stays short.
 */
export class AsyncQueue<T> {
  #items: T[] = [];
  #waiter?: (v: void) => void;

  push(item: T): void {
    this.#items.push(item);
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  get length(): number {
    return this.#items.length;
  }

  /** Resolves with the next item; rejects with the signal's reason when aborted while waiting. */
  async next(opts: { signal: AbortSignal }): Promise<T> {
    const { signal } = opts;
    while (this.#items.length === 0) {
      signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        this.#waiter = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
      });
    }
    return this.#items.shift()!;
  }
}
