/**
 * The cgroup values of a pod-level cgroup (pkg/kubelet/cm/helpers_linux.go ResourceConfigForPod,
 * with resource.PodRequests/PodLimits from component-helpers): requests and limits summed over
 * app containers and sidecars, maxed with each init container, plus the pod overhead.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import {
  cpuLimitMilli,
  cpuRequestMilli,
  memoryLimitBytes,
  memoryRequestBytes,
  milliCPUToQuota,
  milliCPUToShares,
  QUOTA_PERIOD_US,
  resourceBytes,
} from "../runtime/mod.ts";
import { hugePageLimits, HUGEPAGES_PREFIX } from "../util/hugepages.ts";
import { qosClass } from "../util/qos.ts";
import { isRestartableInit } from "../util/sidecar.ts";
import {
  aggregateContainers,
  podLevelList,
  podLevelRequestsSet,
  podLevelResourcesSet,
} from "../util/pod_level.ts";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";

/** What a cgroup is set to; an absent field is left as the kernel (or the parent) has it. */
export interface ResourceConfig {
  /** v1 cpu.shares (v2 cpu.weight is derived from it). */
  cpuShares?: number;
  /** CFS quota in µs; -1 means unlimited. Written only with cpuPeriod. */
  cpuQuota?: number;
  /** CFS period in µs. */
  cpuPeriod?: number;
  /** Memory limit in bytes. */
  memoryLimitBytes?: number;
  /** pids.max; -1 means unlimited. */
  pidsLimit?: number;
  /**
   * hugetlb limits in bytes by page size ("2MB"). Given, every page size of the host is
   * written: those named here with their value, the others 0 (upstream maybeSetHugetlb).
   */
  hugePageLimits?: Record<string, number>;
}

export interface PodResourceOptions {
  /** --cpu-cfs-quota (default true): false leaves the quota unlimited (-1). */
  enforceCPULimits?: boolean;
  /** --cpu-cfs-quota-period in µs; default 100000. */
  cpuPeriod?: number;
}

interface Amounts {
  cpuMilli: number;
  memory: number;
}

const ZERO: Amounts = { cpuMilli: 0, memory: 0 };

const add = (a: Amounts, b: Amounts): Amounts => ({
  cpuMilli: a.cpuMilli + b.cpuMilli,
  memory: a.memory + b.memory,
});
const max = (a: Amounts, b: Amounts): Amounts => ({
  cpuMilli: Math.max(a.cpuMilli, b.cpuMilli),
  memory: Math.max(a.memory, b.memory),
});

const requestsOf = (c: V1Container): Amounts => ({
  cpuMilli: cpuRequestMilli(c),
  memory: memoryRequestBytes(c),
});
const limitsOf = (c: V1Container): Amounts => ({
  cpuMilli: cpuLimitMilli(c),
  memory: memoryLimitBytes(c),
});

/**
 * Sum over app containers and sidecars; each init container counts alone, on top of the
 * sidecars started before it; the pod needs the larger of the two (resource.PodRequests).
 */
function podAmounts(pod: V1Pod, of: (c: V1Container) => Amounts): Amounts {
  let total = ZERO;
  for (const c of pod.spec?.containers ?? []) total = add(total, of(c));
  let sidecars = ZERO;
  let initMax = ZERO;
  for (const c of pod.spec?.initContainers ?? []) {
    let need = of(c);
    if (isRestartableInit(c)) {
      total = add(total, need);
      sidecars = add(sidecars, need);
      need = sidecars;
    } else {
      need = add(need, sidecars);
    }
    initMax = max(initMax, need);
  }
  return max(total, initMax);
}

/**
 * The pod-level amounts that replace the containers' (applyPodLevelResources): requests when
 * the pod sets pod-level requests, limits when it sets pod-level resources at all.
 */
function withPodLevel(pod: V1Pod, kind: "requests" | "limits", containers: Amounts): Amounts {
  const set = kind === "requests" ? podLevelRequestsSet(pod) : podLevelResourcesSet(pod);
  if (!set) return containers;
  const list = podLevelList(pod, kind);
  const field = `spec.resources.${kind}`;
  return {
    cpuMilli: list.cpu === undefined
      ? containers.cpuMilli
      : quantityMilliValue(list.cpu, { field: `${field}.cpu` }),
    memory: list.memory === undefined
      ? containers.memory
      : quantityValue(list.memory, { field: `${field}.memory` }),
  };
}

function overhead(pod: V1Pod): Amounts {
  const o = pod.spec?.overhead as Record<string, string | number> | undefined;
  return {
    cpuMilli: o?.cpu === undefined ? 0 : quantityMilliValue(o.cpu, { field: "spec.overhead.cpu" }),
    memory: o?.memory === undefined
      ? 0
      : quantityValue(o.memory, { field: "spec.overhead.memory" }),
  };
}

/**
 * The pod cgroup's values: cpu shares from the summed requests (at least 2); CFS quota and
 * memory limit from the summed limits, but only when every container (init ones included)
 * declares that limit, since one unlimited container makes the pod unlimited. Pod-level
 * resources replace the sums they name, and a pod-level limit declares that limit. Guaranteed
 * pods always get all three; BestEffort only the minimum shares. Throws ConfigError for
 * quantities that do not parse.
 */
export function resourceConfigForPod(pod: V1Pod, opts: PodResourceOptions = {}): ResourceConfig {
  const period = opts.cpuPeriod ?? QUOTA_PERIOD_US;
  const all = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
  const extra = overhead(pod);
  const requests = add(withPodLevel(pod, "requests", podAmounts(pod, requestsOf)), extra);
  const limits = withPodLevel(pod, "limits", podAmounts(pod, limitsOf));
  const podLimits = podLevelResourcesSet(pod) ? withPodLevel(pod, "limits", ZERO) : ZERO;
  const cpuLimitsDeclared = podLimits.cpuMilli > 0 || all.every((c) => cpuLimitMilli(c) > 0);
  const memoryLimitsDeclared = podLimits.memory > 0 || all.every((c) => memoryLimitBytes(c) > 0);
  // Overhead only raises limits that exist (PodLimits).
  if (limits.cpuMilli > 0) limits.cpuMilli += extra.cpuMilli;
  if (limits.memory > 0) limits.memory += extra.memory;

  const cpuShares = milliCPUToShares(requests.cpuMilli);
  const cpuQuota = opts.enforceCPULimits === false ? -1 : milliCPUToQuota(limits.cpuMilli, period);
  switch (qosClass(pod)) {
    case "Guaranteed":
      return { cpuShares, cpuQuota, cpuPeriod: period, memoryLimitBytes: limits.memory };
    case "Burstable": {
      const out: ResourceConfig = { cpuShares };
      if (cpuLimitsDeclared) Object.assign(out, { cpuQuota, cpuPeriod: period });
      if (memoryLimitsDeclared) out.memoryLimitBytes = limits.memory;
      return out;
    }
    case "BestEffort":
      return { cpuShares: milliCPUToShares(0) };
  }
}

/**
 * The pod cgroup's hugetlb limits (ResourceConfigForPod's HugePageLimits of the pod requests):
 * each hugepages-<size> request summed over the containers as the pod needs them, the
 * pod-level request instead where the pod sets one; keyed by cgroup page size ("2MB").
 */
export function podHugePageLimits(pod: V1Pod): Record<string, number> {
  const requested: Record<string, number> = {};
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  const names = new Set(
    all.flatMap((c) => [
      ...Object.keys(c.resources?.requests ?? {}),
      ...Object.keys(c.resources?.limits ?? {}),
    ]).filter((n) => n.startsWith(HUGEPAGES_PREFIX)),
  );
  for (const name of names) {
    requested[name] = aggregateContainers(pod, (c) => resourceBytes(c, "requests", name));
  }
  if (podLevelRequestsSet(pod)) {
    for (const [name, q] of Object.entries(podLevelList(pod, "requests"))) {
      if (name.startsWith(HUGEPAGES_PREFIX)) requested[name] = quantityValue(q);
    }
  }
  return hugePageLimits(requested);
}

/** The pod's cpu request in millicores (for the burstable QoS cgroup's shares). */
export function podCPURequestMilli(pod: V1Pod): number {
  return withPodLevel(pod, "requests", podAmounts(pod, requestsOf)).cpuMilli +
    overhead(pod).cpuMilli;
}

/**
 * cgroup v2 cpu.weight for v1 shares, the linear map [2, 262144] → [1, 10000] runc and the
 * kubelet use (libcontainer ConvertCPUSharesToCgroupV2Value).
 */
export function sharesToWeight(shares: number): number {
  if (shares <= 0) return 0;
  return 1 + Math.floor(((shares - 2) * 9999) / 262142);
}

/** cgroup v2 cpu.max: "<quota> <period>", "max <period>" when unlimited. */
export function cpuMax(quota: number | undefined, period: number): string {
  return `${quota === undefined || quota <= 0 ? "max" : quota} ${period}`;
}
