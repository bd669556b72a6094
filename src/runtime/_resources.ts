/**
 * The cgroup numbers derived from a container's resources, with the kubelet's formulas
 * (pkg/kubelet/cm/helpers_linux.go, kuberuntime_container_linux.go, pkg/kubelet/qos/policy.go).
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { totalmem } from "node:os";
import type { HugepageLimit, LinuxContainerResources } from "../cri/types.ts";
import { hugePageLimits } from "../util/hugepages.ts";
import { ConfigError } from "../util/errors.ts";
import { qosClass } from "../util/qos.ts";
import { isSidecar } from "../util/sidecar.ts";
import { isCriticalPod } from "../util/static_pod.ts";
import {
  aggregateContainers,
  podLevelList,
  podLevelRequestsSet,
  podLevelResourcesSet,
} from "../util/pod_level.ts";
import { type QuantityInput, quantityMilliValue, quantityValue } from "../util/quantity.ts";

const MIN_SHARES = 2;
const MAX_SHARES = 262144;
const SHARES_PER_CPU = 1024;
/** Default CFS period in microseconds (cpuCFSQuotaPeriod 100ms). */
export const QUOTA_PERIOD_US = 100000;
const MIN_QUOTA_PERIOD = 1000;

const GUARANTEED_OOM_SCORE_ADJ = -997;
const BEST_EFFORT_OOM_SCORE_ADJ = 1000;

/** cgroup v1 cpu.shares for a CPU request in millicores; 0 (no request) gives the minimum 2. */
export function milliCPUToShares(milliCPU: number): number {
  if (milliCPU <= 0) return MIN_SHARES;
  const shares = Math.floor((milliCPU * SHARES_PER_CPU) / 1000);
  return Math.min(MAX_SHARES, Math.max(MIN_SHARES, shares));
}

/** CFS quota in microseconds for a CPU limit; 0 (no limit) means unlimited. */
export function milliCPUToQuota(milliCPU: number, period: number): number {
  if (milliCPU <= 0) return 0;
  return Math.max(MIN_QUOTA_PERIOD, Math.floor((milliCPU * period) / 1000));
}

/** "cpu", "memory", "ephemeral-storage", "hugepages-<size>", ... */
type ResourceName = string;

function rawAmount(
  c: V1Container,
  kind: "requests" | "limits",
  name: ResourceName,
): QuantityInput | undefined {
  const raw = (c.resources?.[kind] as Record<string, QuantityInput> | undefined)?.[name];
  return raw === undefined || raw === null ? undefined : raw;
}

/** One resource of a container; `kind` picks requests or limits. 0 when unset, never negative. */
function amount(
  c: V1Container,
  kind: "requests" | "limits",
  name: ResourceName,
  milli: boolean,
): number {
  const raw = rawAmount(c, kind, name);
  if (raw === undefined) return 0;
  const field = `containers[${c.name}].resources.${kind}.${name}`;
  const v = milli ? quantityMilliValue(raw, { field }) : quantityValue(raw, { field });
  if (v < 0) throw new ConfigError(field, `must not be negative, got ${JSON.stringify(raw)}`);
  return v;
}

/**
 * A request, or the limit when the request is absent, as API defaulting fills it in. An
 * explicit 0 request stays 0 (upstream: `requests.cpu: 0` with a limit gets the minimum shares).
 */
function request(c: V1Container, name: ResourceName, milli: boolean): number {
  const kind = rawAmount(c, "requests", name) === undefined ? "limits" : "requests";
  return amount(c, kind, name, milli);
}

/** CPU request in millicores, falling back to the limit when absent as API defaulting does. */
export function cpuRequestMilli(c: V1Container): number {
  return request(c, "cpu", true);
}
export function cpuLimitMilli(c: V1Container): number {
  return amount(c, "limits", "cpu", true);
}
/** Memory request in bytes, falling back to the limit when absent as API defaulting does. */
export function memoryRequestBytes(c: V1Container): number {
  return request(c, "memory", false);
}
export function memoryLimitBytes(c: V1Container): number {
  return amount(c, "limits", "memory", false);
}
/**
 * The limit a container runs with (getCPULimit / getMemoryLimit): its own, or, when it has
 * none and the pod sets pod-level resources, the pod-level limit (0 when that is unset too).
 */
function effectiveLimit(pod: V1Pod | undefined, c: V1Container, name: "cpu" | "memory"): number {
  const own = name === "cpu" ? cpuLimitMilli(c) : memoryLimitBytes(c);
  if (own > 0 || !pod || !podLevelResourcesSet(pod)) return own;
  const q = podLevelList(pod, "limits")[name];
  if (q === undefined) return 0;
  const field = `spec.resources.limits.${name}`;
  return name === "cpu" ? quantityMilliValue(q, { field }) : quantityValue(q, { field });
}

/** The cpu request for shares: the container's own, else the limit it runs with. */
function effectiveCPURequest(pod: V1Pod | undefined, c: V1Container): number {
  if (rawAmount(c, "requests", "cpu") !== undefined) return amount(c, "requests", "cpu", true);
  return effectiveLimit(pod, c, "cpu");
}

/**
 * A byte-valued resource (memory, ephemeral-storage, hugepages-<size>) in bytes, 0 when unset;
 * a request falls back to the limit when absent, as API defaulting does.
 */
export function resourceBytes(
  c: V1Container,
  kind: "requests" | "limits",
  name: ResourceName,
): number {
  return kind === "requests" ? request(c, name, false) : amount(c, "limits", name, false);
}

/** oom_score_adj for a container (qos.GetContainerOOMScoreAdjust). */
export function containerOOMScoreAdj(
  pod: V1Pod,
  container: V1Container,
  memoryCapacityBytes: number,
): number {
  // Static pods are critical upstream; with system-node-critical they are the last to go.
  if (pod.spec?.priorityClassName === "system-node-critical") return GUARANTEED_OOM_SCORE_ADJ;
  const qos = qosClass(pod);
  if (qos === "Guaranteed") return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === "BestEffort") return BEST_EFFORT_OOM_SCORE_ADJ;
  // A pod-level memory request beyond the containers' is shared out among them evenly.
  const extra = unclaimedPodMemoryPerContainer(pod);
  const fromRequest = (bytes: number) =>
    1000 - Math.floor((1000 * (bytes + extra)) / memoryCapacityBytes);
  let adj = fromRequest(memoryRequestBytes(container));
  if (isSidecar(pod, container)) {
    // A sidecar is killed no sooner than the app container with the smallest request.
    const regular = pod.spec?.containers ?? [];
    if (regular.length) {
      adj = Math.min(adj, fromRequest(Math.min(...regular.map(memoryRequestBytes))));
    }
  }
  if (adj < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adj === BEST_EFFORT_OOM_SCORE_ADJ) return adj - 1;
  return adj;
}

/** remainingPodMemReqPerContainer: 0 unless the pod sets a pod-level memory request. */
function unclaimedPodMemoryPerContainer(pod: V1Pod): number {
  if (!podLevelRequestsSet(pod)) return 0;
  const q = podLevelList(pod, "requests").memory;
  const podRequest = q === undefined
    ? 0
    : quantityValue(q, { field: "spec.resources.requests.memory" });
  if (podRequest === 0) return 0;
  const count = (pod.spec?.containers?.length ?? 0) + (pod.spec?.initContainers?.length ?? 0);
  const left = Math.max(0, podRequest - aggregateContainers(pod, memoryRequestBytes));
  return count > 0 ? Math.floor(left / count) : 0;
}

export interface LinuxResourcesOptions {
  /** When given, oomScoreAdj is set from the pod's QoS class as upstream does. */
  pod?: V1Pod;
  /** Node memory for the Burstable OOM formula; defaults to the machine's total memory. */
  memoryCapacityBytes?: number;
  /** CFS period in microseconds; default 100000. */
  cpuPeriod?: number;
  /**
   * The node's cgroup version. On v2 the container's cgroup gets memory.oom.group=1, so an OOM
   * kills the whole container, as upstream; unknown (unset) adds nothing.
   */
  cgroupVersion?: 1 | 2;
  /** --single-process-oom-kill: keep the kernel's one-process OOM kill on v2; default false. */
  singleProcessOOMKill?: boolean;
  /**
   * The host's huge page sizes ("2MB", "1GB"): each gets a hugetlb limit, 0 unless the
   * container (or its pod, at pod level) has a hugepages-<size> limit. Unknown: none is sent.
   */
  hugePageSizes?: readonly string[];
  /** The node's swap settings; without them (or without a swap controller) none are sent. */
  swap?: SwapSettings;
}

/** How containers get swap (memorySwap.swapBehavior), and what the node has of it. */
export interface SwapSettings {
  /** "" and "NoSwap": none; "LimitedSwap": Burstable containers' share, on cgroup v2. */
  behavior: string;
  /** The cgroup swap controller exists (memory.memsw.* on v1, memory.swap.max on v2). */
  controller: boolean;
  /** SwapTotal of the node. */
  capacityBytes: number;
  /** MemTotal of the node. */
  memoryBytes: number;
}

/**
 * The CRI resources for a container: cpu shares from the request (falling back to the limit
 * when absent), CFS quota from the limit (0 = unlimited, period always set), memory limit when
 * set, and memory.oom.group on cgroup v2. A container without a cpu or memory limit in a pod
 * with pod-level resources runs with the pod-level limit. Throws ConfigError for quantities
 * that do not parse.
 */
export function linuxResources(
  container: V1Container,
  opts: LinuxResourcesOptions = {},
): LinuxContainerResources {
  const period = opts.cpuPeriod ?? QUOTA_PERIOD_US;
  const out: LinuxContainerResources = {
    cpuPeriod: period,
    cpuQuota: milliCPUToQuota(effectiveLimit(opts.pod, container, "cpu"), period),
    cpuShares: milliCPUToShares(effectiveCPURequest(opts.pod, container)),
  };
  const mem = effectiveLimit(opts.pod, container, "memory");
  if (mem > 0) out.memoryLimitInBytes = mem;
  if (opts.pod) {
    out.oomScoreAdj = containerOOMScoreAdj(
      opts.pod,
      container,
      opts.memoryCapacityBytes ?? totalmem(),
    );
  }
  if (opts.cgroupVersion === 2 && !opts.singleProcessOOMKill) {
    out.unified = { "memory.oom.group": "1" };
  }
  const hugePages = containerHugePageLimits(container, opts);
  if (hugePages) out.hugepageLimits = hugePages;
  if (opts.swap?.controller) configureSwap(out, container, opts);
  return out;
}

/**
 * configureContainerSwapResources: no swap (v1: the memory+swap limit equals the memory
 * limit; v2: memory.swap.max=0), or for LimitedSwap on v2 the container's share of the node's
 * swap in proportion to its memory request.
 */
function configureSwap(
  out: LinuxContainerResources,
  container: V1Container,
  opts: LinuxResourcesOptions & { swap?: SwapSettings },
): void {
  const swap = opts.swap!;
  if (opts.cgroupVersion !== 2) {
    // Some swapping is still possible; with no memory limit (0) none is sent either.
    if (out.memoryLimitInBytes) out.memorySwapLimitInBytes = out.memoryLimitInBytes;
    return;
  }
  let bytes = 0;
  if (swap.behavior === "LimitedSwap" && opts.pod && limitedSwapApplies(opts.pod, container)) {
    const request = memoryRequestBytes(container);
    // calcSwapForBurstablePods: a request above the node's memory gets none.
    if (swap.memoryBytes > 0 && request <= swap.memoryBytes) {
      bytes = Math.trunc((request / swap.memoryBytes) * swap.capacityBytes);
    }
  }
  out.unified = { ...out.unified, "memory.swap.max": `${bytes}` };
}

/**
 * GetContainerSwapBehavior: LimitedSwap where the node gives containers swap (LimitedSwap, a
 * swap controller, cgroup v2) and this container is one that gets some; NoSwap otherwise.
 */
export function containerSwapBehavior(
  pod: V1Pod,
  container: V1Container,
  opts: { swap?: SwapSettings; cgroupVersion?: 1 | 2 },
): "NoSwap" | "LimitedSwap" {
  const swap = opts.swap;
  if (swap?.behavior !== "LimitedSwap" || !swap.controller || opts.cgroupVersion !== 2) {
    return "NoSwap";
  }
  return limitedSwapApplies(pod, container) ? "LimitedSwap" : "NoSwap";
}

/**
 * GetContainerSwapBehavior's LimitedSwap conditions: a Burstable pod that is not critical, and
 * a container that asks for memory with a request below its limit.
 */
function limitedSwapApplies(pod: V1Pod, container: V1Container): boolean {
  if (isCriticalPod(pod) || qosClass(pod) !== "Burstable") return false;
  const request = memoryRequestBytes(container);
  const limit = memoryLimitBytes(container);
  return (request !== 0 || limit !== 0) && request !== limit;
}

/**
 * GetHugepageLimitsFromResources: every host page size, limited to the container's
 * hugepages-<size> limit, else the pod-level one, else 0 (huge pages are never overcommitted).
 */
function containerHugePageLimits(
  container: V1Container,
  opts: LinuxResourcesOptions,
): HugepageLimit[] | undefined {
  if (!opts.hugePageSizes?.length) return undefined;
  const wanted = {
    ...(opts.pod && podLevelResourcesSet(opts.pod)
      ? hugePageLimits(podLevelList(opts.pod, "limits"))
      : {}),
    ...hugePageLimits(container.resources?.limits),
  };
  return opts.hugePageSizes.map((pageSize) => ({ pageSize, limit: wanted[pageSize] ?? 0 }));
}
