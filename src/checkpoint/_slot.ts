/**
 * One kind's debounced writer: the first `schedule` arms a timer, later ones only replace what
 * will be written, and the write produces the latest state when the timer fires. One write at a
 * time; a change during a write arms the timer again. A failed write is retried with the same
 * (or a newer) state after a back-off, so a full disk costs a log line, not a loop.
 */
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import type { CheckpointSlot } from "./types.ts";

const MAX_RETRY_MS = 60_000;

export interface SlotDeps<T> {
  kind: string;
  saved?: { data: T; savedAt: number };
  write: (data: T) => Promise<void>;
  clock: Clock;
  logger: Logger;
  /** The debounce window; default 1 s. */
  delayMs?: number;
}

export class DebouncedSlot<T> implements CheckpointSlot<T> {
  readonly savedAt: number | undefined;
  #saved: T | undefined;
  readonly #deps: SlotDeps<T>;
  readonly #failures: RepeatedFailures;
  #pending?: () => T;
  #timer?: AbortController;
  #writing?: Promise<void>;
  #retryMs = 0;
  #closed = false;
  /** Completed writes, for tests and logs. */
  writes = 0;

  constructor(deps: SlotDeps<T>) {
    this.#deps = deps;
    this.#saved = deps.saved?.data;
    this.savedAt = deps.saved?.savedAt;
    this.#failures = new RepeatedFailures(deps.logger, { clock: deps.clock });
  }

  take(): T | undefined {
    const saved = this.#saved;
    this.#saved = undefined;
    return saved;
  }

  schedule(produce: () => T): void {
    if (this.#closed) return;
    this.#pending = produce;
    if (!this.#timer && !this.#writing) this.#arm(this.#deps.delayMs ?? 1000);
  }

  /** Writes what is pending now (after the write in flight) and stops taking new work. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#timer?.abort();
    this.#timer = undefined;
    await this.#writing;
    if (this.#pending) await this.#write();
  }

  #arm(ms: number): void {
    const timer = new AbortController();
    this.#timer = timer;
    this.#deps.clock.sleep(ms, { signal: timer.signal }).then(
      () => {
        this.#timer = undefined;
        this.#writing = this.#write().finally(() => {
          this.#writing = undefined;
          if (this.#pending && !this.#closed) {
            this.#arm(this.#retryMs || (this.#deps.delayMs ?? 1000));
          }
        });
      },
      () => undefined, // cancelled by close, which writes what is pending itself
    );
  }

  /** Never rejects. */
  async #write(): Promise<void> {
    const produce = this.#pending;
    this.#pending = undefined;
    if (!produce) return;
    try {
      await this.#deps.write(produce());
      this.writes++;
      this.#retryMs = 0;
      this.#failures.clear("write");
    } catch (err) {
      // Keep the newest state to write: a schedule during the write wins over this one.
      this.#pending ??= produce;
      const base = this.#deps.delayMs ?? 1000;
      this.#retryMs = Math.min(this.#retryMs ? this.#retryMs * 2 : base * 2, MAX_RETRY_MS);
      this.#failures.warn("write", "Cannot write the checkpoint; the previous one stays", {
        kind: this.#deps.kind,
        err,
        retryInMs: this.#retryMs,
      });
    }
  }
}
