/**
 * What a resize asks of a running container (upstream computePodResizeAction): the allocated
 * cpu and memory (the pod's spec as the allocation gave it) against what the runtime was last
 * told (the actuated state). Each resource changes in place, or restarts the container when its
 * resizePolicy says RestartContainer. Updates are ordered so that decreases come before
 * increases. Pure.
 */
import type { V1Container, V1Pod, V1ResourceRequirements } from "@kubernetes/client-node";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";
import type { RuntimeContainerStatus, RuntimePodStatus } from "./types.ts";
import type { ComputePodActionsOptions, PodActions } from "./_pod_actions.ts";

/** cpu in millicores, memory in bytes; 0 when unset. */
export interface ResizeAmounts {
  cpuRequest: number;
  cpuLimit: number;
  memoryRequest: number;
  memoryLimit: number;
}

/** A running container to update in place. `current` follows what was applied so far. */
export interface ContainerToUpdate {
  name: string;
  id: string;
  container: V1Container;
  desired: ResizeAmounts;
  current: ResizeAmounts;
}

/** The resize part of a pod's actions. */
export interface ResizeActions {
  /** Running containers to update, per resource, decreases first. */
  containersToUpdate: { memory: ContainerToUpdate[]; cpu: ContainerToUpdate[] };
  /** The pod cgroup must follow: a container restarts or starts with new resources. */
  updatePodResources: boolean;
  /** The pod-level resources changed (InPlacePodLevelResourcesVerticalScaling). */
  updatePodLevelResources: boolean;
}

/** What the runtime was last told, and whether pod-level resources resize. */
export interface ResizeView {
  actuatedContainer(name: string): V1ResourceRequirements | undefined;
  actuatedPodLevel(): V1ResourceRequirements | undefined;
  podLevel: boolean;
}

export function noResize(): ResizeActions {
  return {
    containersToUpdate: { memory: [], cpu: [] },
    updatePodResources: false,
    updatePodLevelResources: false,
  };
}

function milli(q: unknown): number {
  if (typeof q !== "string" && typeof q !== "number") return 0;
  try {
    return quantityMilliValue(q);
  } catch {
    // Validation keeps unparsable quantities out of pods; one left over counts as unset.
    return 0;
  }
}

function bytes(q: unknown): number {
  if (typeof q !== "string" && typeof q !== "number") return 0;
  try {
    return quantityValue(q);
  } catch {
    // As above.
    return 0;
  }
}

/**
 * GetLimits: the container's cpu and memory limits, the pod-level ones where it has none
 * (only when pod-level resources resize).
 */
export function effectiveLimits(
  podLevel: V1ResourceRequirements | undefined,
  container: V1ResourceRequirements | undefined,
): Record<string, unknown> {
  const limits: Record<string, unknown> = { ...(container?.limits ?? {}) };
  for (const name of ["cpu", "memory"]) {
    const p = (podLevel?.limits as Record<string, unknown> | undefined)?.[name];
    if (!(name in limits) && p !== undefined) limits[name] = p;
  }
  return limits;
}

/** containerResourcesFromRequirements. */
export function resizeAmounts(
  podLevel: V1ResourceRequirements | undefined,
  container: V1ResourceRequirements | undefined,
): ResizeAmounts {
  const limits = effectiveLimits(podLevel, container);
  const requests = (container?.requests ?? {}) as Record<string, unknown>;
  return {
    cpuRequest: milli(requests.cpu),
    cpuLimit: milli(limits.cpu),
    memoryRequest: bytes(requests.memory),
    memoryLimit: bytes(limits.memory),
  };
}

export function sameAmounts(a: ResizeAmounts, b: ResizeAmounts): boolean {
  return a.cpuRequest === b.cpuRequest && a.cpuLimit === b.cpuLimit &&
    a.memoryRequest === b.memoryRequest && a.memoryLimit === b.memoryLimit;
}

/** The pod-level resources a sync works with: the spec's when they resize, else none. */
function podLevelOf(pod: V1Pod, view: ResizeView): V1ResourceRequirements | undefined {
  return view.podLevel ? pod.spec?.resources : undefined;
}

/**
 * computePodResizeAction for one container instance. Returns false when the container is to
 * be restarted for its resize policy (it is then added to `kill` and `restart`); true when it
 * is kept (possibly with updates queued in `actions`).
 */
export function computeResizeAction(
  pod: V1Pod,
  container: V1Container,
  current: RuntimeContainerStatus,
  ctx: {
    view: ResizeView;
    actions: ResizeActions;
    kill: (message: string) => void;
    restart: () => void;
  },
): boolean {
  if (current.state !== "running") return true;
  const { view, actions } = ctx;
  const desired = resizeAmounts(podLevelOf(pod, view), container.resources);
  const actuatedPod = view.podLevel ? view.actuatedPodLevel() : undefined;
  // A container with no record (never expected) counts as having nothing: NotRequired
  // updates it once more (idempotent), RestartContainer restarts it.
  const was = resizeAmounts(actuatedPod, view.actuatedContainer(container.name));
  if (sameAmounts(desired, was)) return true;

  const policy = (resource: string) =>
    container.resizePolicy?.find((p) => p.resourceName === resource)?.restartPolicy ??
      "NotRequired";
  const restartFor = (resource: "cpu" | "memory", changed: boolean) =>
    changed && policy(resource) === "RestartContainer";
  const memLimit = desired.memoryLimit !== was.memoryLimit;
  const memReq = desired.memoryRequest !== was.memoryRequest;
  const cpuLimit = desired.cpuLimit !== was.cpuLimit;
  const cpuReq = desired.cpuRequest !== was.cpuRequest;
  if (restartFor("memory", memLimit || memReq) || restartFor("cpu", cpuLimit || cpuReq)) {
    ctx.kill(`Container ${container.name} resize requires restart`);
    ctx.restart();
    actions.updatePodResources = true;
    return false;
  }
  const update: ContainerToUpdate = {
    name: container.name,
    id: current.id,
    container,
    desired,
    current: { ...was },
  };
  const queue = (list: ContainerToUpdate[], want: number, had: number) => {
    if (want > had) list.push(update);
    else if (want < had) list.unshift(update);
  };
  if (memLimit) queue(actions.containersToUpdate.memory, desired.memoryLimit, was.memoryLimit);
  else if (memReq) {
    queue(actions.containersToUpdate.memory, desired.memoryRequest, was.memoryRequest);
  }
  if (cpuLimit) queue(actions.containersToUpdate.cpu, desired.cpuLimit, was.cpuLimit);
  else if (cpuReq) queue(actions.containersToUpdate.cpu, desired.cpuRequest, was.cpuRequest);
  return true;
}

/** computePodResizeAction for a running container; false when it restarts for its policy. */
export function resizeKeeps(
  pod: V1Pod,
  o: {
    container: V1Container;
    current: RuntimeContainerStatus;
    actions: PodActions;
    opts: ComputePodActionsOptions;
    /** An init container (a sidecar): a restart goes to the init containers to start. */
    init?: boolean;
  },
): boolean {
  const { container, current, actions, opts, init = false } = o;
  if (!opts.resize) return true;
  return computeResizeAction(pod, container, current, {
    view: opts.resize,
    actions: actions.resize,
    kill: (message) =>
      actions.containersToKill.set(current.id, { name: container.name, reason: "", message }),
    restart: () =>
      (init ? actions.initContainersToStart : actions.containersToStart)
        .push(container.name),
  });
}

/** computePodLevelResourcesResizeAction: the pod-level cpu or memory changed. */
export function podLevelResized(pod: V1Pod, view: ResizeView): boolean {
  if (!view.podLevel) return false;
  const want = resizeAmounts(undefined, pod.spec?.resources);
  const had = resizeAmounts(undefined, view.actuatedPodLevel());
  return !sameAmounts(want, had);
}

/** startingResizedContainer: a container about to start was resized while it was not running. */
export function startingResized(pod: V1Pod, names: string[], view: ResizeView): boolean {
  const actuatedPod = view.podLevel ? view.actuatedPodLevel() : undefined;
  return names.some((name) => {
    const c = pod.spec?.containers.find((x) => x.name === name);
    if (!c) return false;
    const want = resizeAmounts(podLevelOf(pod, view), c.resources);
    return !sameAmounts(want, resizeAmounts(actuatedPod, view.actuatedContainer(name)));
  });
}

/**
 * IsPodResizeInProgress: a running init or app container whose allocated cpu or memory differs
 * from what was actuated, or (pod-level resize) the pod-level ones.
 */
export function resizeInProgress(pod: V1Pod, status: RuntimePodStatus, view: ResizeView): boolean {
  const actuatedPod = view.podLevel ? view.actuatedPodLevel() : undefined;
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  for (const c of all) {
    const s = status.containers.find((x) => x.name === c.name);
    if (s?.state !== "running") continue;
    const want = resizeAmounts(podLevelOf(pod, view), c.resources);
    // upstream compares the actuated limits as recorded (pod-level ones merged in already).
    const had = resizeAmounts(undefined, view.actuatedContainer(c.name));
    if (!sameAmounts(want, had)) return true;
  }
  if (!view.podLevel || !pod.spec?.resources || !actuatedPod) return false;
  return !sameAmounts(
    resizeAmounts(undefined, pod.spec.resources),
    resizeAmounts(undefined, actuatedPod),
  );
}
