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
  /** Readiness per container name for the pod (a container with a readiness probe and no result yet is not ready). */
  readiness(uid: string): Map<string, boolean>;
  /** Startup probe success per container name. */
  startup(uid: string): Map<string, boolean>;
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
