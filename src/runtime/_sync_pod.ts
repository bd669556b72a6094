/**
 * One reconcile step for a pod (upstream `SyncPod`): compute actions, kill what must go, prune
 * dead instances, create the sandbox, set up volumes, start init containers (the next one of
 * the initialisation, sidecars to restart) one by one in spec order, then the app containers
 * all at once.
 */
import { type EventRecorder, podObjectRef } from "../events/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { PodSandboxConfig, RuntimeService } from "../cri/types.ts";
import { podDir, type VolumeManager, VolumeProcessingError } from "../volumes/mod.ts";
import type { Backoff } from "../util/backoff.ts";
import { isKind, NotSyncedError, RuntimeUnavailableError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { ImagePuller } from "./_image_puller.ts";
import type { KillDeps } from "./_kill.ts";
import { killStep, prune } from "./_kill_step.ts";
import { createSandbox } from "./_create_sandbox.ts";
import { startContainers, startEphemerals } from "./_start_containers.ts";
import { computePodActions, type PodActions, type ProbeFailure } from "./_pod_actions.ts";
import { PodPullSecrets, type PullSecretReader } from "./_pull_secrets.ts";
import { buildSandboxConfig, type SandboxConfigOptions } from "./_sandbox_config.ts";
import { podUserNamespace, type PodUserNamespaces } from "./_userns.ts";
import type { MountedVolumes, NodeConfigOptions, StartDeps } from "./_start.ts";
import type { StartGate } from "./_start_gate.ts";
import type { LogLinks } from "./log_links.ts";
import type { RuntimePodStatus, SyncPodResult, SyncStepError } from "./types.ts";
import type { ResizeActions, ResizeView } from "./_resize_actions.ts";
import type { ResizeInput } from "./_resize.ts";

export interface SyncDeps {
  runtime: RuntimeService;
  volumes: VolumeManager;
  puller: ImagePuller;
  crashBackoff: Backoff;
  /** Per-call deadline of the CRI client; stops get the grace period on top. */
  runtimeRequestTimeoutMs: number;
  sandboxOptions: SandboxConfigOptions;
  /** Container config parts that do not depend on the pod (node name, log root, ...). */
  nodeConfig: Omit<NodeConfigOptions, "podDir">;
  /** --root-dir; unset skips the managed /etc/hosts and termination-message files. */
  rootDir?: string;
  probeFailure?: (containerId: string) => ProbeFailure | undefined;
  /** Startup probe success by container id; gates the init container after a sidecar. */
  startupSucceeded?: (containerId: string) => boolean;
  /** Time for lifecycle hooks (sleep handlers, preStop deadlines). */
  clock?: Clock;
  /** Pod and container events (upstream reasons); none by default. */
  events?: EventRecorder;
  /** Limits sandbox creations in flight, first come first served; unlimited when unset. */
  sandboxGate?: StartGate;
  /** The pod's RuntimeClass handler; throws for a class that cannot be resolved. */
  runtimeHandler?: (pod: V1Pod) => string;
  /** Image pull secrets (API mode); standalone, none can be read. */
  pullSecrets?: PullSecretReader;
  /** Why an ephemeral container cannot start here, or undefined. */
  ephemeralProblem?: (pod: V1Pod, name: string) => string | undefined;
  /** The /var/log/containers links log shippers tail. */
  logLinks?: LogLinks;
  /** The pods' user namespaces; without it a pod with hostUsers: false cannot be created. */
  userns?: PodUserNamespaces;
  /** Whether the pod's runtime handler makes mounts recursively read-only; default not. */
  recursiveReadOnlyMounts?: (pod: V1Pod) => boolean;
  /** Records a container's resources as actuated when it is created (in-place resize). */
  actuate?: (pod: V1Pod, container: V1Container) => Promise<void>;
  /** In-place resize: what was actuated, and carrying a resize out. None: nothing resizes. */
  resize?: { view: ResizeView; run: (input: ResizeInput) => Promise<void> };
}

/** The events of pod-level step failures (container-level ones are recorded where they happen). */
const POD_STEP_EVENTS: Record<string, string> = {
  FailedMount: "FailedMount",
  CreatePodSandboxError: "FailedCreatePodSandBox",
  ConfigPodSandboxError: "FailedCreatePodSandBox",
  KillPodSandboxError: "FailedKillPod",
};

export interface SyncInput {
  pod: V1Pod;
  status: RuntimePodStatus;
  /** The pod's logger (fields pod and uid). */
  log: Logger;
  hostIP?: string;
  signal?: AbortSignal;
}

/** See `PodRuntime.syncPod`. */
export async function syncPod(deps: SyncDeps, input: SyncInput): Promise<SyncPodResult> {
  const { pod, status, log, signal } = input;
  const killDeps: KillDeps = {
    runtime: deps.runtime,
    logger: log,
    runtimeRequestTimeoutMs: deps.runtimeRequestTimeoutMs,
    clock: deps.clock,
    events: deps.events,
    logLinks: deps.logLinks,
  };
  deps.crashBackoff.gc();
  const actions = computePodActions(pod, status, {
    probeFailure: deps.probeFailure,
    startupSucceeded: deps.startupSucceeded,
    resize: deps.resize?.view,
  });
  log.debug(3, "Computed pod actions", { actions: describe(actions) });
  // Whether this sync asks the runtime for any change (the PLEG then looks again soon).
  const acted = actions.killPod || actions.createSandbox || actions.containersToKill.size > 0 ||
    actions.initContainersToStart.length > 0 || actions.containersToStart.length > 0 ||
    actions.ephemeralContainersToStart.length > 0 || resizing(actions.resize);
  const errors: SyncStepError[] = [];
  // Container-level failures become status; an unreachable runtime or an abort ends the sync.
  const stepFailed = (err: unknown, step: Omit<SyncStepError, "message">, message?: string) => {
    if (signal?.aborted) throw signal.reason;
    if (isKind(err, RuntimeUnavailableError)) throw err;
    const e = { ...step, message: message ?? errorMessage(err) };
    log.warn("Sync step failed", { ...e });
    errors.push(e);
    const reason = step.container === undefined ? POD_STEP_EVENTS[step.reason] : undefined;
    if (reason) {
      // FailedMount carries the volume's own message ("MountVolume.SetUp failed for ..."), or
      // the kubelet's for volumes that could not be processed (a claim not bound, ...).
      const own = reason === "FailedMount" && !isKind(err, VolumeProcessingError);
      const text = own ? errorMessage(err) : e.message;
      deps.events?.event(podObjectRef(pod), "Warning", reason, text);
    }
  };

  if (!(await killStep(killDeps, { pod, status, actions }, { log, signal, stepFailed }))) {
    return { errors, acted };
  }
  await prune(killDeps, { pod, status, newSandbox: actions.createSandbox }, signal);

  let sandboxConfig: PodSandboxConfig;
  let podDirPath: string | undefined;
  try {
    // Every sync, as upstream's NamespacesForPod: the pod keeps the range it was given.
    const userns = await podUserNamespace(deps.userns, pod, {
      handler: () => deps.runtimeHandler?.(pod) ?? "",
    });
    sandboxConfig = buildSandboxConfig(pod, actions.attempt, { ...deps.sandboxOptions, userns });
    const rootDir = deps.rootDir;
    podDirPath = rootDir === undefined ? undefined : podDir(rootDir, pod.metadata?.uid ?? "");
  } catch (err) {
    if (isKind(err, NotSyncedError)) {
      // The RuntimeClasses' first list is not in: retried once it is, without an event.
      stepFailed(err, { reason: "RuntimeClassesNotSynced" });
      return { errors, acted };
    }
    // Upstream createPodSandbox generates the config first: a config that cannot be made is a
    // sandbox that cannot be created, with that event; for a running sandbox, a config error.
    if (actions.createSandbox) {
      stepFailed(
        err,
        { reason: "CreatePodSandboxError" },
        `Failed to create pod sandbox: ${errorMessage(err)}`,
      );
    } else {
      stepFailed(err, { reason: "ConfigPodSandboxError" });
    }
    return { errors, acted };
  }
  let sandboxId = actions.sandboxId;
  let podIPs = status.ips;
  if (actions.createSandbox) {
    const created = await createSandbox(deps.runtime, sandboxConfig, {
      log,
      signal,
      stepFailed,
      gate: deps.sandboxGate,
      handler: () => deps.runtimeHandler?.(pod) ?? "",
    });
    if (!created) return { errors, acted };
    sandboxId = created.id;
    if (pod.spec?.hostNetwork !== true) podIPs = created.ips;
  }

  // Every sync, as upstream's WaitForAttachAndMount: running containers see configMap,
  // secret, token and downward API updates (the writes happen only when content changed).
  let volumes: MountedVolumes;
  try {
    volumes = await deps.volumes.setUpPod(pod, { signal });
  } catch (err) {
    stepFailed(
      err,
      { reason: "FailedMount" },
      `Unable to attach or mount volumes: ${errorMessage(err)}`,
    );
    return { errors, acted };
  }

  // Step 6 upstream: resize the pod and its running containers, before anything starts.
  let resizeError: string | undefined;
  const resized = deps.resize !== undefined && resizing(actions.resize);
  if (resized) {
    try {
      await deps.resize!.run({ pod, sandboxId, actions: actions.resize, signal });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (isKind(err, RuntimeUnavailableError)) throw err;
      resizeError = errorMessage(err);
      log.warn("Pod resize failed", { err: resizeError });
    }
  }
  const done = (): SyncPodResult => {
    if (!resized) return { errors, acted };
    return resizeError === undefined
      ? { errors, acted, resized }
      : { errors, acted, resized, resizeError };
  };

  const inits = actions.initContainersToStart;
  const ephemerals = actions.ephemeralContainersToStart;
  if (inits.length === 0 && actions.containersToStart.length === 0 && ephemerals.length === 0) {
    return done();
  }

  const startDeps: StartDeps = {
    runtime: deps.runtime,
    puller: deps.puller,
    crashBackoff: deps.crashBackoff,
    configOptions: {
      ...deps.nodeConfig,
      podDir: podDirPath,
      recursiveReadOnlyMounts: () => deps.recursiveReadOnlyMounts?.(pod) ?? false,
    },
    clock: deps.clock,
    runtimeRequestTimeoutMs: deps.runtimeRequestTimeoutMs,
    events: deps.events,
    logLinks: deps.logLinks,
    actuate: deps.actuate,
  };
  const pullSecrets = new PodPullSecrets(pod, { reader: deps.pullSecrets, log });
  const target = {
    pod,
    status,
    sandboxId,
    sandboxConfig,
    podIPs,
    hostIP: input.hostIP,
    volumes,
    pullSecrets,
    logger: log,
    signal,
  };
  // Ephemeral containers first (upstream step 7): a debugging session must not wait for an
  // init container that fails.
  await startEphemerals({ ...target, ephemerals }, { deps, startDeps, errors });
  await startContainers({ ...target, inits, apps: actions.containersToStart }, {
    startDeps,
    errors,
  });
  pullSecrets.reportMissing(errors, deps.events);
  return done();
}

/** What syncPod hands each step: the pod's logger, the abort signal, where failures go. */
export interface StepContext {
  log: Logger;
  signal?: AbortSignal;
  stepFailed: (err: unknown, step: Omit<SyncStepError, "message">, message?: string) => void;
}

/** Whether the actions resize anything. */
function resizing(r: ResizeActions): boolean {
  return r.containersToUpdate.memory.length > 0 || r.containersToUpdate.cpu.length > 0 ||
    r.updatePodResources || r.updatePodLevelResources;
}

function describe(a: PodActions) {
  return {
    killPod: a.killPod,
    createSandbox: a.createSandbox,
    sandboxId: a.sandboxId,
    attempt: a.attempt,
    init: a.initContainersToStart,
    start: a.containersToStart,
    ephemeral: a.ephemeralContainersToStart,
    kill: [...a.containersToKill.values()].map((k) => k.name),
    update: {
      memory: a.resize.containersToUpdate.memory.map((u) => u.name),
      cpu: a.resize.containersToUpdate.cpu.map((u) => u.name),
    },
    updatePodResources: a.resize.updatePodResources,
    updatePodLevelResources: a.resize.updatePodLevelResources,
  };
}
