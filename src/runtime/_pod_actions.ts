/**
 * What one sync must do for a pod, computed from the desired spec and the runtime's view
 * (kubelet's `computePodActions` and `computeInitContainerActions`). Pure: no I/O, no clock.
 * Back-off is decided later, when a start is attempted (upstream `doBackOff`), because it needs
 * the per-container history.
 *
 * Sidecars are init containers with `restartPolicy: Always`: they start in spec order with the
 * other init containers, the next one starts once a sidecar has started (startup probe passed),
 * they are restarted whatever the pod's restart policy, and they never keep a pod alive on
 * their own.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimePodStatus } from "./types.ts";
import { containerHash } from "./_labels.ts";
import {
  noResize,
  podLevelResized,
  type ResizeActions,
  resizeKeeps,
  type ResizeView,
  startingResized,
} from "./_resize_actions.ts";
import { computeInitContainerActions } from "./_init_container_actions.ts";
import {
  containerSucceeded,
  findContainerStatus,
  hasAnyRegularContainerCreated,
  podSandboxChanged,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
} from "./_pod_state_checks.ts";

export {
  findContainerStatus,
  hasAnyRegularContainerCreated,
  isInitContainerFailed,
  podSandboxChanged,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
} from "./_pod_state_checks.ts";

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
  /**
   * Init containers (regular and sidecars) to start, in spec order: the next one of the
   * initialisation, and sidecars to restart.
   */
  initContainersToStart: string[];
  /** Names of app containers to start, in spec order. */
  containersToStart: string[];
  /**
   * Names of ephemeral containers to start (`kubectl debug`): those never created. They start
   * even while initialisation is under way and are never restarted.
   */
  ephemeralContainersToStart: string[];
  /** Running container instances to stop, by container id. */
  containersToKill: Map<string, ContainerToKill>;
  /** In-place resize: containers to update and whether the pod cgroup follows. */
  resize: ResizeActions;
}

/** Result of a liveness or startup probe that decided the container must be restarted. */
export type ProbeFailure = "LivenessProbe" | "StartupProbe";

export interface ComputePodActionsOptions {
  /** Probe verdict per running container id; undefined when healthy or not probed. */
  probeFailure?: (containerId: string) => ProbeFailure | undefined;
  /**
   * Whether the startup probe of this running container instance has succeeded. Asked only
   * for sidecars with a startup probe: the next init container waits until it has. Without it
   * (no prober) a startup probe never holds anything up.
   */
  startupSucceeded?: (containerId: string) => boolean;
  /**
   * What the runtime was last told of each container's resources (the actuated state); without
   * it no resize is computed.
   */
  resize?: ResizeView;
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
    initContainersToStart: [],
    containersToStart: [],
    ephemeralContainersToStart: [],
    containersToKill: new Map(),
    resize: noResize(),
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
    // A run-once container (OnFailure, its own policy first) that succeeded is not run again.
    const toStart = containers
      .filter((c) =>
        !((c.restartPolicy ?? spec?.restartPolicy) === "OnFailure" && containerSucceeded(c, status))
      )
      .map((c) => c.name);
    // An app container that ever ran proves initialisation was done; with nothing left to
    // run, a new sandbox would only bring the sidecars back.
    if (toStart.length === 0 && hasAnyRegularContainerCreated(pod, status)) {
      actions.createSandbox = false;
      return actions;
    }
    // A new sandbox starts from scratch: initialisation runs again from the first init container.
    if (initContainers.length > 0) {
      actions.initContainersToStart = [initContainers[0].name];
      return actions;
    }
    actions.containersToStart = toStart;
    return actions;
  }

  // In a sandbox that stays (a new one drops them: they were meant for the old processes).
  actions.ephemeralContainersToStart = (spec?.ephemeralContainers ?? [])
    .filter((c) => !findContainerStatus(status, c.name))
    .map((c) => c.name);
  const initialized = computeInitContainerActions(pod, { status, actions, opts });
  if (actions.killPod) actions.ephemeralContainersToStart = [];
  // Initialisation failed or is still under way: app containers wait.
  if (actions.killPod || !initialized) return actions;

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
    // A probe failure restarts by the container's own policy when it has one (not its rules,
    // which are about exit codes), else the pod's.
    let restart = container.restartPolicy
      ? container.restartPolicy !== "Never"
      : shouldRestartOnFailure(pod);
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
    } else if (!resizeKeeps(pod, { container, current, actions, opts })) {
      // Restarted for its resize policy: killed and queued to start with the new resources.
      continue;
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
    // Nothing runs and nothing will: stop the sandbox too. Sidecars alone do not keep a pod
    // alive, so none is restarted (a Job-like pod ends with its app containers); nor do
    // ephemeral containers.
    actions.killPod = true;
    actions.initContainersToStart = [];
    actions.ephemeralContainersToStart = [];
  }
  if (opts.resize) {
    const r = actions.resize;
    r.updatePodLevelResources = podLevelResized(pod, opts.resize);
    // A container that starts with resources changed while it was down: the pod cgroup first.
    if (!r.updatePodLevelResources && !r.updatePodResources) {
      r.updatePodResources = startingResized(pod, actions.containersToStart, opts.resize);
    }
  }
  return actions;
}
