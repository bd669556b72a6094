/**
 * Contract between the kubelet core and the prober (liveness, readiness, startup probes).
 */
import type { V1Pod } from "@kubernetes/client-node";

export type ProbeKind = "liveness" | "readiness" | "startup";
export type ProbeResult = "success" | "failure" | "unknown";

/** A probe result that changed; the kubelet syncs the pod when it gets one. */
export interface ProbeUpdate {
  uid: string;
  containerName: string;
  containerId: string;
  kind: ProbeKind;
  result: ProbeResult;
}

/**
 * One pod's readiness or startup results, asked per container instance: a result belongs to the
 * container id it was probed on, so a restarted container never shows its predecessor's.
 */
export interface ProbeView {
  /**
   * `containerId` is the status's id (`containerd://<id>` or bare). Undefined when the container
   * has no such probe; false while the probe has no result for this id yet (its worker is then
   * asked to probe at once).
   */
  get(containerName: string, containerId: string): boolean | undefined;
}

/**
 * Runs one worker (one timer) per probe of each running container. Workers read container ids,
 * start times and the pod IP from the pod's current API status (a dependency of the manager) and
 * report changed results through `onUpdate`. Containers without probes cost nothing.
 */
export interface ProbeManager {
  /** Starts workers for the pod's probes that have none yet. Idempotent; called on every sync. */
  addPod(pod: V1Pod): void;
  /** Stops every worker of the pod and forgets its results. Idempotent. */
  removePod(uid: string): void;
  /** Stops workers of pods not in `desired` (housekeeping). */
  cleanupPods(desired: Set<string>): void;
  /** Readiness of the pod's containers (upstream UpdatePodStatus); cheap, asks the workers lazily. */
  readiness(uid: string): ProbeView;
  /** Startup probe success of the pod's containers (upstream isContainerStarted). */
  startup(uid: string): ProbeView;
  /** "LivenessProbe" / "StartupProbe" when that probe's latest result for this container id is failure. */
  probeFailure(containerId: string): "LivenessProbe" | "StartupProbe" | undefined;
  /**
   * Whether the startup probe of this container id has succeeded (upstream
   * `startupManager.Get(id) == Success`); false while it has no result, and for containers
   * without a startup probe (callers ask only about probed ones).
   */
  startupSucceeded(containerId: string): boolean;
  /** Stops all workers. */
  stop(): void;
}
