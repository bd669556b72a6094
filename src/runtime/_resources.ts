/**
 * Resource quantities and the cgroup numbers derived from them, with the kubelet's formulas
 * (pkg/kubelet/cm/helpers_linux.go, kuberuntime_container_linux.go, pkg/kubelet/qos/policy.go).
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { totalmem } from "node:os";
import type { LinuxContainerResources } from "../cri/types.ts";
import { ConfigError } from "../util/errors.ts";

const MIN_SHARES = 2;
const MAX_SHARES = 262144;
const SHARES_PER_CPU = 1024;
/** Default CFS period in microseconds (cpuCFSQuotaPeriod 100ms). */
export const QUOTA_PERIOD_US = 100000;
const MIN_QUOTA_PERIOD = 1000;

const GUARANTEED_OOM_SCORE_ADJ = -997;
const BEST_EFFORT_OOM_SCORE_ADJ = 1000;

/** A quantity as written in a manifest: a string, or a number when YAML typed it so. */
export type QuantityInput = string | number;

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

function parseExact(q: QuantityInput, field: string): ExactQuantity {
  const text = typeof q === "number" ? numberToText(q, field) : q;
  const m = typeof text === "string" ? QUANTITY_RE.exec(text) : null;
  if (!m) {
    throw new ConfigError(
      field,
      `cannot parse quantity ${JSON.stringify(q)}: expected e.g. 100m, 0.5, 128Mi, 1G, 1e3`,
    );
  }
  const [, sign, num, suffix = ""] = m;
  const [intPart, fracPart = ""] = num.split(".");
  let exp10 = -fracPart.length;
  let exp2 = 0;
  if (suffix in BINARY) exp2 = BINARY[suffix];
  else if (suffix in DECIMAL) exp10 += DECIMAL[suffix];
  else if (suffix !== "") exp10 += Number.parseInt(suffix.slice(1), 10);
  if (Math.abs(exp10) > MAX_EXPONENT) {
    throw new ConfigError(field, `quantity ${JSON.stringify(q)} is out of range`);
  }
  return { neg: sign === "-", digits: BigInt((intPart || "0") + fracPart), exp10, exp2 };
}

function numberToText(n: number, field: string): string {
  if (!Number.isFinite(n)) throw new ConfigError(field, `quantity ${n} is not a finite number`);
  // String(1e21) is "1e+21", which the grammar accepts.
  return String(n);
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
 * value in base units (cores or bytes). Throws ConfigError for anything else.
 */
export function parseQuantity(q: QuantityInput, opts: { field?: string } = {}): number {
  const e = parseExact(q, opts.field ?? "quantity");
  const v = Number(e.digits) * 10 ** e.exp10 * 2 ** e.exp2;
  return e.neg ? -v : v;
}

/** The quantity in thousandths, rounded up (Quantity.MilliValue). */
export function quantityMilliValue(q: QuantityInput, opts: { field?: string } = {}): number {
  return scaledCeil(parseExact(q, opts.field ?? "quantity"), 3);
}

/** The quantity as an integer, rounded up (Quantity.Value). */
export function quantityValue(q: QuantityInput, opts: { field?: string } = {}): number {
  return scaledCeil(parseExact(q, opts.field ?? "quantity"), 0);
}

/** cgroup v1 cpu.shares for a CPU request in millicores; 0 (no request) gives the minimum 2. */
export function milliCPUToShares(milliCPU: number): number {
  if (milliCPU <= 0) return MIN_SHARES;
  const shares = Math.floor((milliCPU * SHARES_PER_CPU) / 1000);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** CFS quota in microseconds for a CPU limit; 0 (no limit) means unlimited. */
export function milliCPUToQuota(milliCPU: number, period: number): number {
  if (milliCPU <= 0) return 0;
  return Math.max(MIN_QUOTA_PERIOD, Math.floor((milliCPU * period) / 1000));
}

type ResourceName = "cpu" | "memory";

/** One resource of a container; `kind` picks requests or limits. 0 when unset. */
function amount(
  c: V1Container,
  kind: "requests" | "limits",
  name: ResourceName,
  milli: boolean,
): number {
  const raw = (c.resources?.[kind] as Record<string, QuantityInput> | undefined)?.[name];
  if (raw === undefined || raw === null) return 0;
  const field = `containers[${c.name}].resources.${kind}.${name}`;
  const v = milli ? quantityMilliValue(raw, { field }) : quantityValue(raw, { field });
  if (v < 0) throw new ConfigError(field, `must not be negative, got ${JSON.stringify(raw)}`);
  return v;
}

/** CPU request in millicores, falling back to the limit as API defaulting does. */
export function cpuRequestMilli(c: V1Container): number {
  return amount(c, "requests", "cpu", true) || amount(c, "limits", "cpu", true);
}
export function cpuLimitMilli(c: V1Container): number {
  return amount(c, "limits", "cpu", true);
}
/** Memory request in bytes, falling back to the limit as API defaulting does. */
export function memoryRequestBytes(c: V1Container): number {
  return amount(c, "requests", "memory", false) || amount(c, "limits", "memory", false);
}
export function memoryLimitBytes(c: V1Container): number {
  return amount(c, "limits", "memory", false);
}

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

/** The pod's QoS class (v1qos.GetPodQOS) over init and app containers, cpu and memory only. */
export function podQOS(pod: V1Pod): QOSClass {
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  let anySet = false;
  let guaranteed = true;
  for (const c of all) {
    for (const name of ["cpu", "memory"] as const) {
      const milli = name === "cpu";
      const req = amount(c, "requests", name, milli);
      const lim = amount(c, "limits", name, milli);
      if (req > 0 || lim > 0) anySet = true;
      if (lim === 0 || (req > 0 && req !== lim)) guaranteed = false;
    }
  }
  if (!anySet) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}

/** oom_score_adj for a container (qos.GetContainerOOMScoreAdjust). */
export function containerOOMScoreAdj(
  pod: V1Pod,
  container: V1Container,
  memoryCapacityBytes: number,
): number {
  // Static pods are critical upstream; with system-node-critical they are the last to go.
  if (pod.spec?.priorityClassName === "system-node-critical") return GUARANTEED_OOM_SCORE_ADJ;
  const qos = podQOS(pod);
  if (qos === "Guaranteed") return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === "BestEffort") return BEST_EFFORT_OOM_SCORE_ADJ;
  const req = memoryRequestBytes(container);
  const adj = 1000 - Math.floor((1000 * req) / memoryCapacityBytes);
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adj === BEST_EFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}

export interface LinuxResourcesOptions {
  /** When given, oomScoreAdj is set from the pod's QoS class as upstream does. */
  pod?: V1Pod;
  /** Node memory for the Burstable OOM formula; defaults to the machine's total memory. */
  memoryCapacityBytes?: number;
  /** CFS period in microseconds; default 100000. */
  cpuPeriod?: number;
}

/**
 * The CRI resources for a container: cpu shares from the request (falling back to the limit),
 * CFS quota from the limit (0 = unlimited, period always set), memory limit when set.
 * Throws ConfigError for quantities that do not parse.
 */
export function linuxResources(
  container: V1Container,
  opts: LinuxResourcesOptions = {},
): LinuxContainerResources {
  const period = opts.cpuPeriod ?? QUOTA_PERIOD_US;
  const out: LinuxContainerResources = {
    cpuPeriod: period,
    cpuQuota: milliCPUToQuota(cpuLimitMilli(container), period),
    cpuShares: milliCPUToShares(cpuRequestMilli(container)),
  };
  const mem = memoryLimitBytes(container);
  if (mem > 0) out.memoryLimitInBytes = mem;
  if (opts.pod) {
    out.oomScoreAdj = containerOOMScoreAdj(
      opts.pod,
      container,
      opts.memoryCapacityBytes ?? totalmem(),
    );
  }
  return out;
}
