/** From the agent configuration to the manager's settings. */
import type { AgentConfig } from "../config/types.ts";
import { parseThresholdConfig } from "./thresholds.ts";
import type { EvictionConfig } from "./types.ts";

type EvictionFields = Pick<
  AgentConfig,
  | "evictionHard"
  | "evictionSoft"
  | "evictionSoftGracePeriod"
  | "evictionMinimumReclaim"
  | "evictionPressureTransitionPeriodMs"
  | "evictionMaxPodGracePeriod"
  | "evictStaticPods"
  | "localStorageCapacityIsolation"
>;

/**
 * Parses the thresholds (already validated by the config loader, so this only throws for a
 * config built by hand) and copies the periods.
 */
export function evictionConfigFrom(cfg: EvictionFields): EvictionConfig {
  return {
    thresholds: parseThresholdConfig({
      hard: cfg.evictionHard,
      soft: cfg.evictionSoft,
      softGracePeriod: cfg.evictionSoftGracePeriod,
      minimumReclaim: cfg.evictionMinimumReclaim,
    }),
    pressureTransitionPeriodMs: cfg.evictionPressureTransitionPeriodMs,
    maxPodGracePeriodSeconds: cfg.evictionMaxPodGracePeriod,
    evictStaticPods: cfg.evictStaticPods,
    localStorageCapacityIsolation: cfg.localStorageCapacityIsolation,
  };
}
