/**
 * Warnings for failures that background loops retry (housekeeping every 2 s, GC every minute):
 * the first occurrence is logged at once, the same failure again at most every `everyMs` while
 * it keeps repeating (saying how often it was held back), a different failure at once. A log
 * then grows with events, not with the retry rate.
 */
import type { Clock } from "./clock.ts";
import { errorMessage, type Fields, type Logger } from "./log.ts";

/** How long the same failure stays quiet after it was logged. */
export const DEFAULT_REPEAT_INTERVAL_MS = 5 * 60_000;

interface Entry {
  fingerprint: string;
  loggedAt: number;
  seenAt: number;
  held: number;
}

export class RepeatedFailures {
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #everyMs: number;
  readonly #entries = new Map<string, Entry>();

  constructor(logger: Logger, opts: { clock: Clock; everyMs?: number }) {
    this.#logger = logger;
    this.#clock = opts.clock;
    this.#everyMs = opts.everyMs ?? DEFAULT_REPEAT_INTERVAL_MS;
  }

  /**
   * Logs `msg` at warn for the subject `key` (a pod UID, a container id) unless the same
   * message with the same field values was logged for it less than the interval ago.
   */
  warn(key: string, msg: string, fields: Fields = {}): void {
    const now = this.#clock.monotonic();
    this.#prune(now);
    const fingerprint = fingerprintOf(msg, fields);
    const e = this.#entries.get(key);
    if (e && e.fingerprint === fingerprint && now - e.loggedAt < this.#everyMs) {
      e.held++;
      e.seenAt = now;
      return;
    }
    const held = e && e.fingerprint === fingerprint ? e.held : 0;
    this.#logger.warn(msg, held > 0 ? { ...fields, repeated: held } : fields);
    this.#entries.set(key, { fingerprint, loggedAt: now, seenAt: now, held: 0 });
  }

  /** How many subjects are remembered (bounded: see the pruning below). */
  get size(): number {
    return this.#entries.size;
  }

  /** The failure of `key` is over (the retry worked, or the subject is gone). */
  clear(key: string): void {
    this.#entries.delete(key);
  }

  /** Subjects that stopped failing without a `clear` (gone some other way) are forgotten. */
  #prune(now: number): void {
    for (const [key, e] of this.#entries) {
      if (now - e.seenAt > 2 * this.#everyMs) this.#entries.delete(key);
    }
  }
}

function fingerprintOf(msg: string, fields: Fields): string {
  const parts = [msg];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(`${k}=${v instanceof Error ? errorMessage(v) : safeString(v)}`);
  }
  return parts.join("\u0000");
}

function safeString(v: unknown): string {
  if (typeof v !== "object" || v === null) return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    // A cyclic value: its type is the best identity left.
    return Object.prototype.toString.call(v);
  }
}
