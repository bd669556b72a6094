/** `/stats/summary` and `/metrics/resource`, both read from the stats provider's last sample. */
import { renderResourceMetrics } from "../stats/mod.ts";
import { NotFoundError } from "../util/errors.ts";
import type { NodeApiDeps } from "./types.ts";
import { toKubeJson } from "./_json.ts";

/** What Prometheus' Go client answers for the text format. */
const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** The Summary; `?only_cpu_and_memory=true` (exactly `true`, as upstream) trims it. */
export async function handleStatsSummary(
  deps: NodeApiDeps,
  req: Request,
  url: URL,
): Promise<Response> {
  const stats = requireStats(deps);
  const only = url.searchParams.getAll("only_cpu_and_memory");
  const summary = await stats.summary({
    onlyCpuAndMemory: only.length === 1 && only[0] === "true",
    signal: req.signal,
  });
  return new Response(toKubeJson(summary), { headers: { "content-type": "application/json" } });
}

/**
 * Resource metrics. A failed Summary still answers 200 with `resource_scrape_error 1`, as
 * upstream's collector does, so scrapers see the failure as data.
 */
export async function handleResourceMetrics(
  deps: NodeApiDeps,
  req: Request,
): Promise<Response> {
  const stats = requireStats(deps);
  let text: string;
  try {
    text = renderResourceMetrics(
      await stats.summary({ onlyCpuAndMemory: true, signal: req.signal }),
    );
  } catch (err) {
    if (req.signal.aborted) throw err;
    deps.logger.error("Cannot get the summary for /metrics/resource", { err });
    text = renderResourceMetrics(undefined);
  }
  return new Response(text, { headers: { "content-type": METRICS_CONTENT_TYPE } });
}

function requireStats(deps: NodeApiDeps) {
  if (deps.stats === undefined) throw new NotFoundError("Stats are not enabled");
  return deps.stats;
}
