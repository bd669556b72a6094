/**
 * Questions computePodActions asks of the runtime's view of a pod: the newest instance of a
 * container, whether the sandbox must be replaced, whether a container failed or is restarted.
 * Pure.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { RuntimeContainerStatus, RuntimePodStatus } from "./types.ts";
import { containerShouldRestart } from "../util/restart_policy.ts";
/** The newest instance of the named container (statuses are newest first). */
export function findContainerStatus(
  status: RuntimePodStatus,
  name: string,
): RuntimeContainerStatus | undefined {
  return status.containers.find((c) => c.name === name);
}

interface SandboxChange {
  changed: boolean;
  attempt: number;
  sandboxId: string;
}

/** Upstream `PodSandboxChanged`: whether a new sandbox is needed, and its attempt number. */
export function podSandboxChanged(pod: V1Pod, status: RuntimePodStatus): SandboxChange {
  const newest = status.sandboxes[0];
  if (!newest) return { changed: true, attempt: 0, sandboxId: "" };
  const recreate = { changed: true, attempt: newest.attempt + 1, sandboxId: newest.id };
  const readyCount = status.sandboxes.filter((s) => s.state === "ready").length;
  if (readyCount > 1 || newest.state !== "ready") return recreate;
  const hostNetwork = pod.spec?.hostNetwork === true;
  if (newest.hostNetwork !== hostNetwork) return recreate;
  if (!hostNetwork && newest.ips.length === 0) return recreate;
  return { changed: false, attempt: newest.attempt, sandboxId: newest.id };
}

/**
 * Upstream `hasAnyRegularContainerCreated`: some app container was created, ran or exited,
 * which only happens once initialisation was done.
 */
export function hasAnyRegularContainerCreated(pod: V1Pod, status: RuntimePodStatus): boolean {
  return (pod.spec?.containers ?? []).some((c) => {
    const state = findContainerStatus(status, c.name)?.state;
    return state === "created" || state === "running" || state === "exited";
  });
}

export function isInitContainerFailed(s: RuntimeContainerStatus): boolean {
  if (s.reason?.includes("OOMKilled")) return true;
  if (s.state === "exited" && (s.exitCode ?? 0) !== 0) return true;
  return s.state === "unknown";
}

/** Upstream `ShouldContainerBeRestarted` for a container that is not running. */
export function shouldContainerBeRestarted(
  container: V1Container,
  pod: V1Pod,
  status: RuntimePodStatus,
): boolean {
  if (pod.metadata?.deletionTimestamp) return false;
  const s = findContainerStatus(status, container.name);
  if (!s) return true;
  if (s.state === "running") return false;
  if (s.state === "unknown" || s.state === "created") return true;
  return containerShouldRestart(container, pod.spec, s.exitCode ?? 0);
}

export function shouldRestartOnFailure(pod: V1Pod): boolean {
  return pod.spec?.restartPolicy !== "Never";
}

export function containerSucceeded(c: V1Container, status: RuntimePodStatus): boolean {
  const s = findContainerStatus(status, c.name);
  // Only a clean exit counts; upstream also counts created/unknown (exit code 0 by default).
  return s?.state === "exited" && (s.exitCode ?? 0) === 0;
}
