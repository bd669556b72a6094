/**
 * Pod QoS class (pkg/apis/core/v1/helper/qos ComputePodQOS, v1.37): from the pod-level
 * resources when the pod sets them; otherwise each container (init ones included) is
 * Guaranteed (cpu and memory requests equal to limits), BestEffort (neither) or Burstable, and
 * the pod is the containers' common class, Burstable when they differ. One implementation for
 * the pod status (kubelet), the QoS cgroups (cm) and oom_score_adj (runtime), so they agree.
 */
import type { V1Container, V1Pod, V1ResourceRequirements } from "@kubernetes/client-node";
import { podLevelResourcesSet } from "./pod_level.ts";
import { tryParseQuantity } from "./quantity.ts";

export type QOSClass = "Guaranteed" | "Burstable" | "BestEffort";

const QOS_RESOURCES = ["cpu", "memory"] as const;

function sameQuantity(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

type ResourceList = Record<string, string | number>;

/**
 * The container's requests as the API server would default them: a limit without a request
 * implies an equal request. Static pods from files may not have been through defaulting.
 */
function effectiveRequests(c: V1Container): ResourceList {
  const requests: ResourceList = { ...c.resources?.requests };
  for (const [name, limit] of Object.entries(c.resources?.limits ?? {})) {
    if (!(name in requests)) requests[name] = limit;
  }
  return requests;
}

/** An amount; one that is missing or does not parse counts as zero. */
const amount = (list: ResourceList | undefined, name: string) =>
  tryParseQuantity(list?.[name]) ?? 0;

/** The class of one set of requests and limits (requirementsQOS). */
function requirementsQOS(r: { requests?: ResourceList; limits?: ResourceList }): QOSClass {
  if (Object.keys(r.requests ?? {}).length === 0 && Object.keys(r.limits ?? {}).length === 0) {
    return "BestEffort";
  }
  let qos: QOSClass | undefined;
  for (const name of QOS_RESOURCES) {
    const req = amount(r.requests, name);
    const lim = amount(r.limits, name);
    const own: QOSClass = !sameQuantity(req, lim)
      ? "Burstable"
      : req === 0
      ? "BestEffort"
      : "Guaranteed";
    if (own === "Burstable") return own;
    if (qos === undefined) qos = own;
    else if (qos !== own) return "Burstable";
  }
  return qos ?? "BestEffort";
}

/** The pod's QoS class. */
export function qosClass(pod: V1Pod): QOSClass {
  if (podLevelResourcesSet(pod)) {
    const r = pod.spec!.resources as V1ResourceRequirements;
    return requirementsQOS({
      requests: r.requests as ResourceList | undefined,
      limits: r.limits as ResourceList | undefined,
    });
  }
  let podQOS: QOSClass | undefined;
  for (const c of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
    const own = requirementsQOS({
      requests: effectiveRequests(c),
      limits: c.resources?.limits as ResourceList | undefined,
    });
    if (own === "Burstable") return own;
    if (podQOS === undefined) podQOS = own;
    else if (podQOS !== own) return "Burstable";
  }
  return podQOS ?? "BestEffort";
}
