/**
 * Contracts of the eviction manager (upstream pkg/kubelet/eviction): thresholds on node
 * signals, the stats it reads, the node-level reclaimer it calls first and the pod eviction it
 * asks the kubelet for.
 */
import type { EventRecorder } from "../events/mod.ts";
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";

/** The eviction signals denolet observes (upstream `evictionapi.Signal` values). */
export type Signal =
  | "memory.available"
  | "nodefs.available"
  | "nodefs.inodesFree"
  | "imagefs.available"
  | "imagefs.inodesFree"
  | "pid.available";

/** The node conditions the manager drives. */
export type PressureCondition = "MemoryPressure" | "DiskPressure" | "PIDPressure";

/** A threshold value: an absolute quantity or a fraction (0..1) of the signal's capacity. */
export type ThresholdValue =
  | { quantity: number; /** As written, canonicalized (`100Mi`), for messages. */ text: string }
  | { percentage: number };

/** One eviction threshold: `signal < value`, hard when `gracePeriodMs` is 0. */
export interface Threshold {
  signal: Signal;
  value: ThresholdValue;
  /** 0 for hard thresholds; the soft grace period otherwise. */
  gracePeriodMs: number;
  /** Extra amount to reclaim beyond the threshold once it was met. */
  minReclaim?: ThresholdValue;
}

/** The manager's settings, parsed from the agent configuration. */
export interface EvictionConfig {
  thresholds: Threshold[];
  /** --eviction-pressure-transition-period: how long a condition stays true after the signal clears. */
  pressureTransitionPeriodMs: number;
  /** --eviction-max-pod-grace-period: the longest grace period given on a soft eviction. */
  maxPodGracePeriodSeconds: number;
  /**
   * denolet extension (default false = upstream): treat static pods as ordinary pods for
   * eviction and admission. Upstream every static pod is critical (`IsCriticalPod`), so a
   * standalone kubelet, whose pods are all static, never evicts nor refuses one; this opt-in
   * lets an edge node protect itself. Pods with priority >= 2e9 stay critical either way.
   */
  evictStaticPods: boolean;
  /**
   * localStorageCapacityIsolation (default true): pods over their emptyDir sizeLimit or
   * ephemeral-storage limits are evicted.
   */
  localStorageCapacityIsolation?: boolean;
  /** Monitoring interval; upstream evictionMonitoringPeriod is 10 s. */
  monitoringIntervalMs?: number;
  /** Longest wait for an evicted pod to terminate; upstream podCleanupTimeout is 30 s. */
  podCleanupTimeoutMs?: number;
}

/** Filesystem stats as the Summary API names them. */
export interface EvictionFsStats {
  time?: Date;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface EvictionMemoryStats {
  time?: Date;
  availableBytes?: number;
  workingSetBytes?: number;
}

/**
 * The part of the stats/v1alpha1 Summary the manager reads, with the upstream JSON names, so a
 * `Summary` from src/stats is assignable to it.
 */
export interface EvictionSummary {
  node: {
    memory?: EvictionMemoryStats;
    fs?: EvictionFsStats;
    runtime?: { imageFs?: EvictionFsStats };
    rlimit?: { time?: Date; maxpid?: number; curproc?: number };
  };
  pods: Array<{
    podRef: { name: string; namespace: string; uid: string };
    memory?: EvictionMemoryStats;
    "ephemeral-storage"?: EvictionFsStats;
    process_stats?: { process_count?: number };
    containers?: Array<{
      name: string;
      memory?: EvictionMemoryStats;
      rootfs?: EvictionFsStats;
      logs?: EvictionFsStats;
    }>;
    volume?: Array<EvictionFsStats & { name?: string }>;
  }>;
}

/** Where the manager reads usage. `StatsProvider` from src/stats satisfies it. */
export interface EvictionStats {
  /**
   * The latest Summary (may be up to one sample period old). May block on the runtime for the
   * first sample; honours `signal`. `pods: false`: the node alone is needed (`pods` may be empty).
   */
  summary(opts?: { signal?: AbortSignal; pods?: boolean }): Promise<EvictionSummary>;
  /**
   * Optional: takes a new sample now. Called after a node-level reclaim to see its effect;
   * without it the manager waits one monitoring round for a newer sample before evicting.
   */
  sampleNow?(opts?: { signal?: AbortSignal }): Promise<EvictionSummary>;
}

/** Node-level reclaim (garbage collection), tried before any pod is evicted for disk pressure. */
export interface NodeReclaimer {
  /**
   * Removes dead containers that are no longer needed; with `evictNonDeletedPods`, also every
   * one of a pod that will not run again though still desired (upstream
   * DeleteAllUnusedContainers). Resolves when done; may throw.
   */
  collectContainers(opts?: { evictNonDeletedPods?: boolean; signal?: AbortSignal }): Promise<void>;
  /** Removes unused images until `bytesToFree` are freed (or none is left). May throw. */
  collectImages(opts: { bytesToFree: number; signal?: AbortSignal }): Promise<void>;
}

/** What `evictPod` is told; the kubelet marks the pod Failed with this reason and message. */
export interface EvictPodOptions {
  reason: "Evicted";
  message: string;
  /** Grace period override: 1 s for hard thresholds, min(max, pod's) for soft ones. */
  gracePeriodSeconds: number;
  /**
   * The pod condition upstream adds for node pressure (`DisruptionTarget`, reason
   * `TerminationByKubelet`); none for a pod over its own local storage limits.
   */
  condition?: {
    type: "DisruptionTarget";
    status: "True";
    reason: "TerminationByKubelet";
    message: string;
  };
  /** Upstream's event annotations: offending containers, their usage, the starved resource. */
  annotations: Record<string, string>;
  /**
   * Aborts the wait for the pod's termination (the kill itself goes on): the manager stops
   * waiting after podCleanupTimeout.
   */
  signal?: AbortSignal;
}

/** A node condition as the manager reports it (no heartbeat: the node status adds that). */
export interface NodeConditionSnapshot {
  type: PressureCondition;
  status: "True" | "False";
  reason: string;
  message: string;
  /** Epoch ms of the last status change. */
  lastTransitionTime: number;
}

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

export interface EvictionManagerDeps {
  stats: EvictionStats;
  reclaimer: NodeReclaimer;
  /** The active pods (admitted, not terminated), each with its status. Must be cheap. */
  pods: () => V1Pod[];
  /**
   * Terminates the pod abnormally: status Failed / `Evicted` / `message`, containers killed
   * with the grace period override. Resolves when the pod is killed (or rejects); the
   * manager does not start another round before it settles.
   */
  evictPod: (pod: V1Pod, opts: EvictPodOptions) => Promise<void>;
  clock: Clock;
  logger: Logger;
  /** Registers `kubelet_evictions{eviction_signal}` when given. */
  metrics?: MetricsRegistry;
  /** Evicted (pod) and EvictionThresholdMet (node) events; none by default. */
  events?: EventRecorder;
  /** The node's name, for its events. */
  nodeName?: string;
  config: EvictionConfig;
}

export interface EvictionManager {
  /**
   * Runs a synchronize round every monitoring interval until `signal` aborts, then resolves
   * (never rejects). At most one pod is evicted per round.
   */
  run(opts: { signal: AbortSignal }): Promise<void>;
  /**
   * One round: observe, update conditions, reclaim, maybe evict one pod. Returns the evicted
   * pod, if any. Exposed for tests and for callers that drive their own loop.
   */
  synchronize(opts?: { signal?: AbortSignal }): Promise<V1Pod | undefined>;
  /** MemoryPressure, DiskPressure and PIDPressure as of the last round. Cheap, non-blocking. */
  conditions(): NodeConditionSnapshot[];
  /** Whether a new pod may start given the current conditions (upstream `Admit`). Cheap. */
  admit(pod: V1Pod): AdmitResult;
}
