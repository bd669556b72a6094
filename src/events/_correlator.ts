/**
 * client-go's EventCorrelator, in short: a spam filter (a token bucket per source, object, type,
 * reason and message: 25 at once, then one per 5 minutes), an aggregator (more than 10 events
 * that differ only by message within 10 minutes become one "(combined from similar events)"
 * event) and a de-duplicator (a repeat of the same event within the cache bumps `count` and
 * `lastTimestamp` on the existing Event instead of creating another). Pure apart from the clock.
 */
import type { Clock } from "../util/clock.ts";
import type { EventType, ObjectRef } from "./types.ts";

const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;
const AGGREGATE_MAX = 10;
const AGGREGATE_WINDOW_MS = 600_000;
const CACHE_ENTRIES = 4096;

export interface EventInput {
  ref: ObjectRef;
  type: EventType;
  reason: string;
  message: string;
}

/** What to do with an event. */
export type Correlated =
  | { action: "drop" }
  | { action: "create"; key: string; message: string; count: 1 }
  | { action: "patch"; key: string; message: string; count: number; name: string };

interface Seen {
  name: string;
  count: number;
  firstTimestamp: number;
}

/** A size-capped map that forgets the least recently used entry (groupcache's LRU). */
class Lru<V> {
  readonly #map = new Map<string, V>();
  get(k: string): V | undefined {
    const v = this.#map.get(k);
    if (v !== undefined) {
      this.#map.delete(k);
      this.#map.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.#map.delete(k);
    this.#map.set(k, v);
    if (this.#map.size > CACHE_ENTRIES) this.#map.delete(this.#map.keys().next().value!);
  }
  delete(k: string): void {
    this.#map.delete(k);
  }
}

export class EventCorrelator {
  readonly #clock: Clock;
  readonly #spam = new Lru<{ tokens: number; at: number }>();
  readonly #aggregate = new Lru<{ messages: Set<string>; at: number }>();
  readonly #seen = new Lru<Seen>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  correlate(e: EventInput): Correlated {
    // The spam filter's bucket and the aggregation window are intervals.
    const now = this.#clock.monotonic();
    if (!this.#allow(e, now)) return { action: "drop" };
    const { key, message } = this.#aggregateKey(e, now);
    const seen = this.#seen.get(key);
    if (seen) {
      seen.count++;
      return { action: "patch", key, message, count: seen.count, name: seen.name };
    }
    return { action: "create", key, message, count: 1 };
  }

  /** The event `key` now exists in the API under `name`. */
  created(key: string, name: string): void {
    this.#seen.set(key, { name, count: 1, firstTimestamp: this.#clock.now() });
  }

  /** The event `key` is gone from the API (it expired): the next repeat creates it again. */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  #allow(e: EventInput, now: number): boolean {
    const key = [objectKey(e.ref), e.type, e.reason, e.message].join("\u0000");
    const bucket = this.#spam.get(key) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + ((now - bucket.at) / 1000) * SPAM_QPS);
    bucket.at = now;
    this.#spam.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  #aggregateKey(e: EventInput, now: number): { key: string; message: string } {
    const aggregate = [objectKey(e.ref), e.type, e.reason].join("\u0000");
    let record = this.#aggregate.get(aggregate);
    if (!record || now - record.at > AGGREGATE_WINDOW_MS) record = { messages: new Set(), at: now };
    record.messages.add(e.message);
    record.at = now;
    this.#aggregate.set(aggregate, record);
    if (record.messages.size < AGGREGATE_MAX) {
      return { key: `${aggregate}\u0000${e.message}`, message: e.message };
    }
    return { key: aggregate, message: `(combined from similar events): ${e.message}` };
  }
}

function objectKey(r: ObjectRef): string {
  return [r.kind, r.namespace ?? "", r.name, r.uid ?? "", r.apiVersion ?? "", r.fieldPath ?? ""]
    .join("\u0000");
}
