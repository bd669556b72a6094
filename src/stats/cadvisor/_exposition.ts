/**
 * The Prometheus text format (0.0.4) as the Go client writes it for a registry of const
 * metrics: families sorted by name, samples by label values, label pairs by name, values in
 * Go's shortest `%g` form, and a sample whose name and labels were already collected dropped
 * (the Go registry reports it and serves the first one).
 */

export type MetricType = "counter" | "gauge";

/** A family's name, help text and type. */
export interface FamilyInfo {
  name: string;
  help: string;
  type: MetricType;
}

/** A sample's value and, for a stats sample, when it was taken (ms). */
interface Value {
  value: number;
  timestampMs?: number;
}

interface Family {
  help: string;
  type: MetricType;
  /** Label key → sample, in collection order. */
  samples: Map<string, Sample>;
}

interface Sample {
  /** The written label pairs, `a="1",b="2"` (also the sample's key in its family). */
  labels: string;
  value: number;
  timestampMs?: number;
}

/** Label pairs sorted by name, as the Go client writes them. */
export type LabelPairs = [string, string][];

export class Exposition {
  readonly #families = new Map<string, Family>();
  /** Written label pairs by array: a container's pairs are shared by its families. */
  readonly #written = new WeakMap<LabelPairs, string>();
  #duplicates = 0;

  /**
   * Adds one sample. The family's help and type come from its first sample. Returns false
   * (and keeps the first) when the family already has a sample with these labels.
   */
  add(family: FamilyInfo, sample: { labels: Record<string, string> } & Value): boolean {
    const pairs = sortPairs(Object.entries(sample.labels));
    return this.addSorted(family, { pairs, value: sample.value, timestampMs: sample.timestampMs });
  }

  /**
   * `add` with the label pairs already sorted by name. Pass the same array for samples that
   * share their labels: it is written once.
   */
  addSorted(family: FamilyInfo, sample: { pairs: LabelPairs } & Value): boolean {
    let f = this.#families.get(family.name);
    if (f === undefined) {
      f = { help: family.help, type: family.type, samples: new Map() };
      this.#families.set(family.name, f);
    }
    let labels = this.#written.get(sample.pairs);
    if (labels === undefined) {
      labels = sample.pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",");
      this.#written.set(sample.pairs, labels);
    }
    if (f.samples.has(labels)) {
      this.#duplicates++;
      return false;
    }
    f.samples.set(labels, { labels, value: sample.value, timestampMs: sample.timestampMs });
    return true;
  }

  /** Samples dropped as duplicates so far. */
  get duplicates(): number {
    return this.#duplicates;
  }

  render(): string {
    const out: string[] = [];
    const names = [...this.#families.keys()].sort();
    for (const name of names) {
      const f = this.#families.get(name)!;
      out.push(`# HELP ${name} ${escapeHelp(f.help)}\n# TYPE ${name} ${f.type}\n`);
      for (const s of [...f.samples.values()].sort(compareSamples)) {
        const ts = s.timestampMs === undefined ? "" : ` ${Math.trunc(s.timestampMs)}`;
        const labels = s.labels === "" ? "" : `{${s.labels}}`;
        out.push(`${name}${labels} ${goFloat(s.value)}${ts}\n`);
      }
    }
    return out.join("");
  }
}

export function sortPairs(pairs: LabelPairs): LabelPairs {
  return pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The Go client orders a family's samples by their label values in label-name order, then by
 * timestamp. The written labels order the same way as long as no value holds a character
 * below `"` (a space or a control character), which none of these labels does, and comparing
 * them allocates nothing.
 */
function compareSamples(a: Sample, b: Sample): number {
  if (a.labels !== b.labels) return a.labels < b.labels ? -1 : 1;
  return (a.timestampMs ?? 0) - (b.timestampMs ?? 0);
}

/** Go's strconv.FormatFloat(v, 'g', -1, 64), as the Go client writes sample values. */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return "0";
  const [mantissa, e] = v.toExponential().split("e");
  const exp = Number(e);
  // Shortest %g switches to an exponent below 1e-4 and from 1e6 (Go's eprec 6 for shortest).
  if (exp < -4 || exp >= 6) {
    const digits = String(Math.abs(exp)).padStart(2, "0");
    return `${mantissa}e${exp < 0 ? "-" : "+"}${digits}`;
  }
  return String(v);
}

export function escapeLabel(v: string): string {
  return v.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

function escapeHelp(v: string): string {
  return v.replace(/[\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\\\"));
}
