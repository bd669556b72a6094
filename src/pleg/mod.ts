/**
 * Pod lifecycle event generator: relists the runtime, keeps the pod status cache fresh and
 * reports container changes so the sync loop can wake the affected pod workers.
 */
export type { Pleg, PodLifecycleEvent, PodLifecycleEventType, PodStatusCache } from "./types.ts";
export { createPodStatusCache, emptyPodStatus } from "./_cache.ts";
export type { RelistCache } from "./_cache.ts";
export {
  createPleg,
  DEFAULT_EVENTED_RELIST_PERIOD_MS,
  DEFAULT_RELIST_PERIOD_MS,
  DEFAULT_RELIST_THRESHOLD_MS,
} from "./_generic.ts";
export type { GenericPleg, PlegDeps } from "./_generic.ts";
