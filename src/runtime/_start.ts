/**
 * Starting one container of a pod (kubelet's `start` helper in SyncPod plus `startContainer`):
 * crash-loop back-off, image, config, CreateContainer, StartContainer, postStart hook. Each
 * failure becomes a `SyncStepError` with the reason upstream shows in the container's waiting
 * state.
 */
import { posix } from "node:path";
import { podObjectRef } from "../events/mod.ts";
import type { LogLinks } from "./log_links.ts";
import type { V1Container, V1LifecycleHandler, V1Pod } from "@kubernetes/client-node";
import type { PodSandboxConfig, RuntimeService } from "../cri/types.ts";
import type { VolumeManager } from "../volumes/mod.ts";
import type { Backoff } from "../util/backoff.ts";
import { findCause, ImagePullError, isKind, RuntimeUnavailableError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import {
  buildContainerConfig,
  type ContainerConfigOptions,
  needsImageUser,
} from "./_container_config.ts";
import type { EnsuredImage, ImagePuller } from "./_image_puller.ts";
import type { PodPullSecrets } from "./_pull_secrets.ts";
import { containerHash } from "./_labels.ts";
import { gracePeriodFor, preStopFromSpec, stopContainer } from "./_kill.ts";
import { type HookDeps, runLifecycleHook } from "./_lifecycle.ts";
import { findContainerStatus } from "./_pod_actions.ts";
import type { RuntimePodStatus, SyncStepError } from "./types.ts";

/** Upstream crash-loop back-off: 10 s initial, doubling, capped at `MaxContainerBackOff`. */
export const CRASH_BACKOFF_INITIAL_MS = 10_000;
export const CRASH_BACKOFF_MAX_MS = 300_000;

export type MountedVolumes = Awaited<ReturnType<VolumeManager["setUpPod"]>>;

/** Per-node parts of the container config; the per-container parts come from the target. */
export type NodeConfigOptions = Omit<
  ContainerConfigOptions,
  | "restartCount"
  | "podIPs"
  | "hostIP"
  | "volumes"
  | "imageRef"
  | "imageUser"
  | "userns"
  | "logger"
  | "signal"
>;

/** Upstream default of --runtime-request-timeout, for the stop after a failed postStart. */
const DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS = 120_000;

export interface StartDeps extends HookDeps {
  runtime: RuntimeService;
  puller: ImagePuller;
  crashBackoff: Backoff;
  configOptions: NodeConfigOptions;
  /** The CRI client's per-call deadline; default 2 minutes. */
  runtimeRequestTimeoutMs?: number;
  /** The /var/log/containers links log shippers tail; none when unset. */
  logLinks?: LogLinks;
  /**
   * Records the resources a container is created with as actuated (in-place resize); none
   * when unset. Throws when the record cannot be kept (the container is then not created).
   */
  actuate?: (pod: V1Pod, container: V1Container) => Promise<void>;
}

export interface StartTarget {
  pod: V1Pod;
  container: V1Container;
  status: RuntimePodStatus;
  sandboxId: string;
  sandboxConfig: PodSandboxConfig;
  podIPs: string[];
  hostIP?: string;
  volumes: MountedVolumes;
  /** The pod's image pull secrets for this sync. */
  pullSecrets?: PodPullSecrets;
  logger: Logger;
  signal?: AbortSignal;
  /** An ephemeral container's target, resolved: it shares that container's PID namespace. */
  pidTargetId?: string;
}

/**
 * Starts `target.container`. Resolves with undefined on success or with the step error;
 * rejects only when the runtime is unreachable or the signal aborted.
 */
export async function startContainer(
  deps: StartDeps,
  target: StartTarget,
): Promise<SyncStepError | undefined> {
  const { pod, container, signal } = target;
  const name = container.name;
  const log = target.logger.child({ container: name });
  const isInit = pod.spec?.initContainers?.some((c) => c.name === name) ?? false;
  const ephemeral = pod.spec?.ephemeralContainers?.some((c) => c.name === name) ?? false;
  const ref = podObjectRef(pod, { name, init: isInit, ephemeral });
  const fail = (reason: string, err: unknown, message = errorMessage(err)): SyncStepError => {
    if (signal?.aborted) throw signal.reason;
    if (isKind(err, RuntimeUnavailableError)) throw err;
    log.warn("Cannot start container", { reason, err: message });
    // upstream: "Error: <why>" (an image error names its reason: "Error: ErrImagePull").
    const why = reason === "CreateContainerConfigError" || reason === "CreateContainerError" ||
        reason === "RunContainerError"
      ? message
      : reason;
    deps.events?.event(ref, "Warning", "Failed", `Error: ${why}`);
    return { container: name, reason, message };
  };

  const backOff = checkCrashBackOff(deps.crashBackoff, pod, container, target.status);
  if (backOff) {
    log.debug(3, "Back-off restarting failed container", { message: backOff.message });
    deps.events?.event(
      ref,
      "Warning",
      "BackOff",
      `Back-off restarting failed container ${name} in pod ` +
        `${pod.metadata?.name}_${pod.metadata?.namespace}(${pod.metadata?.uid})`,
    );
    return backOff;
  }

  let image: EnsuredImage;
  try {
    image = await deps.puller.ensureImage(pod, container, {
      sandboxConfig: target.sandboxConfig,
      pullSecrets: target.pullSecrets,
      signal,
    });
  } catch (err) {
    const pullErr = findCause(err, ImagePullError);
    if (!pullErr) return fail("ErrImagePull", err);
    return fail(pullErr.reason, err, pullErr.message);
  }

  const previous = findContainerStatus(target.status, name);
  const restartCount = previous
    ? previous.restartCount + 1
    : await restartCountFromLogs(target.sandboxConfig.logDirectory, name);

  let config;
  try {
    // Upstream reads the user on every start. Here the presence check's ImageStatus supplies
    // it when there was one; after a pull the runtime is asked only when the config depends
    // on it, so a plain pod with PullAlways makes no extra CRI call per start.
    const imageUser = image.user ??
      (needsImageUser(pod, container)
        ? await deps.puller.imageUser(image.ref, { signal })
        : undefined);
    config = await buildContainerConfig(pod, container, {
      ...deps.configOptions,
      restartCount,
      podIPs: target.podIPs,
      hostIP: target.hostIP,
      volumes: target.volumes,
      imageRef: image.ref,
      imageUser,
      pidTargetId: target.pidTargetId,
      // The sandbox's user namespace: containers join it, their mounts mapped to its IDs.
      userns: target.sandboxConfig.linux?.securityContext?.namespaceOptions?.usernsOptions,
      logger: log,
      signal,
    });
  } catch (err) {
    return fail("CreateContainerConfigError", err);
  }
  // upstream: "When creating a container, mark the resources as actuated."
  if (deps.actuate && !ephemeral) {
    try {
      await deps.actuate(pod, container);
    } catch (err) {
      return fail("CreateContainerConfigError", err);
    }
  }

  let id: string;
  try {
    id = await deps.runtime.createContainer(target.sandboxId, config, target.sandboxConfig, {
      signal,
    });
  } catch (err) {
    return fail("CreateContainerError", err);
  }
  deps.events?.event(ref, "Normal", "Created", `Created container: ${name}`);
  try {
    await deps.runtime.startContainer(id, { signal });
  } catch (err) {
    return fail("RunContainerError", err);
  }
  log.info("Started container", { containerId: id, restartCount, image: container.image });
  deps.events?.event(ref, "Normal", "Started", `Started container ${name}`);
  const logDir = target.sandboxConfig.logDirectory;
  if (deps.logLinks && logDir && config.logPath) {
    await deps.logLinks.create({
      podName: pod.metadata?.name ?? "",
      podNamespace: pod.metadata?.namespace ?? "",
      containerName: name,
      containerId: id,
    }, posix.join(logDir, config.logPath));
  }
  const postStart = container.lifecycle?.postStart;
  return postStart ? await runPostStart(deps, target, { id, handler: postStart, log }) : undefined;
}

/**
 * Upstream step 4 of `startContainer`: a failed postStart hook kills the container (running its
 * preStop, with the pod's grace period) and the restart policy decides what happens next.
 */
async function runPostStart(
  deps: StartDeps,
  target: StartTarget,
  hook: { id: string; handler: V1LifecycleHandler; log: Logger },
): Promise<SyncStepError | undefined> {
  const { pod, container, signal } = target;
  const { id, log } = hook;
  const podIP = target.podIPs[0] ?? (pod.spec?.hostNetwork ? target.hostIP : undefined);
  try {
    await runLifecycleHook(deps, hook.handler, {
      pod: pod.metadata ?? {},
      container,
      containerId: id,
      podIP: () => Promise.resolve(podIP),
      signal,
    });
    return undefined;
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (isKind(err, RuntimeUnavailableError)) throw err;
    const message = errorMessage(err);
    log.warn("Failed to execute PostStartHook", { containerId: id, err: message });
    // As upstream, not the error itself: it may hold secrets from the handler.
    deps.events?.event(
      podObjectRef(pod, { name: container.name }),
      "Warning",
      "FailedPostStartHook",
      "PostStartHook failed",
    );
    try {
      await stopContainer(
        {
          ...deps,
          logger: target.logger,
          runtimeRequestTimeoutMs: deps.runtimeRequestTimeoutMs ??
            DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS,
        },
        id,
        {
          gracePeriodSeconds: gracePeriodFor(pod, container),
          name: container.name,
          message: "FailedPostStartHook",
          pod: pod.metadata,
          preStop: preStopFromSpec(pod, container),
          signal,
        },
      );
    } catch (killErr) {
      if (signal?.aborted) throw signal.reason;
      if (isKind(killErr, RuntimeUnavailableError)) throw killErr;
      // The next sync sees it running and tries again; the hook's failure is what to report.
      log.warn("Failed to kill container", { containerId: id, err: killErr });
    }
    return { container: container.name, reason: "PostStartHookError", message };
  }
}

/**
 * Upstream `doBackOff`: the newest exited instance's finish time is the event; while the
 * back-off window since then is open, the start is refused with CrashLoopBackOff. Otherwise
 * the window grows for next time (and resets after the container ran 2 × max cleanly).
 */
export function checkCrashBackOff(
  backoff: Backoff,
  pod: V1Pod,
  container: V1Container,
  status: RuntimePodStatus,
): SyncStepError | undefined {
  const dead = status.containers.find((c) => c.name === container.name && c.state === "exited");
  if (!dead) return undefined;
  const key = crashBackoffKey(pod, container);
  const finishedAt = dead.finishedAt ?? dead.createdAt;
  if (backoff.inBackOffSince(key, finishedAt)) {
    const meta = pod.metadata ?? {};
    return {
      container: container.name,
      reason: "CrashLoopBackOff",
      message: `back-off ${
        formatGoDuration(backoff.get(key))
      } restarting failed container=${container.name} pod=${meta.name}_${meta.namespace}(${meta.uid})`,
    };
  }
  backoff.next(key, finishedAt);
  return undefined;
}

/** Upstream `GetStableKey`: changes when the container spec changes, so edits start afresh. */
export function crashBackoffKey(pod: V1Pod, container: V1Container): string {
  const m = pod.metadata ?? {};
  return `${m.name}_${m.namespace}_${m.uid}_${container.name}_${containerHash(container)}`;
}

/** Formats ms like Go's `time.Duration.String()` for whole seconds: "10s", "1m20s", "5m0s". */
export function formatGoDuration(ms: number): string {
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h > 0) return `${h}h${m}m${s}s`;
  if (m > 0) return `${m}m${s}s`;
  return `${s}s`;
}

/**
 * When the runtime lost every instance of a container (e.g. containerd state wiped), continue
 * the count from the newest `<n>.log` so a restart does not overwrite an old log (upstream
 * `calcRestartCountByLogDir`).
 */
export async function restartCountFromLogs(
  podLogDir: string | undefined,
  containerName: string,
): Promise<number> {
  if (!podLogDir) return 0;
  let max = -1;
  try {
    for await (const entry of Deno.readDir(`${podLogDir}/${containerName}`)) {
      const m = /^(\d+)\.log(\..*)?$/.exec(entry.name);
      if (m) max = Math.max(max, Number(m[1]));
    }
  } catch (err) {
    // No directory is the normal case; an unreadable one only costs the log-name continuity.
    if (err instanceof Deno.errors.NotFound) return 0;
    return max + 1;
  }
  return max + 1;
}
