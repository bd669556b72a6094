/**
 * Stopping and removing containers and sandboxes (kubelet's `killContainer`, `KillPod` and the
 * removal half of its container GC). Stops are graceful: the preStop hook runs first and its
 * time comes off the grace period, then the runtime sends the stop signal and SIGKILL at the
 * deadline. In a pod with sidecars the stop signals follow the termination order.
 */
import { podObjectRef } from "../events/mod.ts";
import type { LogLinks } from "./log_links.ts";
import type {
  V1Container,
  V1ContainerPort,
  V1LifecycleHandler,
  V1Pod,
} from "@kubernetes/client-node";
import type { RuntimeService } from "../cri/types.ts";
import { DenoletError, isKind, NotFoundError, RuntimeUnavailableError } from "../util/errors.ts";
import { realClock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { KillReason } from "./_pod_actions.ts";
import { ANNOTATION_CONTAINER_PORTS, parseContainerLabels } from "./_labels.ts";
import { type HookDeps, type HookTarget, runPreStopHook, sandboxIPOf } from "./_lifecycle.ts";
import { TerminationOrder } from "./_termination_order.ts";
import type { RunningPod } from "./types.ts";

/** Upstream `minimumGracePeriodInSeconds`: every container gets at least this long to stop. */
export const MIN_GRACE_PERIOD_SECONDS = 2;
/** API default of `terminationGracePeriodSeconds`. */
export const DEFAULT_GRACE_PERIOD_SECONDS = 30;

export interface KillDeps extends HookDeps {
  runtime: RuntimeService;
  logger: Logger;
  /** The CRI client's per-call deadline; a stop may take the grace period plus this. */
  runtimeRequestTimeoutMs: number;
  /** The /var/log/containers links, removed with their containers. */
  logLinks?: LogLinks;
}

/** A preStop handler and what it needs to run: the pod's names and the container's ports. */
export interface PreStopSpec {
  handler: V1LifecycleHandler;
  pod: HookTarget["pod"];
  container: HookTarget["container"];
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

/**
 * The preStop hook of `container` of `pod`, or null when there is none or no time for it
 * (upstream skips the hook when the grace period before the minimum is 0: force deletion).
 */
export function preStopFromSpec(
  pod: V1Pod,
  container: V1Container | undefined,
  opts: { override?: number } = {},
): PreStopSpec | null {
  const handler = container?.lifecycle?.preStop;
  if (!handler || !container) return null;
  const raw = opts.override ?? pod.metadata?.deletionGracePeriodSeconds ??
    pod.spec?.terminationGracePeriodSeconds ?? DEFAULT_GRACE_PERIOD_SECONDS;
  if (raw <= 0) return null;
  return { handler, pod: pod.metadata ?? {}, container };
}

export interface StopContainerOptions {
  gracePeriodSeconds: number;
  name: string;
  /** Why; the Killing event's message (default "Stopping container <name>"). */
  message?: string;
  /** Whose container, for the Killing event; no event without it. */
  pod?: { name?: string; namespace?: string; uid?: string };
  /**
   * The preStop hook to run first; null for none. Undefined: read it back from the container's
   * annotations (callers that have only the container id).
   */
  preStop?: PreStopSpec | null;
  /**
   * Waits, after the preStop hook, until it is this container's turn to get the stop signal
   * (termination order), for at most the grace period left; resolves the seconds waited.
   */
  turn?: (graceSeconds: number) => Promise<number>;
  signal?: AbortSignal;
}

/**
 * Stops one container: preStop hook (at most the grace period; what it used is taken off),
 * the wait for its turn (likewise), then CRI StopContainer with what is left of the grace
 * period, at least 2 s. A container already gone counts as stopped.
 */
export async function stopContainer(
  deps: KillDeps,
  id: string,
  opts: StopContainerOptions,
): Promise<void> {
  const { signal } = opts;
  let grace = opts.gracePeriodSeconds;
  const preStop = opts.preStop === undefined
    ? (await restoreFromAnnotations(deps, id, signal))?.preStop
    : opts.preStop;
  if (preStop) {
    const elapsed = await runPreStopHook(deps, preStop.handler, {
      pod: preStop.pod,
      container: preStop.container,
      containerId: id,
      podIP: () => sandboxIPOf(deps.runtime, id, signal),
      gracePeriodSeconds: grace,
      logger: deps.logger,
      signal,
    });
    grace -= elapsed;
  }
  if (opts.turn && grace > 0) grace -= await opts.turn(grace);
  grace = Math.max(grace, MIN_GRACE_PERIOD_SECONDS);
  // reason=Killing is the upstream event reason, so log searches work the same.
  deps.logger.info("Killing container with a grace period", {
    reason: "Killing",
    container: opts.name,
    containerId: id,
    gracePeriod: grace,
    message: opts.message,
  });
  if (opts.pod) {
    deps.events?.event(
      podObjectRef({ metadata: opts.pod }, { name: opts.name }),
      "Normal",
      "Killing",
      opts.message || `Stopping container ${opts.name}`,
    );
  }
  try {
    await deps.runtime.stopContainer(id, grace, {
      signal,
      // The runtime waits up to the grace period before SIGKILL; the call must outlive that.
      timeoutMs: grace * 1000 + deps.runtimeRequestTimeoutMs,
    });
  } catch (err) {
    if (isKind(err, NotFoundError)) return;
    throw new DenoletError(`Cannot stop container "${opts.name}" (${id})`, { cause: err });
  }
}

/**
 * Stops every non-exited container of the pod, then every sandbox. Containers stop in
 * parallel, except that in a pod with sidecars (upstream `killContainersWithSyncResult`) a
 * sidecar gets its stop signal only once the app containers and the sidecars after it in the
 * spec have stopped, each wait bounded by what is left of its grace period. Without a pod (an
 * orphan) the grace period comes from each container's annotation. Throws one error after
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
  const order = TerminationOrder.needed(pod)
    ? new TerminationOrder(pod, live.map((c) => c.name))
    : undefined;
  const clock = deps.clock ?? realClock;
  const stopOne = async (c: RunningPod["containers"][number]) => {
    const spec = pod?.spec?.containers?.find((s) => s.name === c.name) ??
      pod?.spec?.initContainers?.find((s) => s.name === c.name);
    const override = opts.gracePeriodSeconds;
    const how = pod
      ? {
        grace: gracePeriodFor(pod, spec, { override }),
        preStop: preStopFromSpec(pod, spec, { override }),
      }
      : await restoreFromAnnotations(deps, c.id, signal, override);
    if (how === undefined) return; // vanished meanwhile
    await stopContainer(deps, c.id, {
      gracePeriodSeconds: how.grace,
      name: c.name,
      pod: { name: running.name, namespace: running.namespace, uid: running.uid },
      preStop: how.preStop,
      turn: order && ((grace) => order.waitForTurn(c.name, grace, { clock, signal })),
      signal,
    });
  };
  const results = await Promise.allSettled(live.map(async (c) => {
    try {
      await stopOne(c);
    } finally {
      // Released even when the stop failed: waiting longer for it would not help the others.
      order?.stopped(c.name);
    }
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

/**
 * Upstream `restoreSpecsFromContainerLabels`: the grace period and preStop hook of a container
 * whose pod spec is unknown (an orphan), from its annotations. Undefined when it is gone.
 */
async function restoreFromAnnotations(
  deps: KillDeps,
  id: string,
  signal: AbortSignal | undefined,
  override?: number,
): Promise<{ grace: number; preStop: PreStopSpec | null } | undefined> {
  let s;
  try {
    s = await deps.runtime.containerStatus(id, { signal });
  } catch (err) {
    if (isKind(err, NotFoundError)) return undefined;
    throw err;
  }
  const annotations = s.annotations ?? {};
  const info = parseContainerLabels(s.labels ?? {}, annotations);
  // Upstream falls back to the minimum when nothing is known about the pod.
  const raw = override ?? info.deletionGracePeriodSeconds ?? info.terminationGracePeriodSeconds ??
    MIN_GRACE_PERIOD_SECONDS;
  const grace = Math.max(raw, MIN_GRACE_PERIOD_SECONDS);
  if (info.preStopError) {
    deps.logger.warn("Cannot restore the preStop hook; stopping without it", {
      container: info.containerName,
      containerId: id,
      err: info.preStopError,
    });
  }
  if (!info.preStop || raw <= 0) return { grace, preStop: null };
  return {
    grace,
    preStop: {
      handler: info.preStop,
      pod: { name: info.podName, namespace: info.podNamespace, uid: info.podUid },
      container: { name: info.containerName, ports: parsePorts(annotations) },
    },
  };
}

function parsePorts(annotations: Record<string, string>): V1ContainerPort[] | undefined {
  const text = annotations[ANNOTATION_CONTAINER_PORTS];
  if (text === undefined) return undefined;
  try {
    const ports = JSON.parse(text);
    return Array.isArray(ports) ? ports : undefined;
  } catch {
    // Only named httpGet ports need them; a numeric port still works without.
    return undefined;
  }
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
  await deps.logLinks?.remove(ids.containers.filter((_, i) => removed[i].status === "fulfilled"));
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
