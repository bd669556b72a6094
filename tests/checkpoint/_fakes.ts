/** A checkpoint slot in memory, for the checkpoint's users (the `api` source, the objects). */
import type { CheckpointSlot } from "../../src/checkpoint/types.ts";

export class MemorySlot<T> implements CheckpointSlot<T> {
  saved: T | undefined;
  readonly savedAt: number | undefined;
  /** How often a write was asked for. */
  schedules = 0;
  #produce?: () => T;

  constructor(saved?: T, savedAt?: number) {
    this.saved = saved;
    this.savedAt = saved === undefined ? undefined : savedAt ?? Date.UTC(2026, 0, 1);
  }

  take(): T | undefined {
    const saved = this.saved;
    this.saved = undefined;
    return saved;
  }

  schedule(produce: () => T): void {
    this.schedules++;
    this.#produce = produce;
  }

  /** What the next write would hold; undefined when none was asked for. */
  produced(): T | undefined {
    return this.#produce?.();
  }
}
