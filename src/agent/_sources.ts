import type { AgentConfig } from "../config/types.ts";
import { createFileSource, createUrlSource } from "../sources/mod.ts";
import type { PodSource } from "../sources/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

/** The pod sources the configuration names: the static pod path and/or the manifest URL. */
export function buildSources(
  config: AgentConfig,
  deps: { clock: Clock; logger: Logger; apiMode?: boolean },
): PodSource[] {
  const { apiMode, ...sourceDeps } = deps;
  const sources: PodSource[] = [];
  if (config.staticPodPath) {
    sources.push(createFileSource(config.staticPodPath, {
      nodeName: config.nodeName,
      checkFrequencyMs: config.fileCheckFrequencyMs,
      ...sourceDeps,
    }));
  }
  if (config.staticPodURL) {
    sources.push(createUrlSource(config.staticPodURL, {
      nodeName: config.nodeName,
      headers: config.staticPodURLHeader,
      checkFrequencyMs: config.httpCheckFrequencyMs,
      ...sourceDeps,
    }));
  }
  if (sources.length === 0 && !apiMode) {
    deps.logger.warn("No pod source configured; the agent will run no pods");
  }
  return sources;
}
