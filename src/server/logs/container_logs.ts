/**
 * `GET /containerLogs/{namespace}/{pod}/{container}`: which container instance to read follows
 * upstream's validateContainerLogStatus (the running one, else the last terminated one, or the
 * previous one with `previous=true`; a waiting container has no logs yet), and its log file is
 * the one the runtime reports for it (ContainerStatus.logPath).
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimeService } from "../../cri/types.ts";
import type { Clock } from "../../util/clock.ts";
import { DenoletError, isKind, NotFoundError } from "../../util/errors.ts";
import type { Logger } from "../../util/log.ts";
import { containerStatus, findPod, requireContainer, runtimeContainerId } from "../_pod_lookup.ts";
import { LogOptionsInvalidError, LogQueryDecodeError, parsePodLogOptions } from "./options.ts";
import { readContainerLogs } from "./reader.ts";

export interface ContainerLogsDeps {
  /** The node's pods with their current status. */
  pods(): V1Pod[];
  runtime: Pick<RuntimeService, "containerStatus">;
  clock: Clock;
  logger: Logger;
  /** How often a follow looks for new lines (tests shorten it). */
  followPollMs?: number;
}

/** The container cannot give logs in its current state (upstream answers 400 with the reason). */
export class NoLogsError extends DenoletError {}

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/**
 * Serves one request. Answers 404 for an unknown pod or container, 400 for a bad query or a
 * container without logs, 422 for invalid options, else streams the log (chunked; a follow
 * lasts until the container stops or the client goes away).
 */
export async function handleContainerLogs(
  deps: ContainerLogsDeps,
  req: Request,
  target: { namespace: string; pod: string; container: string },
): Promise<Response> {
  for (
    const [value, what] of [[target.pod, "podID"], [target.container, "container name"], [
      target.namespace,
      "podNamespace",
    ]] as const
  ) {
    if (value === "") return jsonError(400, `Missing ${what}.`);
  }
  let opts;
  try {
    opts = parsePodLogOptions(new URL(req.url).searchParams);
  } catch (err) {
    if (err instanceof LogQueryDecodeError) return jsonError(400, "Unable to decode query.");
    if (err instanceof LogOptionsInvalidError) return jsonError(422, "Invalid request.");
    throw err;
  }
  const pod = findPod(deps.pods(), target.namespace, target.pod);
  requireContainer(pod, target.container);
  let id: string;
  try {
    id = logContainerId(pod, target.container, opts.previous);
  } catch (err) {
    if (err instanceof NoLogsError) {
      return new Response(err.message, { status: 400, headers: TEXT });
    }
    throw err;
  }
  const status = await deps.runtime.containerStatus(id, { signal: req.signal });
  if (!status.logPath) {
    return new Response(`container ${JSON.stringify(target.container)} has no log file`, {
      status: 400,
      headers: TEXT,
    });
  }
  const now = deps.clock.now();
  const sinceMs = opts.sinceTime ??
    (opts.sinceSeconds !== undefined ? now - opts.sinceSeconds * 1000 : undefined);
  const body = await readContainerLogs(status.logPath, {
    tailLines: opts.tailLines,
    sinceMs,
    timestamps: opts.timestamps,
    limitBytes: opts.limitBytes,
    follow: opts.follow,
    stream: opts.stream,
  }, {
    clock: deps.clock,
    logger: deps.logger,
    pollMs: deps.followPollMs,
    signal: req.signal,
    isRunning: async ({ signal }) => {
      try {
        return (await deps.runtime.containerStatus(id, { signal })).state === "CONTAINER_RUNNING";
      } catch (err) {
        // Removed meanwhile: it certainly does not run any more.
        if (isKind(err, NotFoundError)) return false;
        throw err;
      }
    },
  });
  return new Response(body, { headers: TEXT });
}

function jsonError(status: number, message: string): Response {
  return new Response(JSON.stringify({ message }), { status, headers: TEXT });
}

/** upstream validateContainerLogStatus: the instance whose logs to read, or why there are none. */
export function logContainerId(pod: V1Pod, name: string, previous: boolean): string {
  const podName = pod.metadata?.name ?? "";
  const s = containerStatus(pod, name);
  const q = (v: string) => JSON.stringify(v);
  if (s === undefined) {
    throw new NoLogsError(`container ${q(name)} in pod ${q(podName)} is not available`);
  }
  const last = s.lastState?.terminated;
  const { waiting, running, terminated } = s.state ?? {};
  if (previous) {
    if (!last?.containerID) {
      throw new NoLogsError(
        `previous terminated container ${q(name)} in pod ${q(podName)} not found`,
      );
    }
    return runtimeContainerId(last.containerID);
  }
  if (running && s.containerID) return runtimeContainerId(s.containerID);
  if (terminated) {
    const id = terminated.containerID || last?.containerID;
    if (!id) throw new NoLogsError(`container ${q(name)} in pod ${q(podName)} is terminated`);
    return runtimeContainerId(id);
  }
  if (last?.containerID) return runtimeContainerId(last.containerID);
  if (waiting) {
    const reason = waiting.reason === "ErrImagePull"
      ? "image can't be pulled"
      : waiting.reason === "ImagePullBackOff"
      ? "trying and failing to pull image"
      : waiting.reason ?? "";
    throw new NoLogsError(
      `container ${q(name)} in pod ${q(podName)} is waiting to start: ${reason}`,
    );
  }
  throw new NoLogsError(
    `container ${q(name)} in pod ${q(podName)} is waiting to start - no logs yet`,
  );
}
