/**
 * The `/metrics/cadvisor` entry: a small handle whose first `render` imports the collector
 * (./cadvisor/), so an agent nobody scrapes for it never loads that code.
 */
import type { CadvisorCollector, CadvisorCollectorDeps } from "./cadvisor/mod.ts";
import type { CadvisorMetrics } from "./types.ts";

export type CadvisorMetricsDeps = CadvisorCollectorDeps;

export function createCadvisorMetrics(deps: CadvisorMetricsDeps): CadvisorMetrics {
  let collector: Promise<CadvisorCollector> | undefined;
  return {
    async render(opts) {
      collector ??= import("./cadvisor/mod.ts").then(
        (m) => m.createCadvisorCollector(deps),
        (err) => {
          collector = undefined; // a failed load is tried again by the next scrape
          throw err;
        },
      );
      return await (await collector).render(opts);
    },
  };
}
