/**
 * Pod-level resources (`spec.resources`, PodLevelResources, beta and on in v1.37): which
 * resources they may name and whether a pod sets them (component-helpers resource helpers).
 * Only cpu, memory and hugepages-<size> are pod-level resources; others there are ignored.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { isRestartableInit } from "./sidecar.ts";

export type ResourceList = Record<string, string | number>;

/** cpu, memory and hugepages-<size> (IsSupportedPodLevelResource). */
export function isPodLevelResource(name: string): boolean {
  return name === "cpu" || name === "memory" || name.startsWith("hugepages-");
}

function names(list: unknown): string[] {
  return list && typeof list === "object" ? Object.keys(list) : [];
}

/** The pod's pod-level requests or limits (`spec.resources.<kind>`), possibly empty. */
export function podLevelList(pod: V1Pod, kind: "requests" | "limits"): ResourceList {
  return (pod.spec?.resources?.[kind] ?? {}) as ResourceList;
}

/** Requests or limits name a pod-level resource (IsPodLevelResourcesSet). */
export function podLevelResourcesSet(pod: V1Pod): boolean {
  return podLevelRequestsSet(pod) || podLevelLimitsSet(pod);
}

/** Requests name a pod-level resource (IsPodLevelRequestsSet). */
export function podLevelRequestsSet(pod: V1Pod): boolean {
  return names(pod.spec?.resources?.requests).some(isPodLevelResource);
}

/** Limits name a pod-level resource (IsPodLevelLimitsSet). */
export function podLevelLimitsSet(pod: V1Pod): boolean {
  return names(pod.spec?.resources?.limits).some(isPodLevelResource);
}

/**
 * One amount summed over the containers as the pod needs it (AggregateContainerRequests): app
 * containers and sidecars add up; each init container runs beside the sidecars before it, and
 * the pod needs the largest of those moments if that is more.
 */
export function aggregateContainers(pod: V1Pod, of: (c: V1Container) => number): number {
  let total = 0;
  for (const c of pod.spec?.containers ?? []) total += of(c);
  let sidecars = 0;
  let initMax = 0;
  for (const c of pod.spec?.initContainers ?? []) {
    const own = of(c);
    if (isRestartableInit(c)) {
      total += own;
      sidecars += own;
      initMax = Math.max(initMax, sidecars);
    } else {
      initMax = Math.max(initMax, sidecars + own);
    }
  }
  return Math.max(total, initMax);
}
