/**
 * API container statuses from the runtime's container instances (kubelet_pods.go
 * convertToAPIContainerStatuses, plus the started/ready fields the prober manager fills in).
 */
import type {
  V1Container,
  V1ContainerStatus,
  V1Pod,
  V1ResourceRequirements,
  V1VolumeMountStatus,
} from "@kubernetes/client-node";
import type { RuntimeContainerStatus, RuntimePodStatus } from "../runtime/types.ts";
import type { ProbeView } from "../prober/mod.ts";
import { isRestartableInit } from "../util/sidecar.ts";
import { resolveRecursiveReadOnly } from "../volumes/mod.ts";
import { quantityMilliValue } from "../util/quantity.ts";

export interface ContainerStatusInputs {
  /** Why a container is not running, by container name (ErrImagePull, CrashLoopBackOff, ...). */
  reasons: Map<string, { reason: string; message: string }>;
  /** Prefix of container IDs: `<runtimeName>://<id>`. */
  runtimeName: string;
  /** Readiness probe results per container instance; undefined = the container has no probe. */
  readiness?: ProbeView;
  /** Startup probe results per container instance; undefined = the container has no probe. */
  startup?: ProbeView;
  /**
   * Whether the pod's runtime handler makes mounts recursively read-only (CRI Status), asked
   * only for a read-only mount that requests it; unset: it does not.
   */
  recursiveReadOnlyMounts?: () => boolean;
}

const CONTAINER_STATUS_UNKNOWN = "ContainerStatusUnknown";

/** API times have whole seconds (RFC 3339 without fraction upstream); 0/undefined = unset. */
export function apiTime(ms: number | undefined): Date | undefined {
  if (!ms) return undefined;
  return new Date(Math.floor(ms / 1000) * 1000);
}

/** Runtime instances newest first, so the first match by name is the current instance. */
export function newestFirst(rs: RuntimePodStatus): RuntimeContainerStatus[] {
  return [...rs.containers].sort((a, b) => b.createdAt - a.createdAt);
}

/** kubecontainer.ShouldContainerBeRestarted: will the next sync (re)start this container? */
export function shouldContainerBeRestarted(
  container: V1Container,
  pod: V1Pod,
  newest: RuntimeContainerStatus | undefined,
): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  if (!newest) return true;
  if (newest.state === "running") return false;
  if (newest.state === "unknown" || newest.state === "created") return true;
  if (isRestartableInit(container)) return true;
  const policy = pod.spec?.restartPolicy ?? "Always";
  if (policy === "Never") return false;
  if (policy === "OnFailure" && newest.exitCode === 0) return false;
  return true;
}

function convertInstance(
  cs: RuntimeContainerStatus,
  old: V1ContainerStatus | undefined,
  runtimeName: string,
): V1ContainerStatus {
  const containerID = `${runtimeName}://${cs.id}`;
  const status: V1ContainerStatus = {
    name: cs.name,
    restartCount: cs.restartCount,
    image: cs.image,
    imageID: cs.imageRef,
    containerID,
    ready: false,
  };
  if (old?.volumeMounts) status.volumeMounts = old.volumeMounts;
  switch (cs.state) {
    case "running":
      status.state = { running: { startedAt: apiTime(cs.startedAt) } };
      break;
    case "exited":
      status.state = {
        terminated: {
          exitCode: cs.exitCode ?? 0,
          reason: cs.reason,
          message: cs.message,
          startedAt: apiTime(cs.startedAt),
          finishedAt: apiTime(cs.finishedAt),
          containerID,
        },
      };
      break;
    default:
      if (cs.state === "unknown" && old?.state?.running) {
        // It was running and now cannot be inspected: report it as having died rather than
        // as never run, so a run-once pod is not run twice.
        status.state = {
          terminated: {
            reason: CONTAINER_STATUS_UNKNOWN,
            message: "The container could not be located when the pod was terminated",
            exitCode: 137,
          },
        };
        status.restartCount = old.restartCount + 1;
      } else {
        // Created, or unknown without history: waiting to run.
        status.state = { waiting: {} };
      }
  }
  return status;
}

/**
 * status.volumeMounts as upstream reports them (RecursiveReadOnlyMounts, GA): each mount as
 * asked, a read-only one with whether it is recursively read-only. A mount whose
 * recursiveReadOnly cannot be had shows Disabled (its container's waiting message says why).
 */
function volumeMountStatuses(
  c: V1Container,
  supported: () => boolean,
): V1VolumeMountStatus[] | undefined {
  if (!c.volumeMounts?.length) return undefined;
  return c.volumeMounts.map((m) => {
    const out: V1VolumeMountStatus = { name: m.name, mountPath: m.mountPath };
    if (m.readOnly) {
      out.readOnly = true;
      out.recursiveReadOnly = resolveRecursiveReadOnly(m, supported).rro ? "Enabled" : "Disabled";
    }
    return out;
  });
}

/** cm.MinMilliCPULimit and cm.MinShares, below which actual and allocated are not told apart. */
const MIN_MILLI_CPU_LIMIT = 10;
const MIN_SHARES = 2;

function milli(q: unknown): number {
  if (typeof q !== "string" && typeof q !== "number") return 0;
  try {
    return quantityMilliValue(q);
  } catch {
    // Validation keeps unparsable quantities out; such a value counts as none.
    return 0;
  }
}

/**
 * convertContainerStatusResources: a running container's cpu and memory as the runtime reports
 * them (limits and requests its spec names), the previous status's where the runtime says
 * nothing; any other container shows what it was allocated.
 */
function statusResources(
  spec: V1Container,
  cs: RuntimeContainerStatus,
  ctx: { status: V1ContainerStatus; old: V1ContainerStatus | undefined },
): V1ResourceRequirements {
  const out = structuredClone(spec.resources ?? {}) as V1ResourceRequirements;
  if (cs.state !== "running") return out;
  const seen = cs.resources;
  const old = ctx.old;
  const keepOld = (name: string, from: unknown, into: Record<string, unknown>) => {
    const list = from as Record<string, unknown> | undefined;
    if (
      old?.state?.running && old.containerID === ctx.status.containerID && list &&
      list[name] !== undefined
    ) into[name] = list[name];
  };
  const limits = out.limits as Record<string, unknown> | undefined;
  if (limits) {
    if (seen?.cpuLimit !== undefined) {
      if (milli(seen.cpuLimit) > MIN_MILLI_CPU_LIMIT || milli(limits.cpu) > MIN_MILLI_CPU_LIMIT) {
        limits.cpu = seen.cpuLimit;
      }
    } else keepOld("cpu", old?.resources?.limits, limits);
    if (seen?.memoryLimit !== undefined) limits.memory = seen.memoryLimit;
    else keepOld("memory", old?.resources?.limits, limits);
  }
  const requests = out.requests as Record<string, unknown> | undefined;
  if (requests) {
    if (seen?.cpuRequest !== undefined) {
      if (milli(seen.cpuRequest) > MIN_SHARES || milli(requests.cpu) > MIN_SHARES) {
        requests.cpu = seen.cpuRequest;
      }
    } else keepOld("cpu", old?.resources?.requests, requests);
    if (seen?.memoryRequest !== undefined) requests.memory = seen.memoryRequest;
    else keepOld("memory", old?.resources?.requests, requests);
  }
  return out;
}

/** Started and ready, as the prober manager would set them. */
function applyProbes(
  status: V1ContainerStatus,
  container: V1Container,
  opts: { isInit: boolean; inputs: ContainerStatusInputs },
): void {
  const running = status.state?.running !== undefined;
  // Asked with this instance's id: a restarted container must not inherit its predecessor's.
  const id = status.containerID ?? "";
  const started = running &&
    (opts.inputs.startup?.get(container.name, id) ?? container.startupProbe === undefined);
  status.started = started;
  if (opts.isInit && !isRestartableInit(container)) {
    status.ready = status.state?.terminated?.exitCode === 0;
    return;
  }
  status.ready = started &&
    (opts.inputs.readiness?.get(container.name, id) ?? container.readinessProbe === undefined);
}

/**
 * One status per container in `containers`: init containers in spec order, app containers
 * sorted by name (as upstream's SortedContainerStatuses).
 */
export function convertContainerStatuses(
  pod: V1Pod,
  rs: RuntimePodStatus,
  opts: ContainerStatusInputs & {
    containers: V1Container[];
    previous: V1ContainerStatus[] | undefined;
    hasInitContainers: boolean;
    isInit: boolean;
  },
): V1ContainerStatus[] {
  const { containers, isInit } = opts;
  const oldStatuses = new Map((opts.previous ?? []).map((s) => [s.name, s]));
  const defaultWaiting = opts.hasInitContainers ? "PodInitializing" : "ContainerCreating";
  const statuses = new Map<string, V1ContainerStatus>();
  const rroSupported = opts.recursiveReadOnlyMounts ?? (() => false);
  for (const c of containers) {
    const old = oldStatuses.get(c.name);
    let status: V1ContainerStatus = {
      name: c.name,
      image: c.image ?? "",
      imageID: "",
      ready: false,
      restartCount: 0,
      state: { waiting: { reason: defaultWaiting } },
    };
    // Immutable once reported: a running container's status carries the previous one's.
    const mounts = volumeMountStatuses(c, rroSupported);
    if (mounts) status.volumeMounts = mounts;
    if (old?.state?.terminated) status = structuredClone(old);
    else if (old) {
      status.restartCount = old.restartCount;
      if (old.lastState) status.lastState = structuredClone(old.lastState);
    }
    statuses.set(c.name, status);
  }

  const instances = newestFirst(rs);
  const names = new Set(instances.map((i) => i.name));
  for (const c of containers) {
    if (names.has(c.name)) continue;
    // The runtime forgot a container that used to run (removed, or we were down): infer that
    // it terminated, so the pod does not drop back to Pending.
    const old = oldStatuses.get(c.name);
    if (!old || old.state?.terminated || !old.state?.running) continue;
    const status = statuses.get(c.name)!;
    if (status.state?.waiting?.reason !== defaultWaiting) continue;
    if (status.lastState?.terminated) continue;
    status.lastState = {
      terminated: {
        reason: CONTAINER_STATUS_UNKNOWN,
        message:
          "The container could not be located when the pod was deleted.  The container used to be Running",
        exitCode: 137,
      },
    };
    if (!pod.metadata?.deletionTimestamp) status.restartCount += 1;
  }

  // The newest instance gives the state, the one before it the last state.
  const seen = new Map<string, number>();
  for (const cs of instances) {
    if (!statuses.has(cs.name)) continue; // the other list's containers
    const count = seen.get(cs.name) ?? 0;
    if (count >= 2) continue;
    const converted = convertInstance(cs, oldStatuses.get(cs.name), opts.runtimeName);
    if (count === 0) {
      // In-place resize (GA): what the container has, and what it was allocated.
      const spec = containers.find((c) => c.name === cs.name)!;
      converted.resources = statusResources(spec, cs, {
        status: converted,
        old: oldStatuses.get(cs.name),
      });
      const requests = spec.resources?.requests;
      if (requests) converted.allocatedResources = { ...requests };
      statuses.set(cs.name, converted);
    } else statuses.get(cs.name)!.lastState = converted.state;
    seen.set(cs.name, count + 1);
  }

  // Containers the next sync will (re)start show why they are not running yet.
  for (const c of containers) {
    const newest = instances.find((i) => i.name === c.name);
    if (isInit && newest?.state === "exited" && newest.exitCode === 0) continue;
    if (!shouldContainerBeRestarted(c, pod, newest)) continue;
    const why = opts.reasons.get(c.name);
    if (!why) continue;
    const status = statuses.get(c.name)!;
    if (status.state?.terminated) status.lastState = status.state;
    status.state = { waiting: { reason: why.reason, message: why.message } };
  }

  for (const c of containers) applyProbes(statuses.get(c.name)!, c, { isInit, inputs: opts });
  const ordered = containers.map((c) => statuses.get(c.name)!);
  return isInit
    ? ordered
    : ordered.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
