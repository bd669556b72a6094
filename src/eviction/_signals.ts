/**
 * Observations of the eviction signals from a Summary and the threshold arithmetic upstream's
 * helpers.go does: which thresholds are met, for how long, and which node conditions follow.
 */
import type { QuantityFormat } from "../util/quantity.ts";
import { thresholdQuantity } from "./thresholds.ts";
import type { EvictionSummary, PressureCondition, Signal, Threshold } from "./types.ts";

export interface Observation {
  available: number;
  capacity: number;
  /** Sample time in epoch ms; undefined when the stats carry none. */
  time?: number;
  /** Format of `available` in messages: bytes are BinarySI, counts DecimalSI. */
  format: QuantityFormat;
}

export type Observations = Map<Signal, Observation>;

export const SIGNAL_TO_CONDITION: Record<Signal, PressureCondition> = {
  "memory.available": "MemoryPressure",
  "nodefs.available": "DiskPressure",
  "nodefs.inodesFree": "DiskPressure",
  "imagefs.available": "DiskPressure",
  "imagefs.inodesFree": "DiskPressure",
  "pid.available": "PIDPressure",
};

/** The resource each signal starves (upstream signalToResource). */
export type StarvedResource = "memory" | "ephemeral-storage" | "inodes" | "pids";
export const SIGNAL_TO_RESOURCE: Record<Signal, StarvedResource> = {
  "memory.available": "memory",
  "nodefs.available": "ephemeral-storage",
  "nodefs.inodesFree": "inodes",
  "imagefs.available": "ephemeral-storage",
  "imagefs.inodesFree": "inodes",
  "pid.available": "pids",
};

const ms = (d: Date | undefined) => (d instanceof Date ? d.getTime() : undefined);
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** makeSignalObservations: a signal is observed only when both its numbers are known. */
export function observe(summary: EvictionSummary): Observations {
  const out: Observations = new Map();
  const { memory, fs, runtime, rlimit } = summary.node;
  if (memory && num(memory.availableBytes) && num(memory.workingSetBytes)) {
    out.set("memory.available", {
      available: memory.availableBytes,
      capacity: memory.availableBytes + memory.workingSetBytes,
      time: ms(memory.time),
      format: "BinarySI",
    });
  }
  const fsSignals = [["nodefs", fs], ["imagefs", runtime?.imageFs]] as const;
  for (const [prefix, stats] of fsSignals) {
    if (!stats) continue;
    if (num(stats.availableBytes) && num(stats.capacityBytes)) {
      out.set(`${prefix}.available`, {
        available: stats.availableBytes,
        capacity: stats.capacityBytes,
        time: ms(stats.time),
        format: "BinarySI",
      });
    }
    if (num(stats.inodesFree) && num(stats.inodes)) {
      out.set(`${prefix}.inodesFree`, {
        available: stats.inodesFree,
        capacity: stats.inodes,
        time: ms(stats.time),
        format: "DecimalSI",
      });
    }
  }
  if (rlimit && num(rlimit.maxpid) && num(rlimit.curproc)) {
    out.set("pid.available", {
      available: rlimit.maxpid - rlimit.curproc,
      capacity: rlimit.maxpid,
      time: ms(rlimit.time),
      format: "DecimalSI",
    });
  }
  return out;
}

/**
 * The thresholds met by `observations`. With `enforceMinReclaim`, a threshold stays met until
 * the signal is above threshold + minimum reclaim.
 */
export function thresholdsMet(
  thresholds: readonly Threshold[],
  observations: Observations,
  enforceMinReclaim: boolean,
): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations.get(t.signal);
    if (!o) return false;
    let quantity = thresholdQuantity(t.value, o.capacity);
    if (enforceMinReclaim && t.minReclaim) quantity += thresholdQuantity(t.minReclaim, o.capacity);
    return quantity > o.available;
  });
}

/** Keeps the first time each threshold was seen met; thresholds no longer met are dropped. */
export function firstObservedAt(
  thresholds: readonly Threshold[],
  previous: ReadonlyMap<Threshold, number>,
  now: number,
): Map<Threshold, number> {
  return new Map(thresholds.map((t) => [t, previous.get(t) ?? now]));
}

/** The thresholds whose grace period has passed since they were first met. */
export function metGracePeriod(observedAt: ReadonlyMap<Threshold, number>, now: number) {
  return [...observedAt].filter(([t, at]) => now - at >= t.gracePeriodMs).map(([t]) => t);
}

/** Records `now` for the conditions met now; keeps the old time of the others. */
export function conditionsLastObservedAt(
  conditions: readonly PressureCondition[],
  previous: ReadonlyMap<PressureCondition, number>,
  now: number,
): Map<PressureCondition, number> {
  const out = new Map(previous);
  for (const c of conditions) out.set(c, now);
  return out;
}

/** Conditions observed within the transition period: they stay true that long after clearing. */
export function conditionsObservedSince(
  lastObservedAt: ReadonlyMap<PressureCondition, number>,
  periodMs: number,
  now: number,
): Set<PressureCondition> {
  return new Set([...lastObservedAt].filter(([, at]) => now - at < periodMs).map(([c]) => c));
}

/** Only act on thresholds whose signal has a newer sample than last round (thresholdsUpdatedStats). */
export function withUpdatedStats(
  thresholds: readonly Threshold[],
  observations: Observations,
  last: Observations,
): Threshold[] {
  return thresholds.filter((t) => {
    const o = observations.get(t.signal);
    if (!o) return false;
    const prev = last.get(t.signal);
    return prev === undefined || o.time === undefined || o.time > (prev.time ?? -Infinity);
  });
}

/** Memory first, then the others in order (byEvictionPriority; every signal here has a resource). */
export function byEvictionPriority(thresholds: readonly Threshold[]): Threshold[] {
  const rank = (t: Threshold) => (t.signal === "memory.available" ? 0 : 1);
  return [...thresholds].sort((a, b) => rank(a) - rank(b));
}
