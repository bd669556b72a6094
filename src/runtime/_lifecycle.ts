/**
 * Container lifecycle hooks (pkg/kubelet/lifecycle/handlers.go): run a `postStart` or `preStop`
 * handler — `exec` through CRI ExecSync, `httpGet` with the probes' HTTP GET, `sleep` on the
 * clock — and the preStop deadline of `executePreStopHook`, whose elapsed time is taken off the
 * grace period.
 */
import { type EventRecorder, podObjectRef } from "../events/mod.ts";
import type { V1Container, V1HTTPGetAction, V1LifecycleHandler } from "@kubernetes/client-node";
import type { RuntimeService } from "../cri/types.ts";
import { httpGet, httpGetRequest, kubeUserAgent } from "../prober/mod.ts";
import { type Clock, realClock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";

/** Upstream default of --runtime-request-timeout; bounds an HTTP hook that never answers. */
export const DEFAULT_HOOK_HTTP_TIMEOUT_MS = 120_000;

/** A hook ran and failed; the message is the one upstream shows (PostStartHookError). */
export class LifecycleHookError extends DenoletError {}

export interface HookDeps {
  runtime: RuntimeService;
  /** Where FailedPreStopHook/FailedPostStartHook (and the callers' events) go; none by default. */
  events?: EventRecorder;
  /** Sleep handlers, the HTTP deadline and the preStop deadline; default the real clock. */
  clock?: Clock;
  /** Deadline of one HTTP hook request; default 2 minutes. */
  httpTimeoutMs?: number;
}

/** Who a hook runs for: names for messages, port names for httpGet, the pod IP on demand. */
export interface HookTarget {
  pod: { name?: string; namespace?: string; uid?: string };
  /** The spec (name and ports are all a hook needs; orphans rebuild them from annotations). */
  container: Pick<V1Container, "name" | "ports">;
  containerId: string;
  /** The pod's primary IP, looked up only when an httpGet has no `host`. */
  podIP: () => Promise<string | undefined>;
  /** Where an HTTPS hook answered over plain HTTP is reported (upstream's warning event). */
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * Runs `handler` once. Resolves when it succeeded; throws a LifecycleHookError carrying the
 * upstream message when it failed; rethrows the signal's reason when aborted (the work is
 * cancelled: the ExecSync RPC, the request or the sleep).
 */
export async function runLifecycleHook(
  deps: HookDeps,
  handler: V1LifecycleHandler,
  target: HookTarget,
): Promise<void> {
  const { container, signal } = target;
  const where = `for Container ${JSON.stringify(container.name)} in Pod ${
    JSON.stringify(formatPod(target.pod))
  }`;
  const failed = (what: string, err: unknown): never => {
    if (signal?.aborted) throw signal.reason;
    throw new LifecycleHookError(`${what} ${where} failed - error: ${errorMessage(err)}`, {
      cause: err,
    });
  };
  if (handler.exec) {
    const command = handler.exec.command ?? [];
    let output = "";
    try {
      // Timeout 0: upstream gives exec hooks no deadline of their own.
      const res = await deps.runtime.execSync(target.containerId, command, 0, { signal });
      output = decoder.decode(res.stdout) + decoder.decode(res.stderr);
      if (res.exitCode !== 0) {
        throw new DenoletError(
          `command '${command.join(" ")}' exited with ${res.exitCode}: ${
            decoder.decode(res.stderr)
          }`,
        );
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      throw new LifecycleHookError(
        `Exec lifecycle hook ([${command.join(" ")}]) ${where} failed - error: ${
          errorMessage(err)
        }, message: ${JSON.stringify(output)}`,
        { cause: err },
      );
    }
    return;
  }
  if (handler.httpGet) {
    try {
      await runHttpGet(deps, handler.httpGet, target);
    } catch (err) {
      failed(`HTTP lifecycle hook (${handler.httpGet.path ?? ""})`, err);
    }
    return;
  }
  if (handler.sleep) {
    const seconds = handler.sleep.seconds ?? 0;
    if (seconds > 0) await (deps.clock ?? realClock).sleep(seconds * 1000, { signal });
    return;
  }
  throw new LifecycleHookError(`Cannot run handler: invalid handler: ${JSON.stringify(handler)}`);
}

/**
 * Upstream `executePreStopHook`: runs the preStop handler for at most `gracePeriodSeconds` and
 * returns the whole seconds it took. A failure is logged, never thrown (the container is
 * stopped either way); a handler still running at the deadline is cancelled, which upstream
 * leaves running in the background. Throws only the signal's reason when aborted.
 */
export async function runPreStopHook(
  deps: HookDeps,
  handler: V1LifecycleHandler,
  target: HookTarget & { gracePeriodSeconds: number; logger: Logger },
): Promise<number> {
  const clock = deps.clock ?? realClock;
  const log = target.logger;
  const fields = { container: target.container.name, containerId: target.containerId };
  const start = clock.monotonic();
  log.debug(3, "Running preStop hook", fields);
  const outcome = await withDeadline(
    clock,
    target.gracePeriodSeconds * 1000,
    target.signal,
    (signal) => runLifecycleHook(deps, handler, { ...target, signal }),
  );
  if (outcome.timedOut) {
    log.info("PreStop hook not completed in grace period", {
      ...fields,
      gracePeriod: target.gracePeriodSeconds,
    });
  } else if (outcome.error !== undefined) {
    log.warn("PreStop hook failed", { ...fields, err: outcome.error });
    // As upstream, the event does not carry the error: it may hold secrets from the handler.
    deps.events?.event(
      podObjectRef({ metadata: target.pod }, target.container),
      "Warning",
      "FailedPreStopHook",
      "PreStopHook failed",
    );
  } else {
    log.debug(3, "PreStop hook completed", fields);
  }
  return Math.floor((clock.monotonic() - start) / 1000);
}

/**
 * The primary IP of the sandbox holding container `containerId`, for httpGet hooks without a
 * host (upstream reads it from the pod status at that moment). Undefined when unknown.
 */
export async function sandboxIPOf(
  runtime: RuntimeService,
  containerId: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const [c] = await runtime.listContainers({ id: containerId }, { signal });
  if (!c) return undefined;
  const st = await runtime.podSandboxStatus(c.podSandboxId, { signal });
  return st.network?.ip || undefined;
}

/**
 * Upstream `runHTTPHandler`: any answer counts, whatever its status; only a transport failure
 * (or no answer within the deadline) fails the hook. An HTTPS hook that a plain-HTTP server
 * answered is sent once more over HTTP without its Authorization header, as upstream does.
 */
async function runHttpGet(
  deps: HookDeps,
  action: V1HTTPGetAction,
  target: HookTarget,
): Promise<void> {
  const podIP = action.host || await target.podIP();
  if (!podIP) throw new DenoletError("failed to find networking container: the pod has no IP");
  const req = httpGetRequest(action, {
    container: target.container,
    podIP,
    userAgent: kubeUserAgent("lifecycle"),
  });
  const clock = deps.clock ?? realClock;
  const timeoutMs = deps.httpTimeoutMs ?? DEFAULT_HOOK_HTTP_TIMEOUT_MS;
  const outcome = await withDeadline(clock, timeoutMs, target.signal, async (signal) => {
    const res = await httpGet(req, { signal });
    if (res.kind === "answered") return;
    if (!res.plainHttpServer) throw new DenoletError(res.message);
    const url = new URL(req.url);
    url.protocol = "http:";
    const headers = { ...req.headers };
    delete headers["authorization"];
    const retry = await httpGet({ url, headers }, { signal });
    if (retry.kind === "failed") throw new DenoletError(res.message);
    target.logger?.warn("HTTPS lifecycle hook got an HTTP response; retrying with HTTP succeeded", {
      container: target.container.name,
      host: url.host,
      reason: "LifecycleHTTPFallback",
    });
  });
  if (outcome.timedOut) {
    throw new DenoletError(`GET ${req.url} did not answer within ${timeoutMs / 1000}s`);
  }
  if (outcome.error !== undefined) throw outcome.error;
}

type Outcome = { timedOut: true; error?: undefined } | { timedOut: false; error?: unknown };

/**
 * Runs `work` with a signal that aborts at `ms` on `clock` or when `signal` aborts. Resolves
 * with what happened; rethrows only the outer signal's reason.
 */
async function withDeadline(
  clock: Clock,
  ms: number,
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<void>,
): Promise<Outcome> {
  signal?.throwIfAborted();
  const deadline = new AbortController();
  const done = new AbortController();
  const expired = clock.sleep(ms, { signal: done.signal }).then(
    () => deadline.abort(new DenoletError(`deadline of ${ms} ms exceeded`)),
    // Cancelled because the work finished first: nothing to do.
    () => undefined,
  );
  const inner = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
  try {
    await work(inner);
    return { timedOut: false };
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (deadline.signal.aborted) return { timedOut: true };
    return { timedOut: false, error: err };
  } finally {
    done.abort();
    await expired;
  }
}

/** Upstream `format.Pod`: `name_namespace(uid)`. */
function formatPod(p: { name?: string; namespace?: string; uid?: string }): string {
  return `${p.name ?? ""}_${p.namespace ?? ""}(${p.uid ?? ""})`;
}

const decoder = new TextDecoder();
