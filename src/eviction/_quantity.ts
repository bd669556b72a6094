/**
 * Just enough of resource.Quantity for eviction: integer values (Go's `Value()` rounds up) and
 * the canonical text `Quantity.String()` prints, so messages read like upstream's
 * ("Threshold quantity: 100Mi, available: 88120Ki.").
 */

const BINARY: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

const QUANTITY =
  /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$/;

export type QuantityFormat = "BinarySI" | "DecimalSI";

export interface ParsedQuantity {
  /** Rounded up to an integer, as Quantity.Value(). */
  value: number;
  format: QuantityFormat;
}

/** Parses a Kubernetes quantity string; undefined when it does not parse. */
export function parseQuantity(text: string): ParsedQuantity | undefined {
  const m = QUANTITY.exec(text.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  let value: number;
  let format: QuantityFormat = "DecimalSI";
  if (m[2] !== undefined) {
    value = base * 10 ** Number(m[2]);
  } else if (m[3] !== undefined && m[3] in BINARY) {
    value = base * BINARY[m[3]];
    format = "BinarySI";
  } else {
    value = base * DECIMAL[m[3] ?? ""];
  }
  if (!Number.isFinite(value)) return undefined;
  // Float noise ("1.1Gi") must not round a whole number up; real fractions round up as Go does.
  const nearest = Math.round(value);
  const whole = Math.abs(value - nearest) <= 1e-9 * Math.max(1, Math.abs(value));
  return { value: whole ? nearest : Math.ceil(value), format };
}

/** An integer quantity's canonical text in `format`, as Go's Quantity.String() prints it. */
export function formatQuantity(value: number, format: QuantityFormat): string {
  const v = Math.trunc(value);
  // Go prints small binary quantities in decimal form to avoid "0.5Ki"-style confusion.
  if (format === "BinarySI" && Math.abs(v) >= 1024) {
    return scaled(v, 1024, ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]);
  }
  return scaled(v, 1000, ["", "k", "M", "G", "T", "P", "E"]);
}

function scaled(v: number, base: number, suffixes: string[]): string {
  if (v === 0) return "0";
  let n = v;
  let i = 0;
  while (i < suffixes.length - 1 && n % base === 0) {
    n /= base;
    i++;
  }
  return `${n}${suffixes[i]}`;
}
