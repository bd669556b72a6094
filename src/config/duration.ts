/**
 * Go `time.Duration` strings, as the kubelet reads them from flags and from KubeletConfiguration
 * (`metav1.Duration`). The grammar and the edge cases follow Go's `time.ParseDuration`, so a value
 * that works for the upstream kubelet works here and a value it rejects is rejected here.
 */

import { DenoletError } from "../util/errors.ts";

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n, // U+00B5 micro sign
  "\u03bcs": 1_000n, // U+03BC Greek small letter mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's Duration is an int64 of nanoseconds. */
const MAX_NS = (1n << 63n) - 1n;

const HINT =
  'expected a number followed by a unit (ns, us, µs, ms, s, m, h), e.g. "300ms" or "1m30s"';

/** A duration string that does not follow Go's `time.ParseDuration` syntax. */
export class DurationSyntaxError extends DenoletError {}

/**
 * Parses a Go duration string (`300ms`, `20s`, `1m30s`, `1.5h`, `-1s`, bare `0`) and returns
 * milliseconds, which may be fractional for sub-millisecond values (`1us` = 0.001).
 * Throws DurationSyntaxError for anything Go would reject; callers add the flag or field name.
 */
export function parseDuration(s: string): number {
  const orig = s;
  let neg = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw new DurationSyntaxError(`invalid duration ${quote(orig)}: ${HINT}`);

  let totalNs = 0n;
  while (s !== "") {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const [matched, intPart, fracPart = ""] = m;
    if (intPart === "" && fracPart === "") {
      throw new DurationSyntaxError(`invalid duration ${quote(orig)}: ${HINT}`);
    }
    s = s.slice(matched.length);
    const unitMatch = /^[^\d.]*/.exec(s)![0];
    if (unitMatch === "") {
      throw new DurationSyntaxError(`missing unit in duration ${quote(orig)}: ${HINT}`);
    }
    const unit = NS_PER_UNIT[unitMatch];
    if (unit === undefined) {
      throw new DurationSyntaxError(
        `unknown unit ${quote(unitMatch)} in duration ${quote(orig)}: ${HINT}`,
      );
    }
    s = s.slice(unitMatch.length);
    // Integer arithmetic in nanoseconds, like Go, so "1.1s" is exactly 1100 ms.
    let ns = BigInt(intPart === "" ? "0" : intPart) * unit;
    if (fracPart !== "") {
      ns += (BigInt(fracPart) * unit) / 10n ** BigInt(fracPart.length);
    }
    totalNs += ns;
    if (totalNs > MAX_NS) {
      throw new DurationSyntaxError(
        `duration ${quote(orig)} is out of range (max about 292 years)`,
      );
    }
  }
  const ms = Number(totalNs / 1_000_000n) + Number(totalNs % 1_000_000n) / 1e6;
  return neg ? -ms : ms;
}

/**
 * Formats milliseconds the way Go's `Duration.String()` does (`1m0s`, `20s`, `300ms`, `1h30m0s`),
 * so help text and logs show the same defaults as the upstream kubelet.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let ns = BigInt(Math.round(Math.abs(ms) * 1e6));
  if (ns < 1_000_000_000n) {
    if (ns < 1_000n) return `${sign}${ns}ns`;
    if (ns < 1_000_000n) return `${sign}${fixed(ns, 1_000n)}µs`;
    return `${sign}${fixed(ns, 1_000_000n)}ms`;
  }
  const h = ns / NS_PER_UNIT.h;
  ns -= h * NS_PER_UNIT.h;
  const m = ns / NS_PER_UNIT.m;
  ns -= m * NS_PER_UNIT.m;
  const secs = fixed(ns, NS_PER_UNIT.s);
  if (h > 0n) return `${sign}${h}h${m}m${secs}s`;
  if (m > 0n) return `${sign}${m}m${secs}s`;
  return `${sign}${secs}s`;
}

/** `value / unit` as a decimal string without trailing zeros ("1.5", "20"). */
function fixed(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  const frac = String(rest).padStart(digits, "0").replace(/0+$/, "");
  return `${whole}.${frac}`;
}

function quote(s: string): string {
  return JSON.stringify(s);
}
