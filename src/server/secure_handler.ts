/**
 * The authenticated node API (`--port`): every request is authenticated and authorized first
 * (upstream's InstallAuthFilter), then served: the read-only routes, and with the debugging
 * handlers on, `/containerLogs`, `/logs/`, `/exec`, `/attach`, `/portForward`, `/run` and
 * `/runningpods/`, plus `/configz`. Handlers stay plain functions; the connection facts the
 * TLS server knows (client certificate, an upgraded connection) come in `ConnectionInfo`.
 */
import { errorMessage, type Logger } from "../util/log.ts";
import { findCause } from "../util/errors.ts";
import {
  AuthenticationError,
  type AuthenticatorFn,
  AuthorizationError,
  type Authorizer,
  type PeerCertificate,
  requestAttributes,
  ReviewBudgetError,
  type UserInfo,
} from "./auth/mod.ts";
import { MethodNotAllowedError, statusForError } from "./_errors.ts";
import { createNodeApiHandler, runningPodsResponse } from "./handler.ts";
import { type ContainerLogsDeps, handleContainerLogs, handleSystemLogs } from "./logs/mod.ts";
import {
  handleAttach,
  handleExec,
  handlePortForward,
  handleRun,
  type StreamingDeps,
} from "./streaming/mod.ts";
import type { NodeApiDeps, UpgradedConnection } from "./types.ts";

/** What the TLS server knows about the connection a request came on. */
export interface ConnectionInfo {
  /** The client's certificate, when it presented one (only asked for with a client CA). */
  peer?: PeerCertificate;
  /** Set when the client asked to upgrade the connection. */
  upgrade?: UpgradedConnection;
}

export type SecureHandler = (req: Request, conn?: ConnectionInfo) => Promise<Response>;

export interface SecureApiDeps extends NodeApiDeps {
  authenticate: AuthenticatorFn;
  authorizer: Authorizer;
  /** Logs, exec, attach, port-forward and run; absent means --enable-debugging-handlers=false. */
  debugging?:
    & Omit<ContainerLogsDeps, "pods" | "logger">
    & Omit<StreamingDeps, "pods" | "logger">
    & {
      /** The directory `/logs/` serves; absent means enableSystemLogHandler=false. */
      logDir?: string;
      /** enableSystemLogQuery: `/logs/?query=` (journalctl: the program, for tests). */
      logQuery?: { journalctl?: string };
    };
  /** `/configz`: the running configuration as `{"kubeletconfig": {...}}`. */
  configz?: () => unknown;
}

const TEXT = { "content-type": "text/plain; charset=utf-8" };
/** Upstream's paths answered with 405 when the debugging handlers are off. */
const DEBUG_PREFIXES = [
  "/run/",
  "/exec/",
  "/attach/",
  "/portForward/",
  "/containerLogs/",
  "/logs/",
  "/runningpods",
];

export function createSecureNodeApiHandler(deps: SecureApiDeps): SecureHandler {
  const log = deps.logger.child({ component: "node-api" });
  const readOnly = createNodeApiHandler(deps, { authenticated: true });
  return async (req, conn = {}) => {
    const url = new URL(req.url);
    let user: UserInfo | undefined;
    try {
      user = await deps.authenticate({ headers: req.headers, peer: conn.peer, signal: req.signal });
    } catch (err) {
      if (!(err instanceof AuthenticationError)) throw err;
      log.debug(2, "Unable to authenticate the request", { path: url.pathname, err: err.message });
    }
    if (user === undefined) return new Response("Unauthorized", { status: 401, headers: TEXT });

    const denied = await authorize(deps, log, user, req, url);
    if (denied) return denied;

    try {
      return await route(deps, req, url, conn) ?? await readOnly(req);
    } catch (err) {
      return errorResponse(err, req, url, log);
    }
  };
}

async function authorize(
  deps: SecureApiDeps,
  log: Logger,
  user: UserInfo,
  req: Request,
  url: URL,
): Promise<Response | undefined> {
  const attrs = requestAttributes(user, { method: req.method, path: url.pathname }, deps.nodeName);
  const subresources = `[${attrs.map((a) => a.subresource).join(" ")}]`;
  const who = `user=${user.name}, verb=${attrs[0].verb}, resource=${attrs[0].resource}`;
  for (const a of attrs) {
    try {
      const decision = await deps.authorizer.authorize(a, { signal: req.signal });
      if (decision.allowed) return undefined;
      log.debug(2, "Forbidden", {
        user: user.name,
        verb: a.verb,
        subresource: a.subresource,
        reason: decision.reason,
      });
    } catch (err) {
      // The reviews' own budget is spent (a flood): the caller may retry; nothing is wrong.
      if (findCause(err, ReviewBudgetError)) {
        return new Response("Too many authorization reviews under way; retry later", {
          status: 429,
          headers: { ...TEXT, "Retry-After": "1" },
        });
      }
      if (!(err instanceof AuthorizationError)) throw err;
      log.error("Authorization error", {
        user: user.name,
        verb: a.verb,
        subresource: a.subresource,
        err,
      });
      return new Response(`Authorization error (${who}, subresource(s)=${subresources})`, {
        status: 500,
        headers: TEXT,
      });
    }
  }
  return new Response(`Forbidden (${who}, subresource(s)=${subresources})`, {
    status: 403,
    headers: TEXT,
  });
}

/** The secure-only routes; undefined hands the request to the read-only routes. */
function route(
  deps: SecureApiDeps,
  req: Request,
  url: URL,
  conn: ConnectionInfo,
): Promise<Response> | undefined {
  const path = url.pathname;
  if (path === "/configz" && deps.configz) {
    methods(req, ["GET"]);
    return Promise.resolve(json({ kubeletconfig: deps.configz() }));
  }
  const debug = deps.debugging;
  if (debug === undefined) {
    if (DEBUG_PREFIXES.some((p) => path.startsWith(p))) {
      return Promise.resolve(
        new Response("Debug endpoints are disabled.\n", { status: 405, headers: TEXT }),
      );
    }
    return undefined;
  }
  if (path === "/runningpods" || path === "/runningpods/") {
    methods(req, ["GET"]);
    return runningPodsResponse(deps, req.signal);
  }
  const seg = path.split("/").slice(1).map(decodeSegment);
  const base = { ...debug, pods: deps.pods, logger: deps.logger };
  switch (seg[0]) {
    case "containerLogs":
      if (seg.length !== 4) return undefined;
      methods(req, ["GET"]);
      return handleContainerLogs(base, req, { namespace: seg[1], pod: seg[2], container: seg[3] });
    case "logs":
      if (debug.logDir === undefined) {
        return Promise.resolve(
          new Response("logs endpoint is disabled.\n", { status: 405, headers: TEXT }),
        );
      }
      methods(req, ["GET"]);
      return handleSystemLogs(
        {
          logDir: debug.logDir,
          query: debug.logQuery ? { ...debug.logQuery, clock: debug.clock } : undefined,
        },
        req,
        path.slice("/logs/".length),
      );
    case "exec":
    case "attach":
    case "run": {
      if (seg.length !== 4 && seg.length !== 5) return undefined;
      methods(req, seg[0] === "run" ? ["POST"] : ["GET", "POST"]);
      const t = {
        namespace: seg[1],
        pod: seg[2],
        uid: seg.length === 5 ? seg[3] : undefined,
        container: seg[seg.length - 1],
      };
      if (seg[0] === "exec") return handleExec(base, req, t, conn.upgrade);
      if (seg[0] === "attach") return handleAttach(base, req, t, conn.upgrade);
      return handleRun(base, req, t);
    }
    case "portForward":
      if (seg.length !== 3 && seg.length !== 4) return undefined;
      methods(req, ["GET", "POST"]);
      return handlePortForward(
        base,
        req,
        { namespace: seg[1], pod: seg[2], uid: seg[3] },
        conn.upgrade,
      );
    default:
      return undefined;
  }
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    // Not valid percent-encoding: kept as written, so it simply names nothing.
    return s;
  }
}

function methods(req: Request, allowed: string[]): void {
  if (!allowed.includes(req.method)) {
    throw new MethodNotAllowedError(allowed, `Method ${req.method} is not allowed here`);
  }
}

function json(value: unknown): Response {
  return new Response(JSON.stringify(value), { headers: { "content-type": "application/json" } });
}

function errorResponse(err: unknown, req: Request, url: URL, log: Logger): Response {
  const status = statusForError(err);
  const fields = { method: req.method, path: url.pathname, status, err };
  if (status >= 500) log.error("node API request failed", fields);
  else log.debug(4, "node API request refused", fields);
  const headers: Record<string, string> = { ...TEXT };
  if (err instanceof MethodNotAllowedError) headers["allow"] = err.allow.join(", ");
  return new Response(errorMessage(err) + "\n", { status, headers });
}
