/**
 * Resource requirements as the allocation sees them (upstream allocation_manager.go helpers):
 * semantic equality (quantities by value, an empty list equal to none), the record of a pod's
 * allocatable resources, and a pod with its spec resources replaced by an allocation.
 */
import type { V1Container, V1Pod, V1ResourceRequirements } from "@kubernetes/client-node";
import { parseQuantity } from "../util/quantity.ts";
import type { PodResourceInfo } from "./types.ts";

type List = Record<string, unknown> | undefined;

/** The value of a quantity for comparisons; an unparsable one compares by its text. */
function value(q: unknown): number | string {
  if (typeof q === "number") return q;
  if (typeof q !== "string") return String(q);
  try {
    return parseQuantity(q);
  } catch {
    // Validation keeps such values out of pods; comparing the text is the best left to do.
    return q;
  }
}

/** Two quantities are equal in value (both unset counts as equal). */
export function sameQuantity(a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) {
    return (a ?? undefined) === (b ?? undefined);
  }
  return value(a) === value(b);
}

/** apiequality.Semantic.DeepEqual of two resource lists: same names, equal quantities. */
export function sameList(a: List, b: List): boolean {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b ?? {}, k) && value(a![k]) === value(b![k]));
}

/** Semantic equality of two ResourceRequirements (unset equals empty). */
export function sameRequirements(
  a: V1ResourceRequirements | undefined,
  b: V1ResourceRequirements | undefined,
): boolean {
  return sameList(a?.requests, b?.requests) && sameList(a?.limits, b?.limits) &&
    JSON.stringify(a?.claims ?? []) === JSON.stringify(b?.claims ?? []);
}

/** cpu or memory differ in requests or limits (what a resize changes). */
export function cpuMemoryChanged(
  a: V1ResourceRequirements | undefined,
  b: V1ResourceRequirements | undefined,
): boolean {
  for (const kind of ["requests", "limits"] as const) {
    for (const name of ["cpu", "memory"]) {
      if (!sameQuantity((a?.[kind] as List)?.[name], (b?.[kind] as List)?.[name])) return true;
    }
  }
  return false;
}

/** Init containers and app containers, the ones whose resources can change in place. */
export function resizableContainers(pod: V1Pod): V1Container[] {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
}

function copy(r: V1ResourceRequirements | undefined): V1ResourceRequirements {
  return r ? structuredClone(r) : {};
}

/**
 * ResourceInfoForPod: every init and app container's resources (init containers resize too:
 * InPlacePodVerticalScalingInitContainers is GA), and the pod-level ones when `podLevel`.
 */
export function resourceInfoForPod(pod: V1Pod, opts: { podLevel: boolean }): PodResourceInfo {
  const info: PodResourceInfo = { containers: {} };
  for (const c of resizableContainers(pod)) info.containers[c.name] = copy(c.resources);
  if (opts.podLevel && pod.spec?.resources) info.pod = copy(pod.spec.resources);
  return info;
}

/**
 * updatePodFromAllocation: the pod with the allocated resources in place of the spec's, copied
 * only when they differ; `updated` tells whether they did.
 */
export function podFromAllocation(
  pod: V1Pod,
  info: PodResourceInfo | undefined,
  opts: { podLevel: boolean },
): { pod: V1Pod; updated: boolean } {
  if (!info || !pod.spec) return { pod, updated: false };
  let out = pod;
  const own = () => out === pod ? (out = structuredClone(pod)) : out;
  if (opts.podLevel && !sameRequirements(pod.spec.resources, info.pod)) {
    // No allocation of pod-level resources and none in the spec count as the same.
    const spec = own().spec!;
    if (info.pod) spec.resources = copy(info.pod);
    else delete spec.resources;
  }
  for (const kind of ["initContainers", "containers"] as const) {
    (pod.spec[kind] ?? []).forEach((c, i) => {
      const allocated = info.containers[c.name];
      if (allocated && !sameRequirements(c.resources, allocated)) {
        own().spec![kind]![i].resources = copy(allocated);
      }
    });
  }
  return { pod: out, updated: out !== pod };
}
