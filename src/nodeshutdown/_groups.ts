/**
 * Which pods stop in which order on a node shutdown, and for how long (upstream
 * nodeshutdown_manager.go: migrateConfig, groupByPriority, periodRequested). Pure.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { ShutdownGracePeriodByPodPriority } from "../config/mod.ts";

/** scheduling.DefaultPriorityWhenNoDefaultClassExists. */
export const DEFAULT_PRIORITY = 0;
/** scheduling.SystemCriticalPriority: system-cluster-critical and system-node-critical pods. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** The pods of one priority range and the seconds they get. */
export interface ShutdownGroup extends ShutdownGracePeriodByPodPriority {
  pods: V1Pod[];
}

/**
 * shutdownGracePeriod and shutdownGracePeriodCriticalPods as by-priority ranges: ordinary pods
 * get the difference, critical ones what is left (whole seconds). Empty when off.
 */
export function migrateConfig(
  gracePeriodMs: number,
  criticalPodsMs: number,
): ShutdownGracePeriodByPodPriority[] {
  if (gracePeriodMs === 0) return [];
  const defaultMs = gracePeriodMs - criticalPodsMs;
  if (defaultMs < 0) return [];
  const criticalMs = gracePeriodMs - defaultMs;
  return [
    { priority: DEFAULT_PRIORITY, shutdownGracePeriodSeconds: Math.trunc(defaultMs / 1000) },
    {
      priority: SYSTEM_CRITICAL_PRIORITY,
      shutdownGracePeriodSeconds: Math.trunc(criticalMs / 1000),
    },
  ];
}

/**
 * The ranges in force (upstream newPodManager): the by-priority list when given and its gate is
 * on, else the two grace periods; lowest priority first. Empty: graceful shutdown is off.
 */
export function shutdownPeriods(cfg: {
  shutdownGracePeriodMs: number;
  shutdownGracePeriodCriticalPodsMs: number;
  shutdownGracePeriodByPodPriority: readonly ShutdownGracePeriodByPodPriority[];
  byPriorityGate: boolean;
}): ShutdownGracePeriodByPodPriority[] {
  const list = cfg.byPriorityGate && cfg.shutdownGracePeriodByPodPriority.length > 0
    ? cfg.shutdownGracePeriodByPodPriority.map((p) => ({ ...p }))
    : migrateConfig(cfg.shutdownGracePeriodMs, cfg.shutdownGracePeriodCriticalPodsMs);
  return list.sort((a, b) => a.priority - b.priority);
}

/** The whole time logind must hold the shutdown: the ranges' seconds summed, in ms. */
export function periodRequestedMs(periods: readonly ShutdownGracePeriodByPodPriority[]): number {
  return periods.reduce((sum, p) => sum + p.shutdownGracePeriodSeconds, 0) * 1000;
}

/**
 * The pods by range, in `periods`' order (lowest priority first). A pod goes to the highest
 * range whose priority it reaches; below the lowest range it joins the lowest, above the
 * highest the highest.
 */
export function groupByPriority(
  periods: readonly ShutdownGracePeriodByPodPriority[],
  pods: readonly V1Pod[],
): ShutdownGroup[] {
  const groups: ShutdownGroup[] = periods.map((p) => ({ ...p, pods: [] }));
  if (groups.length === 0) return groups;
  for (const pod of pods) {
    const priority = pod.spec?.priority ?? 0;
    let index = groups.findIndex((g) => g.priority >= priority);
    if (index === -1) index = groups.length - 1;
    else if (index > 0 && groups[index].priority > priority) index--;
    groups[index].pods.push(pod);
  }
  return groups;
}

/**
 * The grace period a pod gets: its group's, or its own terminationGracePeriodSeconds when that
 * is shorter.
 */
export function podGracePeriodSeconds(pod: V1Pod, group: ShutdownGracePeriodByPodPriority): number {
  const own = pod.spec?.terminationGracePeriodSeconds;
  const groupSeconds = group.shutdownGracePeriodSeconds;
  return own !== undefined && own !== null && own <= groupSeconds ? own : groupSeconds;
}
