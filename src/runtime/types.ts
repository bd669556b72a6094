/**
 * What the runtime manager knows about pods, in runtime terms (the kubelet's
 * `kubecontainer.PodStatus` / `kubecontainer.Pod`). Times are milliseconds since the epoch.
 */
import type { V1Pod } from "@kubernetes/client-node";

export type RuntimeContainerState = "created" | "running" | "exited" | "unknown";

export interface RuntimeContainerStatus {
  id: string;
  name: string;
  sandboxId: string;
  state: RuntimeContainerState;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  exitCode?: number;
  /** Runtime's reason, e.g. "Completed", "Error", "OOMKilled". */
  reason?: string;
  message?: string;
  /** The image as asked for in the spec. */
  image: string;
  /** The image id/digest the runtime resolved (status.imageID). */
  imageRef: string;
  /** From the `io.kubernetes.container.restartCount` annotation. */
  restartCount: number;
  /** From the `io.kubernetes.container.hash` annotation: hash of the container spec. */
  hash: string;
  /**
   * The cpu and memory the container has (quantities as the API prints them): what the runtime
   * reports (CRI ContainerStatus.resources), the rest as last applied (the actuated state).
   */
  resources?: ContainerResourcesSeen;
}

/** A container's cpu and memory as seen (kubecontainer.ContainerResources). */
export interface ContainerResourcesSeen {
  cpuRequest?: string;
  cpuLimit?: string;
  memoryRequest?: string;
  memoryLimit?: string;
}

export interface RuntimeSandboxStatus {
  id: string;
  state: "ready" | "notready";
  createdAt: number;
  /** metadata.attempt */
  attempt: number;
  /** Primary IP first; empty for host-network sandboxes. */
  ips: string[];
  /** Network namespace mode is NODE. */
  hostNetwork: boolean;
}

/** Everything the runtime reports for one pod UID. */
export interface RuntimePodStatus {
  uid: string;
  name: string;
  namespace: string;
  /** Newest first. */
  sandboxes: RuntimeSandboxStatus[];
  /** All container instances (running and dead), newest first. */
  containers: RuntimeContainerStatus[];
  /** IPs of the newest sandbox, primary first. */
  ips: string[];
  /** When this status was read. */
  timestamp: number;
}

/** A pod as seen from list calls only (cheap; used by PLEG relist and orphan cleanup). */
export interface RunningPod {
  uid: string;
  name: string;
  namespace: string;
  sandboxes: { id: string; state: "ready" | "notready"; createdAt: number }[];
  containers: {
    id: string;
    name: string;
    sandboxId: string;
    state: RuntimeContainerState;
    createdAt: number;
  }[];
}

/** A problem with one step of a sync, turned into a waiting reason on the container status. */
export interface SyncStepError {
  /** Container name, or undefined for pod-level steps (sandbox). */
  container?: string;
  /** e.g. CrashLoopBackOff, ErrImagePull, ImagePullBackOff, CreateContainerError, RunContainerError, CreateContainerConfigError, ErrImageNeverPull, InvalidImageName */
  reason: string;
  message: string;
}

export interface SyncPodResult {
  /** Errors per step; empty when everything asked for was done. */
  errors: SyncStepError[];
  /** The sync asked the runtime for changes (kills, a sandbox, container starts, a resize). */
  acted?: boolean;
  /** The sync resized the pod (or tried to): its status is to be read again. */
  resized?: boolean;
  /** Why the pod's in-place resize failed this time (PodResizeInProgress reason Error). */
  resizeError?: string;
}

/** Extra per-pod inputs for syncPod that do not live in the PodSpec. */
export interface SyncPodContext {
  /** Node IP for env fieldRef status.hostIP. */
  hostIP?: string;
  signal?: AbortSignal;
}

/**
 * The runtime manager: turns a desired pod into CRI calls (kubelet's KubeGenericRuntimeManager).
 */
export interface PodRuntime {
  /**
   * Pods known to the runtime, from ListPodSandbox/ListContainers. With `all: false` only pods
   * with a ready sandbox or a running container. Never throws for a single odd sandbox.
   */
  getPods(opts: { all: boolean; signal?: AbortSignal }): Promise<RunningPod[]>;
  /** Full status of one pod from the runtime; an unknown UID gives empty lists, not an error. */
  getPodStatus(
    uid: string,
    name: string,
    namespace: string,
    opts?: { signal?: AbortSignal },
  ): Promise<RuntimePodStatus>;
  /**
   * One reconcile step for `pod` given what the runtime has (`status`): kills what must go,
   * creates the sandbox if needed, pulls images, starts init containers (the next one, and
   * sidecars that must come back) and the app containers once initialised. Idempotent;
   * returns per-step errors rather than throwing for container-level problems. Throws only
   * when the runtime cannot be reached.
   */
  syncPod(pod: V1Pod, status: RuntimePodStatus, ctx: SyncPodContext): Promise<SyncPodResult>;
  /**
   * Stops every container (in parallel, each with `gracePeriodSeconds` — SIGTERM then SIGKILL
   * at the deadline; in a pod with sidecars these get the signal after the app containers, the
   * last sidecar first) and then the sandboxes of a pod. `pod` is undefined for orphans (then
   * the grace period comes from the container annotations). Idempotent.
   */
  killPod(
    pod: V1Pod | undefined,
    running: RunningPod,
    opts: { gracePeriodSeconds?: number; signal?: AbortSignal },
  ): Promise<void>;
  /**
   * Releases what a stopped pod holds on the node — its volumes (tmpfs memory, emptyDir disk)
   * and its pod cgroup — while keeping its dead containers and logs for status. Idempotent.
   */
  releasePod(uid: string, opts?: { signal?: AbortSignal }): Promise<void>;
  /** Removes a killed pod's containers, sandboxes and log directory. Idempotent. */
  removePod(running: RunningPod, opts?: { signal?: AbortSignal }): Promise<void>;
  /** Removes the per-pod back-off state (image pulls, crash loops) of a deleted pod. */
  forgetPod(uid: string): void;
  /**
   * Whether the runtime handler `pod` runs on makes mounts recursively read-only (its latest
   * CRI Status); false when unknown. For status.containerStatuses[].volumeMounts. Cheap.
   */
  recursiveReadOnlyMounts?(pod: V1Pod): boolean;
  /**
   * IsPodResizeInProgress: a running container of `pod` (its allocated spec) has cpu or memory
   * not applied yet. Cheap, no I/O.
   */
  resizeInProgress?(pod: V1Pod, status: RuntimePodStatus): boolean;
  /**
   * What the pod's cgroup holds (cpu and memory), for status.resources; undefined without pod
   * cgroups or when it cannot be read (logged). Reads a few cgroup files.
   */
  podCgroupValues?(pod: V1Pod): Promise<
    | { cpuShares?: number; cpuQuota?: number; cpuPeriod?: number; memoryLimitBytes?: number }
    | undefined
  >;
}
