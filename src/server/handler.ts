import { NotFoundError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { MethodNotAllowedError, statusForError } from "./_errors.ts";
import { handleHealthz } from "./_healthz.ts";
import { handleNode } from "./_node.ts";
import { toKubeJson } from "./_json.ts";
import { podList, runningPodToApiPod } from "./_pods.ts";
import { handleResourceMetrics, handleStatsSummary } from "./_stats.ts";
import { handleCadvisorMetrics } from "./_cadvisor.ts";
import type { NodeApiDeps, NodeApiHandler } from "./types.ts";

type RouteOf<D> = (deps: D, req: Request, url: URL) => Response | Promise<Response>;
type Route = RouteOf<NodeApiDeps>;
type HealthzDeps = Pick<NodeApiDeps, "healthChecks" | "logger">;

const READ_METHODS = ["GET", "HEAD"];
const JSON_HEADERS = { "content-type": "application/json" };
/** What Prometheus' Go client answers for the text format. */
const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const getPods: Route = (deps) => json(podList(deps.pods()));

const getSources: Route = (deps) => {
  // seenAt becomes a Date so it is written as RFC 3339 like every other time here.
  const problems = deps.manifestProblems().map((p) => ({ ...p, seenAt: new Date(p.seenAt) }));
  return json({ problems });
};

const getMetrics: Route = (deps) => {
  if (deps.metrics === undefined) throw new NotFoundError("Metrics are not enabled");
  return new Response(deps.metrics.render(), { headers: { "content-type": METRICS_CONTENT_TYPE } });
};

/**
 * Exact paths: what upstream serves without authentication on the read-only port (its
 * InstallDefaultHandlers). `/runningpods/` is not among them (upstream counts it with the
 * debugging handlers, behind authentication: `secure_handler.ts`).
 */
const ROUTES = new Map<string, Route>([
  ["/healthz", (deps, _req, url) => handleHealthz(deps, url, undefined)],
  ["/pods", getPods],
  ["/pods/", getPods],
  ["/metrics", getMetrics],
  ["/metrics/probes", (deps) => probeMetrics(deps.metrics)],
  ["/metrics/resource", handleResourceMetrics],
  ["/metrics/cadvisor", handleCadvisorMetrics],
  ["/stats/summary", handleStatsSummary],
]);

/** denolet's own paths: served on the authenticated port only, never without authentication. */
const OWN_ROUTES = new Map<string, Route>([
  ["/sources", getSources],
  ["/node", (deps, req) => handleNode(deps, req)],
]);

function findRoute(path: string): Route | undefined {
  return ROUTES.get(path) ?? healthzRoute(path);
}

function findAuthenticatedRoute(path: string): Route | undefined {
  return OWN_ROUTES.get(path) ?? findRoute(path);
}

function healthzRoute<D extends HealthzDeps>(path: string): RouteOf<D> | undefined {
  if (!path.startsWith("/healthz/")) return undefined;
  const sub = path.slice("/healthz/".length);
  return (deps, _req, url) => handleHealthz(deps, url, sub);
}

/**
 * The read-only node API as one fetch-style handler. It never throws: errors are mapped to
 * status codes in one place (`statusForError`); unexpected ones are logged. HEAD answers like
 * GET without a body. The read-only port serves upstream's paths only; `authenticated` adds
 * denolet's own (`/node`, `/sources`), for the port that authenticates every request.
 */
export function createNodeApiHandler(
  deps: NodeApiDeps,
  opts: { authenticated?: boolean } = {},
): NodeApiHandler {
  return handlerFor(deps, opts.authenticated ? findAuthenticatedRoute : findRoute);
}

/**
 * `/healthz` alone, with only the checks that hold while the process answers (`ping`, `log`):
 * what upstream serves on --healthz-port, so a supervisor restarts a hung agent, not one whose
 * runtime is down.
 */
export function createHealthzHandler(deps: { logger: Logger }): NodeApiHandler {
  const healthz: HealthzDeps = { healthChecks: () => [], logger: deps.logger };
  return handlerFor(
    healthz,
    (path) =>
      path === "/healthz"
        ? (d, _req, url) => handleHealthz(d, url, undefined)
        : healthzRoute<HealthzDeps>(path),
  );
}

/** `/runningpods/`: what the runtime runs for this node, as a PodList. */
export async function runningPodsResponse(
  deps: Pick<NodeApiDeps, "runningPods">,
  signal: AbortSignal,
): Promise<Response> {
  const running = await deps.runningPods({ signal });
  return json(podList(running.map(runningPodToApiPod)));
}

/** The prober's series, as upstream's separate /metrics/probes registry serves them. */
function probeMetrics(registry: NodeApiDeps["metrics"]): Response {
  if (registry === undefined) throw new NotFoundError("Metrics are not enabled");
  const families = registry.render().split(/(?=^# HELP )/m);
  const body = families.filter((f) => /^# HELP prober_/.test(f)).join("");
  return new Response(body, { headers: { "content-type": METRICS_CONTENT_TYPE } });
}

function handlerFor<D extends { logger: Logger }>(
  deps: D,
  find: (path: string) => RouteOf<D> | undefined,
): NodeApiHandler {
  const log = deps.logger.child({ component: "node-api" });
  return async (req) => {
    const url = new URL(req.url);
    let res: Response;
    try {
      const route = find(url.pathname);
      if (route === undefined) throw new NotFoundError(`No such path: ${url.pathname}`);
      if (!READ_METHODS.includes(req.method)) {
        throw new MethodNotAllowedError(
          READ_METHODS,
          `Method ${req.method} is not allowed on ${url.pathname}; the node API is read-only`,
        );
      }
      res = await route(deps, req, url);
    } catch (err) {
      res = errorResponse(err, req, url, log);
    }
    log.debug(5, "node API request", {
      method: req.method,
      path: url.pathname,
      status: res.status,
    });
    if (req.method === "HEAD") {
      await res.body?.cancel();
      return new Response(null, { status: res.status, headers: res.headers });
    }
    return res;
  };
}

function errorResponse(err: unknown, req: Request, url: URL, log: Logger): Response {
  const status = statusForError(err);
  const fields = { method: req.method, path: url.pathname, status, err };
  if (req.signal.aborted) {
    log.debug(2, "node API request abandoned by the client", fields);
  } else if (status >= 500) {
    log.error("node API request failed", fields);
  } else {
    log.debug(4, "node API request refused", fields);
  }
  const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8" };
  if (err instanceof MethodNotAllowedError) headers["allow"] = err.allow.join(", ");
  const message = status === 500
    ? `Internal server error: ${errorMessage(err)}`
    : errorMessage(err);
  return new Response(message + "\n", { status, headers });
}

function json(value: unknown): Response {
  return new Response(toKubeJson(value), { headers: JSON_HEADERS });
}
