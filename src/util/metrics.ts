/**
 * A small Prometheus registry (text exposition format 0.0.4) with no dependencies.
 *
 * Hot paths (`inc`, `set`, `observe`) only touch numbers on a pre-created child; label lookups
 * go through one Map per metric, so callers on very hot paths may keep the child returned by
 * `labels(...)` instead of looking it up each time. Rendering sorts and formats; it is the only
 * place that allocates much.
 */

/** Upstream's `prometheus.DefBuckets`. */
// deno-fmt-ignore
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `count` buckets: start, start*factor, ... (upstream's `ExponentialBuckets`). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  const out: number[] = [];
  let b = start;
  for (let i = 0; i < count; i++) {
    out.push(b);
    b *= factor;
  }
  return out;
}

export interface MetricOptions<L extends string = never> {
  /** Full metric name, e.g. `kubelet_running_pods`. */
  name: string;
  help: string;
  /** Label names in the order `labels(...)` takes their values. */
  labelNames?: readonly L[];
  /**
   * Stability level shown in HELP the way Kubernetes' component-base does (`[ALPHA] ...`).
   * Omit for none.
   */
  stability?: "ALPHA" | "BETA" | "STABLE";
}

export interface HistogramOptions<L extends string = never> extends MetricOptions<L> {
  /** Upper bounds, strictly increasing; `+Inf` is implicit. Defaults to `DEFAULT_BUCKETS`. */
  buckets?: readonly number[];
}

/** A monotonically increasing value. */
export interface Counter {
  /** Adds `by` (default 1). Negative values are a programming error and throw. */
  inc(by?: number): void;
  value(): number;
}

/** A value that goes up and down, or is computed at scrape time by `setFunction`. */
export interface Gauge {
  set(v: number): void;
  inc(by?: number): void;
  dec(by?: number): void;
  /** Makes the gauge read `fn()` at every scrape; `set`/`inc`/`dec` clear it again. */
  setFunction(fn: () => number): void;
  value(): number;
}

export interface Histogram {
  /** Records one observation (seconds for `_seconds` metrics). */
  observe(v: number): void;
  count(): number;
  sum(): number;
}

/** A metric family with labels; children are created on first use and kept. */
export interface Vec<T> {
  /** The child for these label values, given in `labelNames` order. */
  labels(...values: string[]): T;
  /** Drops every child (for gauges whose label values come and go). */
  reset(): void;
  /** Drops the children whose label values match `match` (label name → value), e.g. a gone pod's series. */
  deleteWhere(match: Record<string, string>): void;
}

type Kind = "counter" | "gauge" | "histogram";

class CounterChild implements Counter {
  v = 0;
  inc(by = 1): void {
    if (by < 0) throw new RangeError(`A counter cannot decrease (inc(${by}))`);
    this.v += by;
  }
  value(): number {
    return this.v;
  }
}

class GaugeChild implements Gauge {
  v = 0;
  fn: (() => number) | undefined = undefined;
  set(v: number): void {
    this.fn = undefined;
    this.v = v;
  }
  inc(by = 1): void {
    this.fn = undefined;
    this.v += by;
  }
  dec(by = 1): void {
    this.fn = undefined;
    this.v -= by;
  }
  setFunction(fn: () => number): void {
    this.fn = fn;
  }
  value(): number {
    return this.fn ? this.fn() : this.v;
  }
}

class HistogramChild implements Histogram {
  /** Non-cumulative per-bucket counts; cumulated at render so observe stays O(buckets). */
  readonly counts: Float64Array;
  n = 0;
  total = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  observe(v: number): void {
    this.n++;
    this.total += v;
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]) {
        this.counts[i]++;
        return;
      }
    }
  }
  count(): number {
    return this.n;
  }
  sum(): number {
    return this.total;
  }
}

type Child = CounterChild | GaugeChild | HistogramChild;

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

class Family<T extends Child> implements Vec<T> {
  readonly children = new Map<string, { values: readonly string[]; child: T }>();
  constructor(
    readonly kind: Kind,
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly make: () => T,
  ) {}

  labels(...values: string[]): T {
    // A single label is the common case: its value is the key, no join needed.
    const key = values.length === 1 ? values[0] : values.join("\u0000");
    const hit = this.children.get(key);
    if (hit !== undefined) return hit.child;
    if (values.length !== this.labelNames.length) {
      throw new RangeError(
        `Metric ${this.name} takes ${this.labelNames.length} label values (${
          this.labelNames.join(", ")
        }), got ${values.length}`,
      );
    }
    const child = this.make();
    this.children.set(key, { values, child });
    return child;
  }

  deleteWhere(match: Record<string, string>): void {
    const idx = Object.entries(match).map(([k, v]) => [this.labelNames.indexOf(k), v] as const);
    if (idx.some(([i]) => i < 0)) return;
    for (const [key, { values }] of this.children) {
      if (idx.every(([i, v]) => values[i] === v)) this.children.delete(key);
    }
  }

  reset(): void {
    this.children.clear();
  }
}

/** One family a collector computes at render time. */
export interface CollectedFamily {
  name: string;
  help: string;
  type: "counter" | "gauge";
  /** Unlabelled samples only: what a process's own counters need. */
  value: number;
}

/**
 * Families read when the registry is rendered (a process's CPU and memory), for values that
 * cost a read and are wanted only when someone scrapes.
 */
export interface Collector {
  /** The names it writes, reserved in the registry when it is registered. */
  readonly names: readonly string[];
  /**
   * Called per render. A value it cannot read is left out; anything else it throws fails
   * the render (the scrape answers 500 and the error is logged).
   */
  collect(): CollectedFamily[];
}

/** Metric registry. Names are unique; rendering is sorted by name, then label values. */
export class MetricsRegistry {
  readonly #families = new Map<string, Family<Child>>();
  readonly #collectors: Collector[] = [];
  readonly #collectedNames = new Set<string>();

  counter(opts: MetricOptions): Counter {
    return this.#register("counter", opts, () => new CounterChild()).labels();
  }
  counterVec<L extends string>(
    opts: MetricOptions<L> & { labelNames: readonly L[] },
  ): Vec<Counter> {
    return this.#register("counter", opts, () => new CounterChild());
  }
  gauge(opts: MetricOptions): Gauge {
    return this.#register("gauge", opts, () => new GaugeChild()).labels();
  }
  gaugeVec<L extends string>(opts: MetricOptions<L> & { labelNames: readonly L[] }): Vec<Gauge> {
    return this.#register("gauge", opts, () => new GaugeChild());
  }
  histogram(opts: HistogramOptions): Histogram {
    const bounds = checkBuckets(opts);
    return this.#register("histogram", opts, () => new HistogramChild(bounds)).labels();
  }
  histogramVec<L extends string>(
    opts: HistogramOptions<L> & { labelNames: readonly L[] },
  ): Vec<Histogram> {
    const bounds = checkBuckets(opts);
    return this.#register("histogram", opts, () => new HistogramChild(bounds));
  }

  /** Adds families computed at each render; their names must be free. */
  registerCollector(c: Collector): void {
    for (const name of c.names) {
      if (!NAME_RE.test(name)) throw new RangeError(`Invalid metric name "${name}"`);
      if (this.#families.has(name) || this.#collectedNames.has(name)) {
        throw new RangeError(`Metric ${name} is already registered`);
      }
    }
    for (const name of c.names) this.#collectedNames.add(name);
    this.#collectors.push(c);
  }

  /** The whole registry in text exposition format 0.0.4. Label-less metrics always show. */
  render(): string {
    const parts = new Map<string, string>();
    for (const [name, f] of this.#families) {
      const out: string[] = [];
      renderFamily(f, out);
      parts.set(name, out.join(""));
    }
    for (const c of this.#collectors) {
      for (const f of c.collect()) {
        if (!this.#collectedNames.has(f.name)) continue;
        parts.set(
          f.name,
          `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n` +
            `${f.name} ${formatNumber(f.value)}\n`,
        );
      }
    }
    return [...parts.keys()].sort().map((name) => parts.get(name)!).join("");
  }

  #register<T extends Child>(kind: Kind, opts: MetricOptions<string>, make: () => T): Family<T> {
    if (!NAME_RE.test(opts.name)) throw new RangeError(`Invalid metric name "${opts.name}"`);
    if (this.#families.has(opts.name) || this.#collectedNames.has(opts.name)) {
      throw new RangeError(`Metric ${opts.name} is already registered`);
    }
    const labelNames = opts.labelNames ?? [];
    for (const l of labelNames) {
      if (!LABEL_RE.test(l) || l.startsWith("__") || (kind === "histogram" && l === "le")) {
        throw new RangeError(`Invalid label name "${l}" on metric ${opts.name}`);
      }
    }
    const help = opts.stability ? `[${opts.stability}] ${opts.help}` : opts.help;
    const family = new Family<T>(kind, opts.name, help, [...labelNames], make);
    this.#families.set(opts.name, family as unknown as Family<Child>);
    return family;
  }
}

export function createMetricsRegistry(): MetricsRegistry {
  return new MetricsRegistry();
}

function checkBuckets(opts: HistogramOptions<string>): readonly number[] {
  const b = [...(opts.buckets ?? DEFAULT_BUCKETS)].filter((x) => x !== Infinity);
  for (let i = 1; i < b.length; i++) {
    if (!(b[i] > b[i - 1])) {
      throw new RangeError(`Buckets of ${opts.name} must be strictly increasing`);
    }
  }
  return b;
}

function renderFamily(f: Family<Child>, out: string[]): void {
  if (f.children.size === 0) return;
  out.push(`# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.kind}\n`);
  const entries = [...f.children.values()].sort((a, b) => compareValues(a.values, b.values));
  for (const { values, child } of entries) {
    const labels = labelPairs(f.labelNames, values);
    if (child instanceof HistogramChild) {
      const sep = labels === "" ? "" : ",";
      let cumulative = 0;
      for (let i = 0; i < child.bounds.length; i++) {
        cumulative += child.counts[i];
        out.push(
          `${f.name}_bucket{${labels}${sep}le="${formatNumber(child.bounds[i])}"} ${cumulative}\n`,
        );
      }
      out.push(`${f.name}_bucket{${labels}${sep}le="+Inf"} ${child.n}\n`);
      const braces = labels === "" ? "" : `{${labels}}`;
      out.push(`${f.name}_sum${braces} ${formatNumber(child.total)}\n`);
      out.push(`${f.name}_count${braces} ${child.n}\n`);
    } else {
      const braces = labels === "" ? "" : `{${labels}}`;
      out.push(`${f.name}${braces} ${formatNumber(child.value())}\n`);
    }
  }
}

function compareValues(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

function labelPairs(names: readonly string[], values: readonly string[]): string {
  let s = "";
  for (let i = 0; i < names.length; i++) {
    if (i > 0) s += ",";
    s += `${names[i]}="${escapeLabelValue(values[i])}"`;
  }
  return s;
}

/** Label values escape backslash, double quote and newline (exposition format 0.0.4). */
export function escapeLabelValue(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => c === "\n" ? "\\n" : `\\${c}`);
}

/** HELP text escapes backslash and newline only. */
function escapeHelp(v: string): string {
  return v.replace(/[\\\n]/g, (c) => c === "\n" ? "\\n" : "\\\\");
}

export function formatNumber(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

export { type AgentMetrics, createAgentMetrics } from "./kubelet_metrics.ts";
