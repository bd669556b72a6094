/**
 * The allocation manager as the kubelet uses it: new pods and resizes are admitted by the same
 * handlers (the eviction manager, the field table, the predicates), beside what the other
 * pods were allocated; a resize is checked first for what can never be had.
 */
import type { V1Container, V1Node, V1Pod } from "@kubernetes/client-node";
import {
  AllocationManager,
  PodResourceState,
  type ResizeConditions,
  resizeInfeasible,
} from "../allocation/mod.ts";
import type { EventRecorder } from "../events/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";
import { admitPod } from "./_admission.ts";
import { podRequests } from "./_admission_fit.ts";

/** In-place resize settings from the node (all optional: upstream's defaults). */
export interface ResizeSettings {
  /** InPlacePodLevelResourcesVerticalScaling (default true, beta in v1.37). */
  podLevel?: boolean;
  cgroupVersion?: 1 | 2;
  /** GetContainerSwapBehavior ("NoSwap", "LimitedSwap"); NoSwap by default. */
  swapBehavior?: (pod: V1Pod, container: V1Container) => string;
}

export interface AllocationWiring {
  /** The allocation checkpoint; in memory when unset. */
  state?: PodResourceState;
  conditions: ResizeConditions;
  settings?: ResizeSettings;
  /** The admission handlers before the predicates (eviction, field table). */
  before?: (pod: V1Pod) => { admit: boolean; reason?: string; message?: string };
  maxPods: number;
  node: () => V1Node | undefined;
  /** Allocatable cpu and memory when there is no Node (standalone). */
  nodeAllocatable?: { cpuMilli: number; memoryBytes: number };
  activePods: () => V1Pod[];
  podByUid: (uid: string) => V1Pod | undefined;
  sourcesReady: () => boolean;
  syncPod: (pod: V1Pod) => void;
  events?: EventRecorder;
  clock: Clock;
  logger: Logger;
}

function requests(pod: V1Pod): { cpuMilli: number; memoryBytes: number } {
  const r = podRequests(pod);
  return { cpuMilli: r.get("cpu") ?? 0, memoryBytes: r.get("memory") ?? 0 };
}

function nodeCapacity(
  node: V1Node | undefined,
): { cpuMilli: number; memoryBytes: number } | undefined {
  const a = node?.status?.allocatable;
  if (!a?.cpu || !a.memory) return undefined;
  try {
    return { cpuMilli: quantityMilliValue(a.cpu), memoryBytes: quantityValue(a.memory) };
  } catch {
    // The API server validates the Node; a bad value leaves the check to it.
    return undefined;
  }
}

export function createAllocation(w: AllocationWiring): AllocationManager {
  const podLevel = w.settings?.podLevel ?? true;
  return new AllocationManager({
    state: w.state ?? PodResourceState.inMemory(),
    conditions: w.conditions,
    admit: (pod, others) =>
      admitPod(pod, { activePods: others, maxPods: w.maxPods, node: w.node(), before: w.before }),
    infeasible: (desired, allocated) =>
      resizeInfeasible(desired, allocated, {
        podLevel,
        cgroupVersion: w.settings?.cgroupVersion,
        swapBehavior: w.settings?.swapBehavior,
        podRequests: requests,
        allocatable: () => nodeCapacity(w.node()) ?? w.nodeAllocatable,
      }),
    podRequests: requests,
    activePods: w.activePods,
    podByUid: w.podByUid,
    sourcesReady: w.sourcesReady,
    syncPod: w.syncPod,
    podLevel,
    events: w.events,
    clock: w.clock,
    logger: w.logger,
  });
}
