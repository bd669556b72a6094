/**
 * Why a resize can never be had on this node (upstream's podResizesAdmitHandler, reason
 * Infeasible), and the text of the resize events (pkg/kubelet/events/resize.go).
 *
 * In v1.37 the API server refuses a resize whose requests exceed the node's allocatable
 * (PodResizeValidator), so the kubelet no longer checks that. denolet still does, after
 * upstream's checks, with the words kubelets before v1.36 used: a static pod with a fixed UID is
 * resized from its manifest, which no API server saw.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";
import { sameQuantity, sameRequirements } from "./_resources.ts";

export interface ResizeAdmissionOptions {
  /** InPlacePodLevelResourcesVerticalScaling. */
  podLevel: boolean;
  /** InPlacePodVerticalScalingMemoryBackedVolumes (alpha, not implemented: off). */
  memoryBackedVolumes?: boolean;
  cgroupVersion?: 1 | 2;
  /** The container's swap behaviour (GetContainerSwapBehavior); NoSwap when unknown. */
  swapBehavior?: (pod: V1Pod, container: V1Container) => string;
  /** The pod's cpu (millicores) and memory (bytes) requests, as admission sums them. */
  podRequests?: (pod: V1Pod) => { cpuMilli: number; memoryBytes: number };
  /** The node's allocatable cpu (millicores) and memory (bytes), when known. */
  allocatable?: () => { cpuMilli: number; memoryBytes: number } | undefined;
}

/** The message of an infeasible resize of `desired` (allocated as `allocated`), or undefined. */
export function resizeInfeasible(
  desired: V1Pod,
  allocated: V1Pod,
  opts: ResizeAdmissionOptions,
): string | undefined {
  const swap = swapProblem(desired, allocated, opts);
  if (swap) return swap;
  if (!opts.podLevel && !sameRequirements(desired.spec?.resources, allocated.spec?.resources)) {
    return "InPlacePodLevelResourcesVerticalScaling is disabled";
  }
  if (memoryBackedVolumeResized(desired, allocated)) {
    if (!opts.memoryBackedVolumes) return "Memory-backed emptyDir volume resize is disabled";
    if (opts.cgroupVersion === 1) {
      return "Memory-backed emptyDir volume resize is not supported on cgroups v1";
    }
  }
  return capacityProblem(desired, opts);
}

/** disallowResizeForSwappableContainers: a memory request change of a container with swap. */
function swapProblem(
  desired: V1Pod,
  allocated: V1Pod,
  opts: ResizeAdmissionOptions,
): string | undefined {
  const behavior = opts.swapBehavior;
  if (!behavior) return undefined;
  const all = (p: V1Pod) => [...(p.spec?.containers ?? []), ...(p.spec?.initContainers ?? [])];
  const before = new Map(all(allocated).map((c) => [c.name, c]));
  for (const c of all(desired)) {
    const old = before.get(c.name);
    if (!old) continue;
    if (sameQuantity(c.resources?.requests?.memory, old.resources?.requests?.memory)) continue;
    const restarts = old.resizePolicy?.find((p) => p.resourceName === "memory")
      ?.restartPolicy === "RestartContainer";
    if (restarts) continue;
    if (behavior(desired, c) !== "NoSwap" || behavior(allocated, old) !== "NoSwap") {
      return "In-place resize of containers with swap is not supported.";
    }
  }
  return undefined;
}

/** A Memory-medium emptyDir whose sizeLimit changed (IsMemoryBackedVolumeResizeRequested). */
function memoryBackedVolumeResized(desired: V1Pod, allocated: V1Pod): boolean {
  const a = allocated.spec?.volumes ?? [];
  const d = desired.spec?.volumes ?? [];
  if (a.length !== d.length) return false;
  return a.some((v, i) => {
    const limit = v.emptyDir?.medium === "Memory" ? v.emptyDir.sizeLimit : undefined;
    if (limit === undefined || limit === null || quantityValue(limit) === 0) return false;
    return !sameQuantity(limit, d[i].emptyDir?.sizeLimit);
  });
}

/** denolet's: the requests exceed what the node has at all. */
function capacityProblem(pod: V1Pod, opts: ResizeAdmissionOptions): string | undefined {
  const node = opts.allocatable?.();
  if (!node || !opts.podRequests) return undefined;
  const want = opts.podRequests(pod);
  let what: string | undefined;
  if (want.memoryBytes > node.memoryBytes) {
    what = `memory, requested: ${want.memoryBytes}, capacity: ${node.memoryBytes}`;
  } else if (want.cpuMilli > node.cpuMilli) {
    what = `cpu, requested: ${want.cpuMilli}, capacity: ${node.cpuMilli}`;
  }
  return what && `Node didn't have enough capacity: ${what}`;
}

/**
 * `<prefix>: <summary>` with the pod's desired resources as JSON (podResourceSummary): the
 * init and app containers' resources, the generation, and an error when there is one.
 */
export function resizeEventMessage(
  prefix: string,
  pod: V1Pod,
  opts: { generation: number; error?: string },
): string {
  const entry = (c: V1Container) => ({ name: c.name, resources: goResources(c) });
  const summary: Record<string, unknown> = {};
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length) summary.initContainers = inits.map(entry);
  const apps = pod.spec?.containers ?? [];
  if (apps.length) summary.containers = apps.map(entry);
  summary.generation = opts.generation;
  if (opts.error) summary.error = opts.error;
  return `${prefix}: ${JSON.stringify(summary)}`;
}

/** A container's resources as Go marshals v1.ResourceRequirements (canonical quantities). */
function goResources(c: V1Container): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kind of ["limits", "requests"] as const) {
    const list = (c.resources?.[kind] ?? {}) as Record<string, string | number>;
    const names = Object.keys(list).sort();
    if (names.length) {
      out[kind] = Object.fromEntries(names.map((n) => [n, canonical(n, list[n])]));
    }
  }
  if (c.resources?.claims?.length) out.claims = c.resources.claims;
  return out;
}

/** cpu prints in millicores when fractional; other quantities stay as written. */
function canonical(name: string, q: string | number): string {
  if (name !== "cpu") return String(q);
  try {
    const milli = quantityMilliValue(q);
    return milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`;
  } catch {
    // Validation keeps such values out; the text is the best left to show.
    return String(q);
  }
}
