/** Order statistics for the benchmark's latency samples, and agent/baseline ratios. */

export interface Summary {
  n: number;
  median: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
}

const STATS = ["median", "p90", "p99", "min", "max"] as const;

/** Nearest-rank percentiles (no interpolation: every figure is an observed sample). */
export function summarize(xs: number[]): Summary {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] ?? NaN;
  return {
    n: s.length,
    median: q(0.5),
    p90: q(0.9),
    p99: q(0.99),
    min: s[0] ?? NaN,
    max: s.at(-1) ?? NaN,
  };
}

/** Statistic-wise agent / baseline: 1.00 means the agent adds nothing to the runtime's cost. */
export function ratio(agent: Summary, baseline: Summary): Omit<Summary, "n"> {
  return Object.fromEntries(STATS.map((k) => [k, agent[k] / baseline[k]])) as Omit<
    Summary,
    "n"
  >;
}
