/**
 * Pod QoS class (pkg/apis/core/v1/helper/qos ComputePodQOS): Guaranteed when every container
 * has cpu and memory limits equal to its requests, BestEffort when nothing is requested or
 * limited, Burstable otherwise. One implementation for the pod status (kubelet), the QoS
 * cgroups (cm) and oom_score_adj (runtime), so they always agree.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { tryParseQuantity } from "./quantity.ts";

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

const QOS_RESOURCES = ["cpu", "memory"] as const;

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

/** Sums the positive cpu/memory amounts of `list` into `into`; one that does not parse is unset. */
function addPositive(into: Map<string, number>, list: ResourceList): Set<string> {
  const found = new Set<string>();
  for (const name of QOS_RESOURCES) {
    const v = tryParseQuantity(list?.[name]);
    if (v === undefined || !(v > 0)) continue;
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
