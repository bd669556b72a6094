/**
 * What one sync must do for a pod, computed from the desired spec and the runtime's view
 * (kubelet's `computePodActions`). Pure: no I/O, no clock. Back-off is decided later, when a
 * start is attempted (upstream `doBackOff`), because it needs the per-container history.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { RuntimeContainerStatus, RuntimePodStatus } from "./types.ts";
import { containerHash } from "./_labels.ts";

/** Why a running container is killed (upstream `containerKillReason`; "" for spec changes). */
export type KillReason = "" | "Unknown" | "LivenessProbe" | "StartupProbe";

export interface ContainerToKill {
  /** Container name in the spec. */
  name: string;
  reason: KillReason;
  message: string;
}

export interface PodActions {
  /** Stop every container and the sandbox(es) before anything else. */
  killPod: boolean;
  /** Create a new sandbox (after killing the old one). */
  createSandbox: boolean;
  /** Id of the newest existing sandbox ("" when there is none). */
  sandboxId: string;
  /** Sandbox attempt to use: the current one, or the next one when a sandbox is created. */
  attempt: number;
  /** Name of the init container to start next, if initialisation is not done. */
  nextInitContainerToStart?: string;
  /** Names of app containers to start, in spec order. */
  containersToStart: string[];
  /** Running container instances to stop, by container id. */
  containersToKill: Map<string, ContainerToKill>;
}

/** Result of a liveness or startup probe that decided the container must be restarted. */
export type ProbeFailure = "LivenessProbe" | "StartupProbe";

export interface ComputePodActionsOptions {
  /** Probe verdict per running container id; undefined when healthy or not probed. */
  probeFailure?: (containerId: string) => ProbeFailure | undefined;
}

export function computePodActions(
  pod: V1Pod,
  status: RuntimePodStatus,
  opts: ComputePodActionsOptions = {},
): PodActions {
  const sandbox = podSandboxChanged(pod, status);
  const actions: PodActions = {
    killPod: sandbox.changed,
    createSandbox: sandbox.changed,
    sandboxId: sandbox.sandboxId,
    attempt: sandbox.attempt,
    containersToStart: [],
    containersToKill: new Map(),
  };
  const spec = pod.spec;
  const containers = spec?.containers ?? [];
  const initContainers = spec?.initContainers ?? [];

  if (sandbox.changed) {
    // A finished pod that must not restart keeps its dead sandbox: recreating it only to kill
    // it again would confuse users. An empty container list means nothing was ever created,
    // so the sandbox creation is retried.
    if (!shouldRestartOnFailure(pod) && sandbox.attempt !== 0 && status.containers.length > 0) {
      actions.createSandbox = false;
      return actions;
    }
    const toStart = containers
      .filter((c) => !(spec?.restartPolicy === "OnFailure" && containerSucceeded(c, status)))
      .map((c) => c.name);
    if (toStart.length === 0 && findNextInitContainer(pod, status).done) {
      actions.createSandbox = false;
      return actions;
    }
    // A new sandbox starts from scratch: initialisation runs again from the first init container.
    if (initContainers.length > 0) {
      actions.nextInitContainerToStart = initContainers[0].name;
      return actions;
    }
    actions.containersToStart = toStart;
    return actions;
  }

  const init = findNextInitContainer(pod, status);
  if (!init.done) {
    if (init.next) {
      const failed = init.lastStatus !== undefined && isInitContainerFailed(init.lastStatus);
      if (failed && !shouldRestartOnFailure(pod)) {
        actions.killPod = true;
      } else {
        if (init.lastStatus?.state === "unknown") {
          actions.containersToKill.set(init.lastStatus.id, {
            name: init.next,
            reason: "Unknown",
            message: `Init container is in "unknown" state, try killing it before restart`,
          });
        }
        actions.nextInitContainerToStart = init.next;
      }
    }
    // Initialisation failed or is still running: app containers wait.
    return actions;
  }

  let keepCount = 0;
  for (const container of containers) {
    const current = findContainerStatus(status, container.name);
    if (!current || current.state !== "running") {
      if (shouldContainerBeRestarted(container, pod, status)) {
        actions.containersToStart.push(container.name);
        // An instance in unknown state may still run: stop it so two never run at once.
        if (current?.state === "unknown") {
          actions.containersToKill.set(current.id, {
            name: container.name,
            reason: "Unknown",
            message: `Container is in "unknown" state, try killing it before restart`,
          });
        }
      }
      continue;
    }
    let restart = shouldRestartOnFailure(pod);
    let reason: KillReason;
    let message: string;
    const probe = opts.probeFailure?.(current.id);
    if (current.hash !== containerHash(container)) {
      reason = "";
      message = `Container ${container.name} definition changed`;
      // A changed spec is applied by restarting, whatever the restart policy says.
      restart = true;
    } else if (probe === "LivenessProbe") {
      reason = probe;
      message = `Container ${container.name} failed liveness probe`;
    } else if (probe === "StartupProbe") {
      reason = probe;
      message = `Container ${container.name} failed startup probe`;
    } else {
      keepCount++;
      continue;
    }
    if (restart) {
      message += ", will be restarted";
      actions.containersToStart.push(container.name);
    }
    actions.containersToKill.set(current.id, { name: container.name, reason, message });
  }

  if (keepCount === 0 && actions.containersToStart.length === 0) {
    // Nothing runs and nothing will: stop the sandbox too.
    actions.killPod = true;
  }
  return actions;
}

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

interface InitProgress {
  /** Status of the failed init container (when one failed). */
  lastStatus?: RuntimeContainerStatus;
  /** Init container to run next. */
  next?: string;
  /** All init containers succeeded (or app containers already run). */
  done: boolean;
}

/** Upstream `findNextInitContainerToRun`. */
export function findNextInitContainer(pod: V1Pod, status: RuntimePodStatus): InitProgress {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return { done: true };
  // A running app container proves initialisation finished, even if the init containers'
  // records were garbage-collected since: re-running them would be wrong.
  for (const c of pod.spec?.containers ?? []) {
    if (findContainerStatus(status, c.name)?.state === "running") return { done: true };
  }
  for (let i = inits.length - 1; i >= 0; i--) {
    const s = findContainerStatus(status, inits[i].name);
    if (s && isInitContainerFailed(s)) return { lastStatus: s, next: inits[i].name, done: false };
  }
  for (let i = inits.length - 1; i >= 0; i--) {
    const s = findContainerStatus(status, inits[i].name);
    if (!s) continue;
    if (s.state === "running") return { done: false };
    if (s.state === "exited") {
      if (i === inits.length - 1) return { done: true };
      return { next: inits[i + 1].name, done: false };
    }
  }
  return { next: inits[0].name, done: false };
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
  const policy = pod.spec?.restartPolicy ?? "Always";
  if (policy === "Never") return false;
  if (policy === "OnFailure" && (s.exitCode ?? 0) === 0) return false;
  return true;
}

export function shouldRestartOnFailure(pod: V1Pod): boolean {
  return pod.spec?.restartPolicy !== "Never";
}

function containerSucceeded(c: V1Container, status: RuntimePodStatus): boolean {
  const s = findContainerStatus(status, c.name);
  // Only a clean exit counts; upstream also counts created/unknown (exit code 0 by default).
  return s?.state === "exited" && (s.exitCode ?? 0) === 0;
}
