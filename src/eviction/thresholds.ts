/**
 * Threshold configuration (upstream ParseThresholdConfig): `--eviction-hard`/`evictionHard`,
 * `--eviction-soft` with `--eviction-soft-grace-period`, `--eviction-minimum-reclaim`.
 * Values are quantities (`100Mi`) or percentages of the signal's capacity (`10%`); "0%" and
 * "100%" switch a threshold off, as upstream.
 */
import { ConfigError } from "../util/errors.ts";
import { parseDuration } from "../config/duration.ts";
import { formatQuantity, tryIntegerQuantity } from "../util/quantity.ts";
import type { Signal, Threshold, ThresholdValue } from "./types.ts";

export const SIGNALS: readonly Signal[] = [
  "memory.available",
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
  "pid.available",
];

/** Upstream signals denolet does not observe; named in the error so users know why. */
const UNSUPPORTED_UPSTREAM = new Set([
  "allocatableMemory.available",
  "containerfs.available",
  "containerfs.inodesFree",
]);

/** Upstream DefaultEvictionHard on Linux (pkg/kubelet/eviction/defaults_linux.go). */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = Object.freeze({
  "memory.available": "100Mi",
  "nodefs.available": "10%",
  "nodefs.inodesFree": "5%",
  "imagefs.available": "15%",
});

export interface ThresholdInput {
  hard?: Record<string, string>;
  soft?: Record<string, string>;
  softGracePeriod?: Record<string, string>;
  minimumReclaim?: Record<string, string>;
}

/** How errors name each input: the flag as written or `file: field`. */
export interface ThresholdInputNames {
  hard?: string;
  soft?: string;
  softGracePeriod?: string;
  minimumReclaim?: string;
}

const DEFAULT_NAMES: Required<ThresholdInputNames> = {
  hard: "evictionHard (--eviction-hard)",
  soft: "evictionSoft (--eviction-soft)",
  softGracePeriod: "evictionSoftGracePeriod (--eviction-soft-grace-period)",
  minimumReclaim: "evictionMinimumReclaim (--eviction-minimum-reclaim)",
};

/**
 * Builds the thresholds: hard ones first, then soft ones (each needs a grace period), then
 * minimum reclaims attached by signal. Throws ConfigError naming the input and the signal.
 */
export function parseThresholdConfig(
  input: ThresholdInput,
  opts: { names?: ThresholdInputNames } = {},
): Threshold[] {
  const names = { ...DEFAULT_NAMES, ...opts.names };
  const out: Threshold[] = [];
  for (const [signal, raw] of sortedEntries(input.hard)) {
    const value = parseStatement(names.hard, checkSignal(names.hard, signal), raw);
    if (value) out.push({ signal: signal as Signal, value, gracePeriodMs: 0 });
  }
  const grace = new Map<Signal, number>();
  for (const [signal, raw] of sortedEntries(input.softGracePeriod)) {
    const s = checkSignal(names.softGracePeriod, signal);
    let ms: number;
    try {
      ms = parseDuration(raw);
    } catch (e) {
      throw new ConfigError(names.softGracePeriod, `${signal}: ${(e as Error).message}`, {
        cause: e,
      });
    }
    if (ms < 0) {
      throw new ConfigError(names.softGracePeriod, `${signal}: ${raw} must not be negative`);
    }
    grace.set(s, ms);
  }
  for (const [signal, raw] of sortedEntries(input.soft)) {
    const s = checkSignal(names.soft, signal);
    const value = parseStatement(names.soft, s, raw);
    const period = grace.get(s);
    if (period === undefined) {
      throw new ConfigError(
        names.soft,
        `${signal}: a soft threshold needs a grace period (set it in ${names.softGracePeriod})`,
      );
    }
    if (value) out.push({ signal: s, value, gracePeriodMs: period });
  }
  for (const [signal, raw] of sortedEntries(input.minimumReclaim)) {
    const s = checkSignal(names.minimumReclaim, signal);
    const value = parseMinReclaim(names.minimumReclaim, s, raw);
    for (const t of out) if (t.signal === s) t.minReclaim = value;
  }
  return out;
}

/** The threshold's quantity for a signal whose capacity is `capacity` (GetThresholdQuantity). */
export function thresholdQuantity(value: ThresholdValue, capacity: number): number {
  if ("quantity" in value) return value.quantity;
  return Math.trunc(capacity * value.percentage);
}

function sortedEntries(m: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(m ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function checkSignal(where: string, signal: string): Signal {
  if ((SIGNALS as readonly string[]).includes(signal)) return signal as Signal;
  const why = UNSUPPORTED_UPSTREAM.has(signal)
    ? "is an upstream signal denolet does not observe"
    : "is not an eviction signal";
  throw new ConfigError(
    where,
    `unsupported eviction signal ${JSON.stringify(signal)}: it ${why} (supported: ${
      SIGNALS.join(", ")
    })`,
  );
}

/** A percentage as upstream computes it: float32(value) / 100 in float32. */
function parsePercentage(where: string, signal: Signal, raw: string): number {
  const text = raw.slice(0, -1).trim();
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n)) {
    throw new ConfigError(where, `${signal}: ${JSON.stringify(raw)} is not a percentage`);
  }
  return Math.fround(Math.fround(n) / 100);
}

function parseStatement(where: string, signal: Signal, raw: string): ThresholdValue | undefined {
  const val = raw.trim();
  if (val.endsWith("%")) {
    if (val === "0%" || val === "100%") return undefined;
    const percentage = parsePercentage(where, signal, val);
    if (percentage < 0) throw new ConfigError(where, `${signal}: ${val} must be >= 0%`);
    if (percentage > 1) throw new ConfigError(where, `${signal}: ${val} must be <= 100%`);
    return { percentage };
  }
  const q = tryIntegerQuantity(val);
  if (q === undefined) {
    throw new ConfigError(
      where,
      `${signal}: ${JSON.stringify(raw)} is neither a quantity (e.g. 100Mi) nor a percentage`,
    );
  }
  if (q.value <= 0) throw new ConfigError(where, `${signal}: ${val} must be positive`);
  return { quantity: q.value, text: formatQuantity(q.value, q.format) };
}

function parseMinReclaim(where: string, signal: Signal, raw: string): ThresholdValue {
  const val = raw.trim();
  if (val.endsWith("%")) {
    const percentage = parsePercentage(where, signal, val);
    if (percentage <= 0) throw new ConfigError(where, `${signal}: ${val} must be positive`);
    return { percentage };
  }
  const q = tryIntegerQuantity(val);
  if (q === undefined) {
    throw new ConfigError(
      where,
      `${signal}: ${JSON.stringify(raw)} is neither a quantity (e.g. 500Mi) nor a percentage`,
    );
  }
  if (q.value < 0) throw new ConfigError(where, `${signal}: ${val} must not be negative`);
  return { quantity: q.value, text: formatQuantity(q.value, q.format) };
}
