import type { V1Pod } from "@kubernetes/client-node";
import type {
  EvictionConfig,
  EvictionManagerDeps,
  EvictionSummary,
  EvictPodOptions,
} from "../../src/eviction/mod.ts";
import { createEvictionManager, parseThresholdConfig } from "../../src/eviction/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { createMetricsRegistry } from "../../src/util/metrics.ts";

export const Mi = 2 ** 20;
export const Gi = 2 ** 30;

export interface PodSpecLite {
  name: string;
  memRequest?: string;
  memLimit?: string;
  cpu?: string;
  priority?: number;
  /** "file" (static, default), "api" (not static). */
  source?: string;
  grace?: number;
  storageRequest?: string;
}

export function pod(p: PodSpecLite): V1Pod {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (p.memRequest) requests.memory = p.memRequest;
  if (p.memLimit) limits.memory = p.memLimit;
  if (p.cpu) requests.cpu = limits.cpu = p.cpu;
  if (p.storageRequest) requests["ephemeral-storage"] = p.storageRequest;
  return {
    metadata: {
      name: p.name,
      namespace: "default",
      uid: `uid-${p.name}`,
      annotations: { "kubernetes.io/config.source": p.source ?? "file" },
    },
    spec: {
      priority: p.priority,
      terminationGracePeriodSeconds: p.grace,
      containers: [{ name: "c", image: "busybox", resources: { requests, limits } }],
    },
    status: { phase: "Running" },
  };
}

export interface NodeNumbers {
  memAvailable?: number;
  memWorkingSet?: number;
  fsAvailable?: number;
  fsCapacity?: number;
  imageAvailable?: number;
  imageCapacity?: number;
  maxpid?: number;
  curproc?: number;
}

/** A summary at time `at`; `pods` maps pod name -> usage. */
export function summary(
  at: number,
  node: NodeNumbers,
  pods: Record<string, { mem?: number; disk?: number; procs?: number }> = {},
): EvictionSummary {
  const time = new Date(at);
  return {
    node: {
      memory: node.memAvailable === undefined ? undefined : {
        time,
        availableBytes: node.memAvailable,
        workingSetBytes: node.memWorkingSet ?? 1 * Gi,
      },
      fs: node.fsAvailable === undefined
        ? undefined
        : { time, availableBytes: node.fsAvailable, capacityBytes: node.fsCapacity ?? 100 * Gi },
      runtime: node.imageAvailable === undefined ? undefined : {
        imageFs: {
          time,
          availableBytes: node.imageAvailable,
          capacityBytes: node.imageCapacity ?? 100 * Gi,
        },
      },
      rlimit: node.maxpid === undefined
        ? undefined
        : { time, maxpid: node.maxpid, curproc: node.curproc ?? 0 },
    },
    pods: Object.entries(pods).map(([name, u]) => ({
      podRef: { name, namespace: "default", uid: `uid-${name}` },
      memory: u.mem === undefined ? undefined : { time, workingSetBytes: u.mem },
      process_stats: u.procs === undefined ? undefined : { process_count: u.procs },
      containers: [{
        name: "c",
        memory: u.mem === undefined ? undefined : { time, workingSetBytes: u.mem },
        rootfs: u.disk === undefined ? undefined : { time, usedBytes: u.disk, inodesUsed: 1 },
        logs: u.disk === undefined ? undefined : { time, usedBytes: 0, inodesUsed: 0 },
      }],
    })),
  };
}

export interface Harness {
  clock: FakeClock;
  calls: string[];
  evicted: Array<{ pod: V1Pod; opts: EvictPodOptions }>;
  /** The next summary the fake stats return (set `next` to change). */
  stats: {
    next: (now: number) => EvictionSummary;
    afterReclaim?: (now: number) => EvictionSummary;
  };
  pods: V1Pod[];
  registry: ReturnType<typeof createMetricsRegistry>;
  manager: ReturnType<typeof createEvictionManager>;
}

export function harness(opts: {
  hard?: Record<string, string>;
  soft?: Record<string, string>;
  softGrace?: Record<string, string>;
  minReclaim?: Record<string, string>;
  config?: Partial<EvictionConfig>;
  pods?: V1Pod[];
  next?: (now: number) => EvictionSummary;
  reclaimFails?: boolean;
  /** Stats without `sampleNow` (a provider that cannot sample on demand). */
  noSampleNow?: boolean;
  /** What an eviction does after it is recorded; default: the pod is gone at once. */
  evictPod?: (pod: V1Pod, opts: EvictPodOptions) => Promise<void>;
}): Harness {
  const clock = new FakeClock();
  const calls: string[] = [];
  const evicted: Harness["evicted"] = [];
  const registry = createMetricsRegistry();
  const h = {
    clock,
    calls,
    evicted,
    registry,
    pods: opts.pods ?? [],
    stats: { next: opts.next ?? ((now: number) => summary(now, { memAvailable: 4 * Gi })) },
  } as Harness;
  let reclaimed = false;
  const deps: EvictionManagerDeps = {
    stats: {
      summary: (o) => {
        // The node's signals alone, or pods too (to rank them).
        calls.push(o?.pods === false ? "summary:node" : "summary");
        const fn = reclaimed && h.stats.afterReclaim ? h.stats.afterReclaim : h.stats.next;
        const s = fn(clock.now());
        // As the provider may: no pods in a node-only read, so ranking must ask for them.
        return Promise.resolve(o?.pods === false ? { ...s, pods: [] } : s);
      },
      sampleNow: opts.noSampleNow ? undefined : () => {
        calls.push("sampleNow");
        const fn = h.stats.afterReclaim ?? h.stats.next;
        return Promise.resolve(fn(clock.now() + 1));
      },
    },
    reclaimer: {
      collectContainers: () => {
        calls.push("collectContainers");
        reclaimed = true;
        return opts.reclaimFails ? Promise.reject(new Error("gc broke")) : Promise.resolve();
      },
      collectImages: ({ bytesToFree }) => {
        calls.push(`collectImages:${bytesToFree > 1e15 ? "all" : bytesToFree}`);
        return Promise.resolve();
      },
    },
    pods: () => h.pods,
    evictPod: (p, o) => {
      calls.push(`evict:${p.metadata?.name}`);
      evicted.push({ pod: p, opts: o });
      h.pods = h.pods.filter((x) => x !== p);
      return opts.evictPod ? opts.evictPod(p, o) : Promise.resolve();
    },
    clock,
    logger: nullLogger,
    metrics: registry,
    config: {
      thresholds: parseThresholdConfig({
        hard: opts.hard ?? {},
        soft: opts.soft,
        softGracePeriod: opts.softGrace,
        minimumReclaim: opts.minReclaim,
      }),
      pressureTransitionPeriodMs: 5 * 60_000,
      maxPodGracePeriodSeconds: 0,
      evictStaticPods: true,
      ...opts.config,
    },
  };
  h.manager = createEvictionManager(deps);
  return h;
}

export function condition(h: Harness, type: string): string | undefined {
  return h.manager.conditions().find((c) => c.type === type)?.status;
}
