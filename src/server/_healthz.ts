/**
 * `/healthz` as the upstream kubelet serves it (k8s.io/apiserver/pkg/server/healthz): the
 * checks `ping`, `log` and the agent's own (`syncloop`, ...); `?verbose` lists each check,
 * `?exclude=name` skips one, `/healthz/<name>` runs a single check. A failing `/healthz`
 * always lists the checks so a human can see which one failed; reasons are withheld there
 * (they may be long or sensitive) and shown on `/healthz/<name>` instead.
 */
import { NotFoundError } from "../util/errors.ts";
import type { HealthCheckResult, NodeApiDeps } from "./types.ts";

const TEXT_HEADERS = {
  "content-type": "text/plain; charset=utf-8",
  "x-content-type-options": "nosniff",
};

/** Checks that always pass while the process can answer: `ping`, and `log` (logging is sync). */
const BUILT_IN = ["ping", "log"];

type HealthzDeps = Pick<NodeApiDeps, "healthChecks" | "logger">;

function allChecks(deps: HealthzDeps): HealthCheckResult[] {
  const own = deps.healthChecks();
  const builtIn = BUILT_IN.filter((name) => !own.some((c) => c.name === name))
    .map((name) => ({ name, ok: true }));
  return [...builtIn, ...own];
}

/** `/healthz` (sub === undefined) or `/healthz/<sub>`. */
export function handleHealthz(deps: HealthzDeps, url: URL, sub: string | undefined): Response {
  const checks = allChecks(deps);
  if (sub !== undefined && sub !== "") return single(deps, checks, sub);

  const excluded = new Set(url.searchParams.getAll("exclude").map((s) => s.trim()));
  const verbose = url.searchParams.has("verbose");
  let body = "";
  const failed: HealthCheckResult[] = [];
  for (const c of checks) {
    if (excluded.delete(c.name)) {
      body += `[+]${c.name} excluded: ok\n`;
    } else if (c.ok) {
      body += `[+]${c.name} ok\n`;
    } else {
      failed.push(c);
      body += `[-]${c.name} failed: reason withheld\n`;
    }
  }
  if (excluded.size > 0) {
    const names = [...excluded].map((n) => JSON.stringify(n)).join(", ");
    body += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
  }
  if (failed.length > 0) {
    // Verbosity 2 as upstream: pollers ask every second or so, and a failure that lasts (the
    // runtime is down) would otherwise fill the log; the checks log their own transitions.
    deps.logger.debug(2, "healthz check failed", {
      failed: failed.map((c) => `${c.name}: ${c.message ?? "failed"}`).join("; "),
    });
    return new Response(body + "healthz check failed\n", { status: 500, headers: TEXT_HEADERS });
  }
  if (!verbose) return new Response("ok", { status: 200, headers: TEXT_HEADERS });
  return new Response(body + "healthz check passed\n", { status: 200, headers: TEXT_HEADERS });
}

function single(deps: HealthzDeps, checks: HealthCheckResult[], name: string): Response {
  const check = checks.find((c) => c.name === name);
  if (check === undefined) throw new NotFoundError(`No health check named "${name}"`);
  if (check.ok) return new Response("ok", { status: 200, headers: TEXT_HEADERS });
  const reason = check.message ?? "failed";
  deps.logger.debug(2, "healthz check failed", { check: name, reason });
  return new Response(`internal server error: ${reason}\n`, { status: 500, headers: TEXT_HEADERS });
}
