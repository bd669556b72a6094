/**
 * `/exec`, `/attach`, `/portForward` and `/run`, served the way upstream serves CRI runtimes:
 * find the pod and container, ask the runtime for a stream URL (CRI Exec/Attach/PortForward)
 * and proxy the client's upgraded connection to it; `/run` runs a command to completion
 * (ExecSync) and answers with its output.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimeService, StreamingService } from "../../cri/types.ts";
import type { RunningPod } from "../../runtime/types.ts";
import { NotFoundError } from "../../util/errors.ts";
import type { Logger } from "../../util/log.ts";
import { BadRequestError } from "../_errors.ts";
import { containerStatus, findPod, requireContainer, runtimeContainerId } from "../_pod_lookup.ts";
import type { UpgradedConnection } from "../types.ts";
import { forwardedPorts, isWebSocketRequest, streamFlags } from "./options.ts";
import { type Dial, proxyUpgrade } from "./proxy.ts";

export interface StreamingDeps {
  /** The node's pods with their current status. */
  pods(): V1Pod[];
  /** What the runtime runs (for the pod's ready sandbox). */
  runningPods(opts: { signal?: AbortSignal }): Promise<RunningPod[]>;
  streaming: StreamingService;
  runtime: Pick<RuntimeService, "execSync">;
  /** Connects to the stream server; Deno.connect by default. */
  dial?: Dial;
  logger: Logger;
}

/** Path parameters: `{namespace}/{pod}[/{uid}]/{container}` (or without container). */
export interface StreamTarget {
  namespace: string;
  pod: string;
  uid?: string;
  container?: string;
}

/** What a streaming route answers once it has relayed the session: the connection is spent. */
export const SWITCHED = () => new Response(null, { status: 101 });

function podFor(deps: StreamingDeps, t: StreamTarget): V1Pod {
  const pod = findPod(deps.pods(), t.namespace, t.pod);
  if (t.uid !== undefined && t.uid !== pod.metadata?.uid) {
    throw new NotFoundError(`pod ${JSON.stringify(t.pod)} with UID ${t.uid} not found`);
  }
  return pod;
}

/** The id of the container's running instance; 404 naming it when there is none. */
function runningContainer(pod: V1Pod, name: string): string {
  requireContainer(pod, name);
  const s = containerStatus(pod, name);
  if (!s?.state?.running || !s.containerID) {
    throw new NotFoundError(
      `container not found (${JSON.stringify(name)}): it is not running in pod ${
        JSON.stringify(pod.metadata?.name)
      }`,
    );
  }
  return runtimeContainerId(s.containerID);
}

function requireUpgrade(upgrade: UpgradedConnection | undefined): UpgradedConnection {
  if (upgrade === undefined) {
    throw new BadRequestError(
      "Upgrade request required: connect with SPDY/3.1 or WebSocket (Connection: Upgrade)",
    );
  }
  return upgrade;
}

async function relay(
  deps: StreamingDeps,
  req: Request,
  url: string,
  upgrade: UpgradedConnection,
  what: string,
): Promise<Response> {
  const result = await proxyUpgrade(req.method, url, upgrade, {
    dial: deps.dial,
    signal: req.signal,
  });
  deps.logger.debug(4, "Stream session ended", { session: what, ...result });
  return SWITCHED();
}

export async function handleExec(
  deps: StreamingDeps,
  req: Request,
  t: StreamTarget & { container: string },
  upgrade?: UpgradedConnection,
): Promise<Response> {
  const q = new URL(req.url).searchParams;
  const flags = streamFlags(q);
  const id = runningContainer(podFor(deps, t), t.container);
  const conn = requireUpgrade(upgrade);
  const url = await deps.streaming.exec(id, q.getAll("command"), flags, { signal: req.signal });
  return await relay(deps, req, url, conn, `exec ${t.namespace}/${t.pod}/${t.container}`);
}

export async function handleAttach(
  deps: StreamingDeps,
  req: Request,
  t: StreamTarget & { container: string },
  upgrade?: UpgradedConnection,
): Promise<Response> {
  const q = new URL(req.url).searchParams;
  const pod = podFor(deps, t);
  const spec = requireContainer(pod, t.container);
  // Whether the process has a TTY was fixed when it started; the request cannot change it.
  const tty = spec.tty === true;
  const asked = streamFlags(q);
  const flags = { ...asked, tty, stderr: asked.stderr && !tty };
  const id = runningContainer(pod, t.container);
  const conn = requireUpgrade(upgrade);
  const url = await deps.streaming.attach(id, flags, { signal: req.signal });
  return await relay(deps, req, url, conn, `attach ${t.namespace}/${t.pod}/${t.container}`);
}

export async function handlePortForward(
  deps: StreamingDeps,
  req: Request,
  t: StreamTarget,
  upgrade?: UpgradedConnection,
): Promise<Response> {
  const ports = forwardedPorts(new URL(req.url).searchParams, isWebSocketRequest(req.headers));
  const pod = podFor(deps, t);
  const uid = pod.metadata?.uid ?? "";
  const running = (await deps.runningPods({ signal: req.signal })).find((p) => p.uid === uid);
  const sandbox = running?.sandboxes
    .filter((s) => s.state === "ready")
    .sort((a, b) => b.createdAt - a.createdAt)[0];
  if (sandbox === undefined) {
    throw new NotFoundError(`pod ${JSON.stringify(t.pod)} has no running sandbox to forward to`);
  }
  const conn = requireUpgrade(upgrade);
  const url = await deps.streaming.portForward(sandbox.id, ports, { signal: req.signal });
  return await relay(deps, req, url, conn, `port-forward ${t.namespace}/${t.pod}`);
}

/**
 * `POST /run/...?cmd=...`: upstream splits `cmd` on spaces, runs it with no timeout and answers
 * with stdout then stderr (as application/json, for historical reasons).
 */
export async function handleRun(
  deps: StreamingDeps,
  req: Request,
  t: StreamTarget & { container: string },
): Promise<Response> {
  const cmd = (new URL(req.url).searchParams.get("cmd") ?? "").split(" ");
  const id = runningContainer(podFor(deps, t), t.container);
  const res = await deps.runtime.execSync(id, cmd, 0, { signal: req.signal });
  const out = new Uint8Array(res.stdout.length + res.stderr.length);
  out.set(res.stdout);
  out.set(res.stderr, res.stdout.length);
  return new Response(out, { headers: { "content-type": "application/json" } });
}
