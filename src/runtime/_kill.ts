/**
 * Stopping and removing containers and sandboxes (kubelet's `killContainer`, `KillPod` and the
 * removal half of its container GC). Stops are graceful: the runtime sends the stop signal and
 * SIGKILL at the deadline.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { RuntimeService } from "../cri/types.ts";
import { DenoletError, isKind, NotFoundError, RuntimeUnavailableError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import type { KillReason } from "./_pod_actions.ts";
import { parseContainerLabels } from "./_labels.ts";
import type { RunningPod } from "./types.ts";

/** Upstream `minimumGracePeriodInSeconds`: every container gets at least this long to stop. */
export const MIN_GRACE_PERIOD_SECONDS = 2;
/** API default of `terminationGracePeriodSeconds`. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 30;

export interface KillDeps {
  runtime: RuntimeService;
  logger: Logger;
  /** The CRI client's per-call deadline; a stop may take the grace period plus this. */
  runtimeRequestTimeoutMs: number;
}

export interface KillContainerOptions {
  /** Overrides the pod's grace period (eviction, force deletion). */
  gracePeriodSeconds?: number;
  reason?: KillReason;
  message?: string;
  signal?: AbortSignal;
}

/**
 * Grace period for stopping `container` of `pod` (upstream `setTerminationGracePeriod` plus
 * the override and the minimum): deletion grace, then probe-level grace for probe kills, then
 * the pod's terminationGracePeriodSeconds.
 */
export function gracePeriodFor(
  pod: V1Pod,
  container: V1Container | undefined,
  opts: { override?: number; reason?: KillReason } = {},
): number {
  let grace = opts.override;
  if (grace === undefined) {
    const probe = opts.reason === "LivenessProbe"
      ? container?.livenessProbe
      : opts.reason === "StartupProbe"
      ? container?.startupProbe
      : undefined;
    grace = pod.metadata?.deletionGracePeriodSeconds ??
      probe?.terminationGracePeriodSeconds ??
      pod.spec?.terminationGracePeriodSeconds ??
      DEFAULT_GRACE_PERIOD_SECONDS;
  }
  return Math.max(grace, MIN_GRACE_PERIOD_SECONDS);
}

/** Stops one container; a container that is already gone counts as stopped. */
export async function stopContainer(
  deps: KillDeps,
  id: string,
  opts: { gracePeriodSeconds: number; name: string; message?: string; signal?: AbortSignal },
): Promise<void> {
  deps.logger.info("Killing container with a grace period", {
    container: opts.name,
    containerId: id,
    gracePeriod: opts.gracePeriodSeconds,
    message: opts.message,
  });
  try {
    await deps.runtime.stopContainer(id, opts.gracePeriodSeconds, {
      signal: opts.signal,
      // The runtime waits up to the grace period before SIGKILL; the call must outlive that.
      timeoutMs: opts.gracePeriodSeconds * 1000 + deps.runtimeRequestTimeoutMs,
    });
  } catch (err) {
    if (isKind(err, NotFoundError)) return;
    throw new DenoletError(`Cannot stop container "${opts.name}" (${id})`, { cause: err });
  }
}

/**
 * Stops every non-exited container of the pod in parallel, then every sandbox. Without a pod
 * (an orphan) the grace period comes from each container's annotation. Throws one error after
 * trying everything; its cause is a RuntimeUnavailableError when that was among the failures.
 */
export async function killPod(
  deps: KillDeps,
  pod: V1Pod | undefined,
  running: RunningPod,
  opts: { gracePeriodSeconds?: number; signal?: AbortSignal },
): Promise<void> {
  const { signal } = opts;
  const failures: unknown[] = [];
  const live = running.containers.filter((c) => c.state !== "exited");
  const results = await Promise.allSettled(live.map(async (c) => {
    const spec = pod?.spec?.containers?.find((s) => s.name === c.name) ??
      pod?.spec?.initContainers?.find((s) => s.name === c.name);
    const grace = pod
      ? gracePeriodFor(pod, spec, { override: opts.gracePeriodSeconds })
      : await orphanGracePeriod(deps, c.id, opts);
    if (grace === undefined) return; // vanished meanwhile
    await stopContainer(deps, c.id, { gracePeriodSeconds: grace, name: c.name, signal });
  }));
  for (const r of results) if (r.status === "rejected") failures.push(r.reason);

  const sandboxResults = await Promise.allSettled(running.sandboxes.map(async (s) => {
    try {
      await deps.runtime.stopPodSandbox(s.id, { signal });
    } catch (err) {
      if (isKind(err, NotFoundError)) return;
      throw new DenoletError(`Cannot stop sandbox ${s.id}`, { cause: err });
    }
  }));
  for (const r of sandboxResults) if (r.status === "rejected") failures.push(r.reason);
  if (failures.length > 0) {
    throw summarise(`Cannot kill pod "${running.namespace}/${running.name}"`, failures);
  }
}

async function orphanGracePeriod(
  deps: KillDeps,
  id: string,
  opts: { gracePeriodSeconds?: number; signal?: AbortSignal },
): Promise<number | undefined> {
  if (opts.gracePeriodSeconds !== undefined) {
    return Math.max(opts.gracePeriodSeconds, MIN_GRACE_PERIOD_SECONDS);
  }
  let grace: number | undefined;
  try {
    const s = await deps.runtime.containerStatus(id, { signal: opts.signal });
    const info = parseContainerLabels(s.labels ?? {}, s.annotations ?? {});
    grace = info.deletionGracePeriodSeconds ?? info.terminationGracePeriodSeconds;
  } catch (err) {
    if (isKind(err, NotFoundError)) return undefined;
    throw err;
  }
  // Upstream falls back to the minimum when nothing is known about the pod.
  return Math.max(grace ?? MIN_GRACE_PERIOD_SECONDS, MIN_GRACE_PERIOD_SECONDS);
}

/** Removes containers (in parallel) and then sandboxes; missing ones count as removed. */
export async function removeAll(
  deps: KillDeps,
  ids: { containers: string[]; sandboxes: string[] },
  opts: { what: string; signal?: AbortSignal },
): Promise<void> {
  const { signal } = opts;
  const failures: unknown[] = [];
  const removed = await Promise.allSettled(
    ids.containers.map((id) => ignoreNotFound(deps.runtime.removeContainer(id, { signal }))),
  );
  for (const r of removed) if (r.status === "rejected") failures.push(r.reason);
  const removedSandboxes = await Promise.allSettled(
    ids.sandboxes.map((id) => ignoreNotFound(deps.runtime.removePodSandbox(id, { signal }))),
  );
  for (const r of removedSandboxes) if (r.status === "rejected") failures.push(r.reason);
  if (failures.length > 0) throw summarise(`Cannot remove ${opts.what}`, failures);
}

async function ignoreNotFound(p: Promise<void>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!isKind(err, NotFoundError)) throw err;
  }
}

/** One error for many: the message counts them, the cause is the most telling one. */
function summarise(what: string, failures: unknown[]): DenoletError {
  const cause = failures.find((f) => isKind(f, RuntimeUnavailableError)) ?? failures[0];
  const suffix = failures.length > 1 ? ` (${failures.length} failures)` : "";
  return new DenoletError(`${what}${suffix}`, { cause });
}
