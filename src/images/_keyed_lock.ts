/**
 * One holder per key at a time (upstream's striped locks): callers for the same key run in
 * arrival order, other keys are not held up.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier holder of `key` has finished; settles as `fn` does. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const ahead = this.#tails.get(key) ?? Promise.resolve();
    const mine = Promise.withResolvers<void>();
    const tail = ahead.then(() => mine.promise);
    this.#tails.set(key, tail);
    try {
      await ahead;
      return await fn();
    } finally {
      mine.resolve();
      // The last holder leaves no entry behind.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
