/**
 * `usageNanoCores` as upstream computes it when the runtime does not: the change in cumulative
 * CPU time between two samples of the same object divided by the (monotonic) time between them.
 */

interface Point {
  cpuNs: number;
  atMs: number;
}

export class CpuRateTracker {
  #last = new Map<string, Point>();
  #seen = new Set<string>();

  /**
   * @param maxGapMs a previous point older than this gives no rate: an average over a long gap
   * (pods sampled again after nobody read them for an hour) is not current usage.
   */
  constructor(private readonly maxGapMs = Infinity) {}

  /**
   * Records a cumulative sample for `key` and returns nano-cores since the previous one, or
   * undefined for the first sample, a clock that did not move, a counter that went back (a new
   * container reusing the key) or a previous sample too old. Samples older than the last one
   * are ignored.
   */
  update(key: string, cpuNs: number, atMs: number): number | undefined {
    this.#seen.add(key);
    const prev = this.#last.get(key);
    if (prev !== undefined && atMs < prev.atMs) return undefined;
    this.#last.set(key, { cpuNs, atMs });
    if (prev === undefined) return undefined;
    const dtMs = atMs - prev.atMs;
    const dCpu = cpuNs - prev.cpuNs;
    if (dtMs <= 0 || dtMs > this.maxGapMs || dCpu < 0) return undefined;
    // ns of CPU per second = nano-cores.
    return Math.round((dCpu * 1000) / dtMs);
  }

  /** Forgets keys not updated since the previous `sweep` (pods and containers that are gone). */
  sweep(): void {
    for (const key of this.#last.keys()) {
      if (!this.#seen.has(key)) this.#last.delete(key);
    }
    this.#seen.clear();
  }
}
