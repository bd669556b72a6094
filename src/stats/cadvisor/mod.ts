/**
 * `/metrics/cadvisor`: cAdvisor's Prometheus series as the kubelet serves them, collected on
 * demand from cgroupfs, /proc and (for new container ids only) the CRI. Imported dynamically by
 * the stats module on the first scrape: a node nobody scrapes never loads it.
 */
export {
  type CadvisorCollector,
  type CadvisorCollectorDeps,
  createCadvisorCollector,
} from "./collector.ts";
