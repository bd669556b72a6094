/**
 * Kubernetes resource quantities (apimachinery resource.Quantity), the one parser every folder
 * uses: every spelling ("100m", "0.5", "128Mi", "1G", "1e3", "1E" = 10^18, YAML numbers) kept
 * exact, so the rounded-up Value() and MilliValue() match apimachinery, plus the canonical
 * text Quantity.String() prints.
 */
import { ConfigError } from "./errors.ts";

/** A quantity as written in a manifest: a string, or a number when YAML typed it so. */
export type QuantityInput = string | number;

/** How Quantity.String() prints a value: binary suffixes (Ki, Mi, ...) or decimal (k, M, ...). */
export type QuantityFormat = "BinarySI" | "DecimalSI";

/** An integer quantity (rounded up, as Quantity.Value()) and the format its suffix implies. */
export interface IntegerQuantity {
  value: number;
  format: QuantityFormat;
}

/** value = ±digits × 10^exp10 × 2^exp2, kept exact so rounding matches apimachinery. */
interface ExactQuantity {
  neg: boolean;
  digits: bigint;
  exp10: number;
  exp2: number;
}

const QUANTITY_RE = /^([+-]?)(\d+\.?\d*|\.\d+)([eE][+-]?\d+|Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?$/;
const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
// Far beyond any real resource; keeps BigInt powers small.
const MAX_EXPONENT = 40;

/** The exact value of `q`, or the reason it is not a quantity (for a ConfigError). */
function exact(q: unknown): ExactQuantity | string {
  if (typeof q === "number" && !Number.isFinite(q)) return `quantity ${q} is not a finite number`;
  // String(1e21) is "1e+21", which the grammar accepts.
  const text = typeof q === "number" ? String(q) : q;
  const m = typeof text === "string" ? QUANTITY_RE.exec(text) : null;
  if (!m) {
    return `cannot parse quantity ${JSON.stringify(q)}: expected e.g. 100m, 0.5, 128Mi, 1G, 1e3`;
  }
  const [, sign, num, suffix = ""] = m;
  const [intPart, fracPart = ""] = num.split(".");
  let exp10 = -fracPart.length;
  let exp2 = 0;
  if (suffix in BINARY) exp2 = BINARY[suffix];
  else if (suffix in DECIMAL) exp10 += DECIMAL[suffix];
  else if (suffix !== "") exp10 += Number.parseInt(suffix.slice(1), 10);
  if (Math.abs(exp10) > MAX_EXPONENT) return `quantity ${JSON.stringify(q)} is out of range`;
  return { neg: sign === "-", digits: BigInt((intPart || "0") + fracPart), exp10, exp2 };
}

function parseExact(q: QuantityInput, field: string): ExactQuantity {
  const e = exact(q);
  if (typeof e === "string") throw new ConfigError(field, e);
  return e;
}

/** The nearest float; dividing by an exact power of ten keeps "0.1" equal to 0.1. */
function toNumber(e: ExactQuantity): number {
  const d = Number(e.digits);
  const v = (e.exp10 >= 0 ? d * 10 ** e.exp10 : d / 10 ** -e.exp10) * 2 ** e.exp2;
  return e.neg ? -v : v;
}

/** Rounds value × 10^scale up to an integer, as apimachinery's ScaledValue does. */
function scaledCeil(q: ExactQuantity, scale: number): number {
  let num = q.digits * 2n ** BigInt(q.exp2);
  let den = 1n;
  const e = q.exp10 + scale;
  if (e >= 0) num *= 10n ** BigInt(e);
  else den = 10n ** BigInt(-e);
  const whole = num / den;
  if (q.neg) return -Number(whole);
  return Number(num % den === 0n ? whole : whole + 1n);
}

/**
 * Parses a Kubernetes quantity ("100m", "0.5", "1", "128Mi", "1G", "1e3", "1E"=10^18) to its
 * value in base units (cores or bytes). Throws ConfigError naming `field` for anything else.
 */
export function parseQuantity(q: QuantityInput, opts: { field?: string } = {}): number {
  return toNumber(parseExact(q, opts.field ?? "quantity"));
}

/** parseQuantity for values of any type: undefined instead of throwing (manifest validation). */
export function tryParseQuantity(v: unknown): number | undefined {
  const e = exact(v);
  return typeof e === "string" ? undefined : toNumber(e);
}

/** The quantity in thousandths, rounded up (Quantity.MilliValue). */
export function quantityMilliValue(q: QuantityInput, opts: { field?: string } = {}): number {
  return scaledCeil(parseExact(q, opts.field ?? "quantity"), 3);
}

/** The quantity as an integer, rounded up (Quantity.Value). */
export function quantityValue(q: QuantityInput, opts: { field?: string } = {}): number {
  return scaledCeil(parseExact(q, opts.field ?? "quantity"), 0);
}

/**
 * quantityValue with the format to print it back in (a binary suffix gives BinarySI, anything
 * else DecimalSI); undefined instead of throwing when `v` is not a quantity.
 */
export function tryIntegerQuantity(v: unknown): IntegerQuantity | undefined {
  const e = exact(v);
  if (typeof e === "string") return undefined;
  return { value: scaledCeil(e, 0), format: e.exp2 !== 0 ? "BinarySI" : "DecimalSI" };
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
