/**
 * `/metrics/cadvisor`, on the read-only port and (behind `nodes/metrics`) the authenticated
 * one, as upstream installs it among the handlers that need no authorization of their own.
 */
import { NotFoundError } from "../util/errors.ts";
import type { NodeApiDeps } from "./types.ts";

/** What Prometheus' Go client answers for the text format. */
const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Collection problems are series (`container_scrape_error 1`), so the answer is still 200. */
export async function handleCadvisorMetrics(deps: NodeApiDeps, req: Request): Promise<Response> {
  if (deps.cadvisor === undefined) throw new NotFoundError("cAdvisor metrics are not enabled");
  const text = await deps.cadvisor.render({ signal: req.signal });
  return new Response(text, { headers: { "content-type": METRICS_CONTENT_TYPE } });
}
