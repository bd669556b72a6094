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
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { RuntimeContainerStatus, RuntimePodStatus } from "./types.ts";
import { containerHash } from "./_labels.ts";
import { isRestartableInit } from "../util/sidecar.ts";
import { containerShouldRestart } from "../util/restart_policy.ts";
import {
  computeResizeAction,
  noResize,
  podLevelResized,
  type ResizeActions,
  type ResizeView,
  startingResized,
} from "./_resize_actions.ts";

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
  const initialized = computeInitContainerActions(pod, status, actions, opts);
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
    } else if (!resizeKeeps(pod, container, current, actions, opts)) {
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

/** computePodResizeAction for a running container; false when it restarts for its policy. */
function resizeKeeps(
  pod: V1Pod,
  container: V1Container,
  current: RuntimeContainerStatus,
  actions: PodActions,
  opts: ComputePodActionsOptions,
  init = false,
): boolean {
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

/**
 * Upstream `computeInitContainerActions`: fills in which init containers to start (and which
 * sidecars to kill first) and tells whether the pod is initialised, so app containers may run.
 *
 * The walk goes from the last init container back to the first, because the runtime may have
 * removed the records of early, finished ones: the furthest one that has a record tells how
 * far initialisation got. A sidecar counts as done once it has started; every sidecar before
 * that point is kept running (restarted when it exited, replaced when its spec changed or a
 * probe failed).
 */
function computeInitContainerActions(
  pod: V1Pod,
  status: RuntimePodStatus,
  actions: PodActions,
  opts: ComputePodActionsOptions,
): boolean {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return true;
  // A created or running app container proves initialisation finished, even if the init
  // containers' records were garbage-collected since: only sidecars must be brought back. An
  // exited one proves nothing: after a reboot every container is exited and the new sandbox
  // must be initialised again.
  let initialized = (pod.spec?.containers ?? []).some((c) => {
    const state = findContainerStatus(status, c.name)?.state;
    return state === "created" || state === "running";
  });
  /** Some init container at or after the current one has run, so the current one did too. */
  let reached = initialized;
  const toStart: string[] = [];
  const kill = (s: RuntimeContainerStatus, reason: KillReason, message: string) =>
    actions.containersToKill.set(s.id, { name: s.name, reason, message });

  for (let i = inits.length - 1; i >= 0; i--) {
    const c = inits[i];
    const sidecar = isRestartableInit(c);
    const last = i === inits.length - 1;
    const s = findContainerStatus(status, c.name);
    if (!s) {
      // A sidecar whose record is gone after initialisation got past it: start it again.
      if (reached && sidecar) toStart.push(c.name);
      continue;
    }
    // Past initialisation only sidecars need looking after.
    if (reached && !sidecar) continue;

    if (s.state === "created") {
      // Creating and starting are one step; a container left created failed to start.
      toStart.push(c.name);
    } else if (s.state === "running") {
      if (sidecar) {
        runningSidecar(c, s, { last, reached, next: inits[i + 1]?.name });
      } else {
        // A regular init container still running: wait for it to finish. It resizes in place
        // (InPlacePodVerticalScalingInitContainers); validation keeps RestartContainer off it.
        resizeKeeps(pod, c, s, actions, opts, true);
      }
    } else if (s.state === "exited") {
      if (sidecar) toStart.push(c.name);
      else if (isInitContainerFailed(s)) {
        if (!shouldContainerBeRestarted(c, pod, status)) return failPod();
        toStart.push(c.name);
      } else if (last) initialized = true;
      else toStart.push(inits[i + 1].name);
    } else {
      // Unknown: it may still run, so it is stopped before its replacement starts.
      if (!sidecar && !shouldRestartOnFailure(pod)) return failPod();
      kill(s, "Unknown", `Init container is in "unknown" state, try killing it before restart`);
      toStart.push(c.name);
    }
    reached = true;
  }
  // No init container has run yet.
  if (!reached) toStart.push(inits[0].name);
  actions.initContainersToStart = toStart.reverse();
  return initialized;

  function failPod(): false {
    actions.killPod = true;
    actions.initContainersToStart = [];
    return false;
  }

  function runningSidecar(
    c: V1Container,
    s: RuntimeContainerStatus,
    at: { last: boolean; reached: boolean; next?: string },
  ): void {
    const probe = opts.probeFailure?.(s.id);
    if (c.startupProbe !== undefined && !(opts.startupSucceeded?.(s.id) ?? true)) {
      // Not started yet: what follows waits. A failed startup probe restarts it.
      if (probe === "StartupProbe") {
        kill(s, "StartupProbe", `Init container ${c.name} failed startup probe`);
        toStart.push(c.name);
      }
      return;
    }
    if (at.last) initialized = true;
    else if (!at.reached && at.next !== undefined) toStart.push(at.next);
    if (s.hash !== containerHash(c)) {
      kill(s, "", `Init container ${c.name} definition changed`);
      toStart.push(c.name);
    } else if (probe === "LivenessProbe") {
      kill(s, "LivenessProbe", `Init container ${c.name} failed liveness probe`);
      toStart.push(c.name);
    } else if (opts.resize) {
      computeResizeAction(pod, c, s, {
        view: opts.resize,
        actions: actions.resize,
        kill: (message) => kill(s, "", message),
        restart: () => toStart.push(c.name),
      });
    }
  }
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

function containerSucceeded(c: V1Container, status: RuntimePodStatus): boolean {
  const s = findContainerStatus(status, c.name);
  // Only a clean exit counts; upstream also counts created/unknown (exit code 0 by default).
  return s?.state === "exited" && (s.exitCode ?? 0) === 0;
}
