/**
 * Pod QoS class (pkg/apis/core/v1/helper/qos ComputePodQOS): Guaranteed when every container
 * has cpu and memory limits equal to its requests, BestEffort when nothing is requested or
 * limited, Burstable otherwise.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

const QOS_RESOURCES = ["cpu", "memory"] as const;

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

/**
 * A resource quantity ("100m", "1.5Gi", "1e3", 2) as a number of base units; NaN when it does
 * not parse. Floating point is precise enough for QoS comparisons, not for accounting.
 */
export function parseQuantity(q: string | number | undefined): number {
  if (typeof q === "number") return q;
  if (q === undefined) return NaN;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?)$/
    .exec(q.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  const suffix = m[3] ?? "";
  return n * (BINARY[suffix] ?? DECIMAL[suffix]);
}

function sameQuantity(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

type ResourceList = Record<string, string | number> | undefined;

/**
 * The container's requests as the API server would default them: a limit without a request
 * implies an equal request. Static pods from files may not have been through defaulting.
 */
function effectiveRequests(c: V1Container): ResourceList {
  const requests: Record<string, string | number> = { ...c.resources?.requests };
  for (const [name, limit] of Object.entries(c.resources?.limits ?? {})) {
    if (!(name in requests)) requests[name] = limit;
  }
  return requests;
}

function addPositive(into: Map<string, number>, list: ResourceList): Set<string> {
  const found = new Set<string>();
  for (const name of QOS_RESOURCES) {
    const v = parseQuantity(list?.[name]);
    if (!(v > 0)) continue;
    found.add(name);
    into.set(name, (into.get(name) ?? 0) + v);
  }
  return found;
}

/** The pod's QoS class from its containers' (and init containers') cpu/memory resources. */
export function qosClass(pod: V1Pod): QOSClass {
  const requests = new Map<string, number>();
  const limits = new Map<string, number>();
  let guaranteed = true;
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const c of all) {
    addPositive(requests, effectiveRequests(c));
    const limited = addPositive(limits, c.resources?.limits);
    if (!limited.has("cpu") || !limited.has("memory")) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed) {
    for (const [name, req] of requests) {
      const lim = limits.get(name);
      if (lim === undefined || !sameQuantity(lim, req)) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? "Guaranteed" : "Burstable";
}
