/**
 * Value parsers shared by the flag parser and the config-file reader. They throw plain `Error`s
 * with a reason; callers wrap them in a ConfigError naming the flag or field.
 */
import { isIP } from "node:net";

/** Go `strconv.ParseBool`, which pflag uses for boolean flags. */
export function parseBool(raw: string): boolean {
  if (["1", "t", "T", "true", "TRUE", "True"].includes(raw)) return true;
  if (["0", "f", "F", "false", "FALSE", "False"].includes(raw)) return false;
  throw new Error(`expected a boolean (true or false), got ${JSON.stringify(raw)}`);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A decimal int32, as pflag's Int32 flags and the config file's int32 fields accept. */
export function parseInt32(raw: string): number {
  if (!/^[+-]?\d+$/.test(raw)) {
    throw new Error(`expected an integer, got ${JSON.stringify(raw)}`);
  }
  const n = Number(raw);
  if (n < INT32_MIN || n > INT32_MAX) {
    throw new Error(`${raw} is out of range for a 32-bit integer`);
  }
  return n;
}

/** Checks a number read from YAML/JSON is an int32 (YAML `10250`, not `10250.5` or `"10250"`). */
export function checkInt32(v: number): number {
  if (!Number.isInteger(v)) throw new Error(`expected an integer, got ${v}`);
  if (v < INT32_MIN || v > INT32_MAX) throw new Error(`${v} is out of range for a 32-bit integer`);
  return v;
}

/**
 * pflag's StringSlice: comma-separated; an empty value means an empty list. Items are trimmed
 * because a stray space after a comma is never meaningful for the lists we accept (IPs).
 */
export function parseList(raw: string): string[] {
  if (raw === "") return [];
  return raw.split(",").map((s) => s.trim());
}

/**
 * `--manifest-url-header` syntax (upstream ColonSeparatedMultimapStringString): comma-separated
 * `key:value` pairs, split at the first colon, both sides trimmed, empty pairs skipped, a repeated
 * key appends in the order given. Returns the pairs in order.
 */
export function parseHeaderPairs(raw: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const pair of raw.split(",")) {
    if (pair === "") continue;
    const colon = pair.indexOf(":");
    if (colon < 0) {
      throw new Error(`malformed pair ${JSON.stringify(pair)}, expected key:value`);
    }
    out.push([pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()]);
  }
  return out;
}

/** RFC 9110 token: what fetch() accepts as a header name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function checkHeaderName(name: string): void {
  if (!HEADER_NAME.test(name)) {
    throw new Error(`${JSON.stringify(name)} is not a valid HTTP header name`);
  }
}

export function checkHeaderValue(value: string): void {
  if (/[\r\n\0]/.test(value)) {
    throw new Error(`header value ${JSON.stringify(value)} contains CR, LF or NUL`);
  }
}

export function isIPAddress(s: string): boolean {
  return isIP(s) !== 0;
}

/**
 * The candidate `name` most likely misspells, for "did you mean" hints: the closest within edit
 * distance 2, else the first that starts with `name` (an abbreviated flag).
 */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDist = 3;
  const lower = name.toLowerCase();
  let prefixed: string | undefined;
  for (const c of candidates) {
    if (prefixed === undefined && lower.length >= 3 && c.toLowerCase().startsWith(lower)) {
      prefixed = c;
    }
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestDist) {
      best = c;
      bestDist = d;
    }
  }
  return best ?? prefixed;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
    }
    prev = cur;
  }
  return prev[b.length];
}
