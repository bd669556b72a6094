import type { Clock } from "../../util/clock.ts";

/**
 * A small expiring cache for review answers, bounded like upstream's (least recently used entries
 * go first). Entries carry their own TTL: allowed and denied answers live for different times.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  constructor(private readonly clock: Clock, private readonly maxEntries = 4096) {}

  get(key: string): V | undefined {
    const e = this.#entries.get(key);
    if (e === undefined) return undefined;
    if (e.expiresAt <= this.clock.monotonic()) {
      this.#entries.delete(key);
      return undefined;
    }
    // Re-insert to mark it recently used (Map keeps insertion order).
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e.value;
  }

  /** A TTL of 0 or less caches nothing (as a cacheTTL of 0 turns caching off upstream). */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: this.clock.monotonic() + ttlMs });
    if (this.#entries.size > this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
