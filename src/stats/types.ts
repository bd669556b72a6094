/**
 * The kubelet Summary API (`stats/v1alpha1`) as TypeScript shapes, with the upstream JSON field
 * names, so `/stats/summary` is read unchanged by metrics-server and `kubectl top`.
 *
 * Times are `Date`s: the node API encodes them as `metav1.Time` (RFC 3339, seconds). Counters
 * and byte sizes are JS numbers (uint64 upstream; exact up to 2^53, enough for bytes and ns).
 * Optional fields are omitted when unknown, as upstream's `omitempty` pointers are.
 */
import type { ClaimVolume } from "../volumes/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { ImageService, RuntimeService } from "../cri/types.ts";
import type { V1Pod } from "@kubernetes/client-node";

/** Top-level container for node and pod stats. */
export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

/** Names of `NodeStats.systemContainers` entries (upstream `SystemContainer*`). */
export const SYSTEM_CONTAINER_KUBELET = "kubelet";
export const SYSTEM_CONTAINER_RUNTIME = "runtime";
export const SYSTEM_CONTAINER_MISC = "misc";
export const SYSTEM_CONTAINER_PODS = "pods";

export interface NodeStats {
  nodeName: string;
  /** Stats of system daemons: `kubelet` (this agent) and `runtime` (containerd). */
  systemContainers?: ContainerStats[];
  /** When data collection for the node-scoped stats started (node boot time). */
  startTime: Date;
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  /** The filesystem holding the agent's root dir (`nodefs`); `usedBytes` is the whole fs. */
  fs?: FsStats;
  runtime?: RuntimeStats;
  rlimit?: RlimitStats;
  swap?: SwapStats;
}

export interface RlimitStats {
  time: Date;
  /** The max PID of the OS (`/proc/sys/kernel/pid_max`). */
  maxpid?: number;
  /** Number of processes (threads, as upstream counts) on the OS. */
  curproc?: number;
}

export interface RuntimeStats {
  /** The filesystem holding images (`imagefs`); `usedBytes` is the bytes images occupy. */
  imageFs?: FsStats;
  /** The filesystem holding container writable layers, when split from the image fs. */
  containerFs?: FsStats;
  containersremoving?: number;
}

export interface PodReference {
  name: string;
  namespace: string;
  uid: string;
}

export interface PodStats {
  podRef: PodReference;
  /** When data collection for the pod started (the sandbox's creation). */
  startTime: Date;
  containers: ContainerStats[];
  /** CPU of the pod cgroup (all containers plus overhead). */
  cpu?: CPUStats;
  /** Memory of the pod cgroup (all containers plus overhead). */
  memory?: MemoryStats;
  network?: NetworkStats;
  /** Per-volume usage (JSON name `volume`, as upstream). */
  volume?: VolumeStats[];
  /** Containers' writable layers + logs + emptyDir volumes. */
  "ephemeral-storage"?: FsStats;
  process_stats?: ProcessStats;
  swap?: SwapStats;
}

export interface ContainerStats {
  name: string;
  startTime: Date;
  cpu?: CPUStats;
  memory?: MemoryStats;
  accelerators?: AcceleratorStats[];
  /** `usedBytes` is the container's writable layer. */
  rootfs?: FsStats;
  /** `usedBytes` is the container's log files. */
  logs?: FsStats;
  userDefinedMetrics?: UserDefinedMetric[];
  swap?: SwapStats;
}

export interface InterfaceStats {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

/** The default interface's counters are inlined next to `interfaces`, as upstream. */
export interface NetworkStats extends Partial<InterfaceStats> {
  time: Date;
  interfaces?: InterfaceStats[];
}

export interface CPUStats {
  time: Date;
  /** Usage over the last sample window, in nano-cores (1e9 = one core busy). */
  usageNanoCores?: number;
  /** Cumulative CPU time, all cores, since the object was created. */
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: Date;
  /** Limit (or node capacity) minus working set; omitted when there is no limit. */
  availableBytes?: number;
  usageBytes?: number;
  /** Usage minus inactive file pages (cAdvisor's definition); what eviction compares. */
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface SwapStats {
  time: Date;
  swapAvailableBytes?: number;
  swapUsageBytes?: number;
}

export interface ProcessStats {
  process_count?: number;
}

export interface AcceleratorStats {
  make: string;
  model: string;
  id: string;
  memoryTotal: number;
  memoryUsed: number;
  dutyCycle: number;
}

export interface FsStats {
  time: Date;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface PVCReference {
  name: string;
  namespace: string;
}

/** FsStats of one volume plus its name (upstream embeds FsStats). */
export interface VolumeStats extends FsStats {
  name?: string;
  pvcRef?: PVCReference;
}

export type UserDefinedMetricType = "gauge" | "cumulative" | "delta";

export interface UserDefinedMetric {
  name: string;
  type: UserDefinedMetricType;
  units: string;
  labels?: Record<string, string>;
  time: Date;
  value: number;
}

/** Options for one Summary request. */
export interface SummaryOptions {
  /** Only CPU and memory of node, pods and containers (`?only_cpu_and_memory=true`). */
  onlyCpuAndMemory?: boolean;
  /**
   * false: the node, from the latest sample of either kind (`pods` empty or older); for readers
   * of node-level usage (the eviction manager's signals), who then keep no one sampling pods.
   */
  pods?: boolean;
  signal?: AbortSignal;
}

/**
 * Node, pod and container resource usage. One background sampler (`run`) reads the cgroup
 * files, /proc and the CRI every sample period, pods only while someone reads them; requests
 * read the last sample, so their cost stays off the sampling path.
 */
export interface StatsProvider {
  /**
   * The Summary as of the latest sample with pods (or, with `pods: false`, of the node). Takes a
   * fresh sample first when there is none from the last two periods (may then block on the
   * runtime; honours `signal`). Never mutates the returned sample.
   */
  summary(opts?: SummaryOptions): Promise<Summary>;
  /** The last sample with pods, or undefined before one completes. Cheap and non-blocking. */
  latest(): Summary | undefined;
  /** The node as of the last sample of either kind; undefined before the first. Non-blocking. */
  latestNode(): NodeStats | undefined;
  /**
   * Takes a new sample that starts after the call (waiting out one already under way) and
   * returns it: for decisions that must see the effect of something just done (an eviction).
   */
  sampleNow(opts?: { signal?: AbortSignal }): Promise<Summary>;
  /**
   * Samples every period until `signal` aborts, then resolves (never rejects). A failed
   * sample is logged and the previous one kept.
   */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

/** What `createStatsProvider` needs. */
export interface StatsProviderDeps {
  runtime: RuntimeService;
  image: ImageService;
  clock: Clock;
  logger: Logger;
  nodeName: string;
  /** The agent's root dir (`--root-dir`); its filesystem is `nodefs`. */
  rootDir: string;
  /** Where container logs live (`/var/log/pods`). */
  podLogsDir: string;
  /** The pods bound to this node (for names, volumes); must be cheap. */
  pods: () => V1Pod[];
  /** cgroup filesystem root; default `/sys/fs/cgroup`. */
  cgroupRoot?: string;
  /** procfs root; default `/proc`. */
  procRoot?: string;
  /** Background sampling period; default 10 s. */
  samplePeriodMs?: number;
  /**
   * The pod-level cgroup of `pod`, relative to the hierarchy root (for example
   * `/kubepods/burstable/pod<uid>`, as `podCgroupName` in src/cm gives it), or undefined when
   * pods have no cgroup of their own. Without one (or when it does not exist) a pod's usage is
   * the sum of its containers' cgroups under containerd's default `k8s.io/<id>`.
   */
  podCgroupPath?: (pod: V1Pod) => string | undefined;
  /** The pod's claim volumes as mounted (the volume manager's), for stats with a pvcRef. */
  claimVolumes?: (uid: string) => ClaimVolume[];
  /**
   * The CRI endpoint (`unix:///run/containerd/containerd.sock`): the process listening on it
   * is the `runtime` system container. Omitted: no `runtime` entry.
   */
  runtimeEndpoint?: string;
}

/**
 * `/metrics/cadvisor`: cAdvisor's container and machine series, collected when asked (nothing
 * is sampled for it in the background).
 */
export interface CadvisorMetrics {
  /**
   * The Prometheus text exposition. Missing data is reported in the series
   * (`container_scrape_error`, `machine_scrape_error`), not as a rejection; rejects only when
   * `signal` aborts. Concurrent calls share one collection.
   */
  render(opts?: { signal?: AbortSignal }): Promise<string>;
}
