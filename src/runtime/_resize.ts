/**
 * Carrying out a resize (upstream doPodResizeAction). Memory first, then cpu; for each, the pod
 * cgroup grows before the containers and shrinks after them (limits before requests when
 * growing, requests before limits when shrinking), so a container is never allowed more than
 * its pod. A memory limit is not lowered below what is in use. Each pod cgroup change is told
 * to the runtime first (UpdatePodSandboxResources, where it is served). A failure stops the
 * resize where it is; the next sync carries on from what was applied (the actuated state).
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { LinuxContainerResources, RuntimeService } from "../cri/types.ts";
import { isUnimplemented } from "../cri/mod.ts";
import { formatQuantity } from "../util/quantity.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { PodResourceState } from "../allocation/mod.ts";
import {
  type ContainerToUpdate,
  effectiveLimits,
  type ResizeActions,
  type ResizeAmounts,
} from "./_resize_actions.ts";
import type { CgroupValues, PodCgroupHooks } from "./_runtime_manager.ts";

export interface ResizeDeps {
  runtime: RuntimeService;
  podCgroups?: PodCgroupHooks;
  /** What the runtime was told; updated as each step succeeds. */
  actuated: PodResourceState;
  podLevel: boolean;
  /** The CRI resources of a container, as at its creation. */
  containerResources: (pod: V1Pod, container: V1Container) => LinuxContainerResources;
  /** Memory in use by a container (CRI stats), bytes; undefined when unknown. */
  containerMemoryUsage: (id: string, signal?: AbortSignal) => Promise<number | undefined>;
  log: Logger;
}

export interface ResizeInput {
  pod: V1Pod;
  sandboxId: string;
  actions: ResizeActions;
  signal?: AbortSignal;
}

/** A resize step failed; the message goes to PodResizeInProgress (reason Error). */
export class ResizeError extends Error {}

type Resource = "cpu" | "memory";

/** Resizes the pod. Throws ResizeError with upstream's wording when a step fails. */
export async function resizePod(deps: ResizeDeps, input: ResizeInput): Promise<void> {
  const { pod, actions } = input;
  const pcm = deps.podCgroups;
  const desired = pcm?.desired?.(pod);
  let current = desired ? await readPodConfig(pcm!, pod) : undefined;
  if (desired && current) await validateMemoryDecrease(deps, input, { desired, current });

  const setPodCgroup = async (resource: Resource, limit: boolean) => {
    if (!pcm?.update || !desired || !current) return;
    let resized: CgroupValues;
    if (resource === "cpu") {
      resized = limit
        ? { cpuPeriod: desired.cpuPeriod, cpuQuota: desired.cpuQuota }
        : { cpuShares: desired.cpuShares };
    } else if (limit) resized = { memoryLimitBytes: desired.memoryLimitBytes };
    else return; // memory requests are not written to cgroups
    const merged = { ...current, ...defined(resized) };
    try {
      await sandboxResources(deps, input, merged);
    } catch (err) {
      throw new ResizeError(
        `failed to notify runtime for UpdatePodSandboxResources (resource=${resource}); ` +
          `resize rejected: ${errorMessage(err)}`,
        { cause: err },
      );
    }
    try {
      await pcm.update(pod, resized);
    } catch (err) {
      deps.log.warn("Cannot set pod cgroup config", { resource, err: errorMessage(err) });
      await sandboxResources(deps, input, current).catch((e) =>
        deps.log.warn("Cannot roll back UpdatePodSandboxResources", {
          resource,
          err: errorMessage(e),
        })
      );
      throw new ResizeError(errorMessage(err), { cause: err });
    }
    current = merged;
  };

  const resize = async (resource: Resource, cur: Pair, want: Pair) => {
    // Growing, limits widen before requests so that requests never exceed limits.
    if (want.limit > cur.limit) await setPodCgroup(resource, true);
    if (want.request > cur.request) await setPodCgroup(resource, false);
    for (const u of actions.containersToUpdate[resource]) {
      await updateContainer(deps, input, u, resource);
    }
    if (want.request < cur.request) await setPodCgroup(resource, false);
    if (want.limit < cur.limit) await setPodCgroup(resource, true);
    if (deps.podLevel && actions.updatePodLevelResources) actuatePodLevel(deps, pod, resource);
  };

  const podWide = actions.updatePodResources || actions.updatePodLevelResources;
  if (actions.containersToUpdate.memory.length > 0 || podWide) {
    // No pod memory limit leaves the current one as it is (removing limits is not supported).
    const was = current?.memoryLimitBytes ?? UNLIMITED;
    const want = desired?.memoryLimitBytes ?? was;
    if (desired) desired.memoryLimitBytes = want === UNLIMITED ? undefined : want;
    await resize("memory", { limit: was, request: 0 }, { limit: want, request: 0 });
  }
  if (actions.containersToUpdate.cpu.length > 0 || podWide) {
    const wasQuota = current?.cpuQuota ?? -1;
    if (desired && desired.cpuQuota === undefined) {
      desired.cpuQuota = wasQuota;
      desired.cpuPeriod = current?.cpuPeriod;
    }
    await resize(
      "cpu",
      { limit: quotaOrder(wasQuota), request: current?.cpuShares ?? 0 },
      { limit: quotaOrder(desired?.cpuQuota ?? wasQuota), request: desired?.cpuShares ?? 0 },
    );
  }
  await deps.actuated.flush();
}

interface Pair {
  limit: number;
  request: number;
}

const UNLIMITED = Number.POSITIVE_INFINITY;

/** An unlimited quota (-1) is more than any limit. */
function quotaOrder(quota: number): number {
  return quota < 0 ? UNLIMITED : quota;
}

function defined(v: CgroupValues): CgroupValues {
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined));
}

async function readPodConfig(pcm: PodCgroupHooks, pod: V1Pod): Promise<CgroupValues> {
  try {
    const c = await pcm.current?.(pod);
    if (!c) throw new Error("the pod cgroup does not exist");
    return c;
  } catch (err) {
    const m = pod.metadata ?? {};
    throw new ResizeError(
      `unable to get pod cgroup config for pod "${m.name}_${m.namespace}(${m.uid})": ${
        errorMessage(err)
      }`,
      { cause: err },
    );
  }
}

/**
 * validateMemoryResizeAction: a memory limit lowered (pod or container) must stay above what
 * is in use, or the kernel would refuse it (or OOM-kill). Checked before anything changes, so a
 * resize is not left half done.
 */
async function validateMemoryDecrease(
  deps: ResizeDeps,
  input: ResizeInput,
  cg: { desired: CgroupValues; current: CgroupValues },
): Promise<void> {
  const { actions } = input;
  if (actions.containersToUpdate.memory.length === 0 && !actions.updatePodResources) return;
  const want = cg.desired.memoryLimitBytes;
  const podDecreasing = want !== undefined &&
    (cg.current.memoryLimitBytes === undefined || want < cg.current.memoryLimitBytes);
  const decreasing = actions.containersToUpdate.memory.filter((u) =>
    u.desired.memoryLimit !== 0 &&
    (u.current.memoryLimit === 0 || u.desired.memoryLimit < u.current.memoryLimit)
  );
  if (!podDecreasing && decreasing.length === 0) return;
  const errors: string[] = [];
  if (podDecreasing) {
    const used = await deps.podCgroups?.memoryUsage?.(input.pod);
    if (used === undefined) errors.push("missing pod memory usage");
    else if (used >= want!) {
      errors.push(`attempting to set pod memory limit (${want}) below current usage (${used})`);
    }
  }
  for (const u of decreasing) {
    const used = await deps.containerMemoryUsage(u.id, input.signal);
    if (used === undefined) errors.push(`missing container "${u.name}" memory usage`);
    else if (used >= u.desired.memoryLimit) {
      errors.push(
        `attempting to set container "${u.name}" memory limit (${u.desired.memoryLimit}) ` +
          `below current usage (${used})`,
      );
    }
  }
  if (errors.length === 0) return;
  // utilerrors.NewAggregate: one error as it is, several as a bracketed list.
  const joined = errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
  throw new ResizeError(`cannot decrease memory limits: ${joined}`);
}

/**
 * updatePodContainerResources for one container: the resource being resized at its new value,
 * the other at what was last applied, then the actuated record.
 */
async function updateContainer(
  deps: ResizeDeps,
  input: ResizeInput,
  u: ContainerToUpdate,
  resource: Resource,
): Promise<void> {
  const next: ResizeAmounts = resource === "memory"
    ? { ...u.current, memoryLimit: u.desired.memoryLimit, memoryRequest: u.desired.memoryRequest }
    : { ...u.current, cpuLimit: u.desired.cpuLimit, cpuRequest: u.desired.cpuRequest };
  const container: V1Container = {
    ...u.container,
    resources: {
      ...u.container.resources,
      limits: quantities(next.cpuLimit, next.memoryLimit),
      requests: quantities(next.cpuRequest, next.memoryRequest),
    },
  };
  try {
    await deps.runtime.updateContainerResources(
      u.id,
      deps.containerResources(input.pod, container),
      { signal: input.signal },
    );
  } catch (err) {
    deps.log.warn("UpdateContainerResources failed", {
      container: u.name,
      containerId: u.id,
      resource,
      err: errorMessage(err),
    });
    throw new ResizeError(errorMessage(err), { cause: err });
  }
  // The runtime may be slow to show what it accepted; what was applied is recorded here.
  Object.assign(u.current, next);
  setActuatedContainer(deps, input.pod, container);
}

/** upstream builds the update from numbers: cpu in millicores, memory in bytes. */
function quantities(cpuMilli: number, memory: number): Record<string, string> {
  return {
    cpu: cpuMilli % 1000 === 0 ? formatQuantity(cpuMilli / 1000, "DecimalSI") : `${cpuMilli}m`,
    memory: formatQuantity(memory, "BinarySI"),
  };
}

/** setActuatedContainerResources: the container's resources, pod-level limits merged in. */
export function setActuatedContainer(
  deps: { actuated: PodResourceState; podLevel: boolean },
  pod: V1Pod,
  container: V1Container,
): void {
  const resources = structuredClone(container.resources ?? {});
  if (deps.podLevel && pod.spec?.resources) {
    resources.limits = effectiveLimits(pod.spec.resources, container.resources) as Record<
      string,
      string
    >;
  }
  deps.actuated.setContainer(pod.metadata?.uid ?? "", container.name, resources);
}

/** updateActuatedPodLevelResources: the allocated pod-level value of `resource` is applied. */
function actuatePodLevel(deps: ResizeDeps, pod: V1Pod, resource: Resource): void {
  const allocated = pod.spec?.resources;
  if (!allocated) return;
  const uid = pod.metadata?.uid ?? "";
  const was = structuredClone(deps.actuated.podLevel(uid) ?? {});
  for (const kind of ["requests", "limits"] as const) {
    const list = allocated[kind] as Record<string, string> | undefined;
    if (!list) continue;
    const out = { ...(was[kind] ?? {}) } as Record<string, string>;
    if (list[resource] === undefined) delete out[resource];
    else out[resource] = list[resource];
    was[kind] = out;
  }
  deps.actuated.setPodLevel(uid, was);
}

/**
 * updatePodSandboxResources: best effort. A runtime that does not serve it (containerd 1.6,
 * 2.0; 2.2 says "not implemented") does not stop the resize.
 */
async function sandboxResources(
  deps: ResizeDeps,
  input: ResizeInput,
  config: CgroupValues,
): Promise<void> {
  const resources: LinuxContainerResources = {};
  if (config.cpuPeriod !== undefined) resources.cpuPeriod = config.cpuPeriod;
  if (config.cpuQuota !== undefined) resources.cpuQuota = config.cpuQuota;
  if (config.cpuShares !== undefined) resources.cpuShares = config.cpuShares;
  if (config.memoryLimitBytes !== undefined) resources.memoryLimitInBytes = config.memoryLimitBytes;
  try {
    await deps.runtime.updatePodSandboxResources(input.sandboxId, { resources }, {
      signal: input.signal,
    });
  } catch (err) {
    if (isUnimplemented(err) || /not implemented/.test(errorMessage(err))) {
      deps.log.debug(3, "UpdatePodSandboxResources is not implemented; proceeding with resize");
      return;
    }
    throw err;
  }
}
