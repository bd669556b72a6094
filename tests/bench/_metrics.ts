/**
 * Reading the agent's Prometheus text exposition: counters by one label and histograms, and
 * the difference between two scrapes, so a figure covers only the scenario's window.
 */

export interface Histogram {
  /** Cumulative counts by upper bound, ascending; the last bound is Infinity. */
  buckets: [number, number][];
  sum: number;
  count: number;
}

export interface HistogramSummary {
  count: number;
  /** Mean, and bucket-interpolated p50 and p99 (as Prometheus histogram_quantile), ms. */
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})?\s+(\S+)/;

function labelsOf(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (raw ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) out[m[1]] = m[2];
  return out;
}

function* samples(text: string) {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (m) yield { name: m[1], labels: labelsOf(m[2]), value: Number(m[3]) };
  }
}

/**
 * `name`'s samples keyed by the value of `label` (e.g. operation_type), summed over the other
 * labels (prober_probe_total has a series per pod and container).
 */
export function countersBy(text: string, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples(text)) {
    const key = s.labels[label];
    if (s.name === name && key !== undefined) out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

/**
 * `name`'s samples keyed by the values of `labels` joined by spaces (`GET 200`), summed over the
 * other labels; a series lacking one of them is left out.
 */
export function countersByLabels(
  text: string,
  name: string,
  labels: readonly string[],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples(text)) {
    if (s.name !== name) continue;
    const values = labels.map((l) => s.labels[l]);
    if (values.some((v) => v === undefined)) continue;
    const key = values.join(" ");
    out[key] = (out[key] ?? 0) + s.value;
  }
  return out;
}

/** The unlabelled histogram `name`, or undefined when the agent does not export it. */
export function histogram(text: string, name: string): Histogram | undefined {
  const buckets: [number, number][] = [];
  let sum: number | undefined;
  let count: number | undefined;
  for (const s of samples(text)) {
    if (s.name === `${name}_bucket`) {
      const le = s.labels.le === "+Inf" ? Infinity : Number(s.labels.le);
      buckets.push([le, s.value]);
    } else if (s.name === `${name}_sum`) sum = s.value;
    else if (s.name === `${name}_count`) count = s.value;
  }
  if (buckets.length === 0 || sum === undefined || count === undefined) return undefined;
  buckets.sort((a, b) => a[0] - b[0]);
  return { buckets, sum, count };
}

/** Counter-wise `b - a` (two scrapes of the same histogram). */
export function histogramDelta(a: Histogram, b: Histogram): Histogram {
  const before = new Map(a.buckets);
  return {
    buckets: b.buckets.map(([le, c]) => [le, c - (before.get(le) ?? 0)]),
    sum: b.sum - a.sum,
    count: b.count - a.count,
  };
}

/** Counter-wise `b - a`, dropping zeros. */
export function counterDelta(
  a: Record<string, number>,
  b: Record<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) {
    const d = v - (a[k] ?? 0);
    if (d !== 0) out[k] = d;
  }
  return out;
}

/**
 * The q-quantile by linear interpolation inside the bucket that holds it, as Prometheus does;
 * in the +Inf bucket it answers the highest finite bound. NaN when there are no observations.
 */
export function histogramQuantile(h: Histogram, q: number): number {
  if (h.count <= 0) return NaN;
  const rank = q * h.count;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, c] of h.buckets) {
    if (c >= rank) {
      if (le === Infinity) return prevLe;
      if (c === prevCount) return le;
      return prevLe + (le - prevLe) * (rank - prevCount) / (c - prevCount);
    }
    prevLe = le;
    prevCount = c;
  }
  return prevLe;
}

/** A histogram in seconds summarised in milliseconds. */
export function summarizeHistogram(h: Histogram): HistogramSummary {
  return {
    count: h.count,
    meanMs: h.count > 0 ? h.sum / h.count * 1000 : NaN,
    p50Ms: histogramQuantile(h, 0.5) * 1000,
    p99Ms: histogramQuantile(h, 0.99) * 1000,
  };
}
