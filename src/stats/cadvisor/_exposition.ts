/**
 * The Prometheus text format (0.0.4) as the Go client writes it for a registry of const
 * metrics: families sorted by name, samples by label values, label pairs by name, values in
 * Go's shortest `%g` form, and a sample whose name and labels were already collected dropped
 * (the Go registry reports it and serves the first one).
 */

export type MetricType = "counter" | "gauge";

interface Family {
  help: string;
  type: MetricType;
  /** Label key → sample, in collection order. */
  samples: Map<string, Sample>;
}

interface Sample {
  /** Sorted by name. */
  labels: [string, string][];
  value: number;
  timestampMs?: number;
}

export class Exposition {
  readonly #families = new Map<string, Family>();
  #duplicates = 0;

  /**
   * Adds one sample. The family's help and type come from its first sample. Returns false
   * (and keeps the first) when the family already has a sample with these labels.
   */
  add(
    family: { name: string; help: string; type: MetricType },
    labels: Record<string, string>,
    value: number,
    timestampMs?: number,
  ): boolean {
    let f = this.#families.get(family.name);
    if (f === undefined) {
      f = { help: family.help, type: family.type, samples: new Map() };
      this.#families.set(family.name, f);
    }
    const pairs = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const key = pairs.map(([k, v]) => `${k}\u0000${v}`).join("\u0001");
    if (f.samples.has(key)) {
      this.#duplicates++;
      return false;
    }
    f.samples.set(key, { labels: pairs, value, timestampMs });
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
        const labels = s.labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",");
        const ts = s.timestampMs === undefined ? "" : ` ${Math.trunc(s.timestampMs)}`;
        out.push(`${name}${labels === "" ? "" : `{${labels}}`} ${goFloat(s.value)}${ts}\n`);
      }
    }
    return out.join("");
  }
}

/** The Go client's metricSorter: fewer labels first, then label values, then timestamp. */
function compareSamples(a: Sample, b: Sample): number {
  if (a.labels.length !== b.labels.length) return a.labels.length - b.labels.length;
  for (let i = 0; i < a.labels.length; i++) {
    const [va, vb] = [a.labels[i][1], b.labels[i][1]];
    if (va !== vb) return va < vb ? -1 : 1;
  }
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
