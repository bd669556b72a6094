/** The kubelet core's dependencies and what it reports. */
import type { EventRecorder } from "../events/mod.ts";
import type { V1Node, V1Pod, V1PodStatus } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { Pleg, PodStatusCache } from "../pleg/types.ts";
import type { PodRuntime } from "../runtime/types.ts";
import type { PodSource } from "../sources/types.ts";
import type { ProbeManager } from "../prober/types.ts";
import type { PodResourceState } from "../allocation/mod.ts";
import type { ResizeSettings } from "./_allocation.ts";

export interface HealthCheck {
  name: string;
  ok: boolean;
  message?: string;
}

/**
 * Where pod statuses go besides the node API: the API server's status writer in API mode.
 * Calls never block and never throw; the sink queues and writes in the background.
 */
export interface PodStatusSink {
  /** The pod's computed status changed. */
  statusChanged(pod: V1Pod, status: V1PodStatus): void;
  /**
   * The pod's worker finished: no container runs and its resources are released (a pod
   * being deleted in the API may now be deleted for good).
   */
  podTerminated(pod: V1Pod): void;
}

export interface KubeletDeps {
  sources: PodSource[];
  runtime: PodRuntime;
  pleg: Pleg;
  cache: PodStatusCache;
  clock: Clock;
  logger: Logger;
  /** Resync period for pods without events (--sync-frequency). */
  syncFrequencyMs: number;
  /** Node IP for status.hostIP. */
  nodeIP?: string;
  /** Both node IPs of a dual-stack node (primary first), for status.hostIPs. */
  nodeIPs?: string[];
  /** Cheap runtime liveness check (CRI Status); run from housekeeping. */
  checkRuntime: (opts: { signal: AbortSignal }) => Promise<void>;
  /** Probes; their result changes trigger a sync of the pod. */
  prober?: ProbeManager;
  /**
   * Admission of a pod the agent has not run yet (eviction manager: node pressure). A refused
   * pod is shown Failed with the reason and never started.
   */
  admit?: (pod: V1Pod) => { admit: boolean; reason?: string; message?: string };
  /** Receives status changes and finished terminations (API mode). */
  statusSink?: PodStatusSink;
  /** Events about pods (an admission refusal); none by default. */
  events?: EventRecorder;
  /** --max-pods: pods beyond it are refused (OutOfpods); no limit when unset. */
  maxPods?: number;
  /**
   * The Node as the API server has it, for the admission predicates (allocatable, labels,
   * taints); only the pod count is checked while it is unknown. Cheap, never blocks.
   */
  admissionNode?: () => V1Node | undefined;
  /**
   * Pod directories (volumes, /etc/hosts) left on disk, by UID, and their removal: housekeeping
   * removes those of pods that are neither desired, nor being worked on, nor in the runtime
   * (an agent stopped mid-removal leaves them, tmpfs mounts included).
   */
  podDirs?: {
    list(): Promise<string[]>;
    remove(uid: string, opts: { signal: AbortSignal }): Promise<void>;
  };
  /** Pod cgroups; housekeeping removes those of pods that are gone. */
  podCgroups?: { cleanupOrphans(keep: Set<string>): Promise<unknown> };
  /**
   * What each admitted pod was allocated (`<root-dir>/allocated_pods_state`), against which new
   * pods and resizes are admitted; in memory by default.
   */
  allocated?: PodResourceState;
  /** In-place resize settings (pod-level resize, swap behaviour, cgroup version). */
  resize?: ResizeSettings;
  /**
   * The node's allocatable cpu (millicores) and memory (bytes): with no Node to read it from
   * (standalone), a resize beyond it is Infeasible.
   */
  nodeAllocatable?: { cpuMilli: number; memoryBytes: number };
  /** Hooks for metrics. */
  observe?: {
    loopIteration?: (ms: number) => void;
    podWorker?: (op: string, ms: number) => void;
  };
}
