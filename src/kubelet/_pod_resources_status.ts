/**
 * status.resources and status.allocatedResources of a pod (InPlacePodLevelResourcesVerticalScaling,
 * beta and on in v1.37; upstream convertToAPIPodLevelResourcesStatus): what the pod was
 * allocated, and for a running pod what its cgroup holds.
 */
import type {
  V1Container,
  V1Pod,
  V1PodStatus,
  V1ResourceRequirements,
} from "@kubernetes/client-node";
import type { CgroupValues } from "../runtime/mod.ts";
import { formatQuantity, tryIntegerQuantity } from "../util/quantity.ts";
import { quantityMilliValue } from "../util/quantity.ts";
import { podRequests } from "./_admission_fit.ts";

/** V1PodStatus with the fields @kubernetes/client-node does not have yet. */
export type PodStatusWithResources = V1PodStatus & {
  resources?: V1ResourceRequirements;
  allocatedResources?: Record<string, string>;
};

/** cm.MinShares and cm.MinMilliCPULimit. */
const MIN_SHARES = 2;
const MIN_MILLI_CPU_LIMIT = 10;

function milliQuantity(milli: number): string {
  return milli % 1000 === 0 ? formatQuantity(milli / 1000, "DecimalSI") : `${milli}m`;
}

function milli(q: unknown): number {
  if (typeof q !== "string" && typeof q !== "number") return 0;
  try {
    return quantityMilliValue(q);
  } catch {
    // Validation keeps unparsable quantities out; such a value counts as none.
    return 0;
  }
}

/** The format a resource's quantities are written in (the first container naming it). */
function formatOf(pod: V1Pod, name: string): "BinarySI" | "DecimalSI" {
  const all = [
    ...(pod.spec?.containers ?? []),
    ...(pod.spec?.initContainers ?? []),
    { name: "", resources: pod.spec?.resources } as V1Container,
  ];
  for (const c of all) {
    for (const kind of ["requests", "limits"] as const) {
      const q = (c.resources?.[kind] as Record<string, unknown> | undefined)?.[name];
      if (q !== undefined) return tryIntegerQuantity(q)?.format ?? "DecimalSI";
    }
  }
  return "DecimalSI";
}

function asList(pod: V1Pod, amounts: Map<string, number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of [...amounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out[name] = name === "cpu" ? milliQuantity(v) : formatQuantity(v, formatOf(pod, name));
  }
  return out;
}

/** resource.PodLimits: the containers' limits as the pod needs them, pod-level ones instead. */
function podLimits(pod: V1Pod): Map<string, number> {
  const limitsOnly: V1Pod = {
    ...pod,
    spec: {
      ...pod.spec!,
      containers: (pod.spec?.containers ?? []).map((c) => asRequests(c)),
      initContainers: pod.spec?.initContainers?.map((c) => asRequests(c)),
      resources: pod.spec?.resources?.limits ? { requests: pod.spec.resources.limits } : undefined,
      overhead: undefined,
    },
  };
  const out = podRequests(limitsOnly);
  // Overhead only raises the limits that exist.
  for (const [name, q] of Object.entries(pod.spec?.overhead ?? {})) {
    const v = out.get(name);
    if (v) out.set(name, v + (name === "cpu" ? milli(q) : Math.ceil(milli(q) / 1000)));
  }
  return out;
}

function asRequests(c: V1Container): V1Container {
  return { ...c, resources: { requests: c.resources?.limits ?? {} } };
}

/** status.allocatedResources: the pod's requests (resource.PodRequests). */
export function podAllocatedResources(pod: V1Pod): Record<string, string> {
  return asList(pod, podRequests(pod));
}

/**
 * status.resources. `running` is the phase the pod had; `cgroup` what its cgroup holds now;
 * `old` the previous status's, kept where the cgroup says nothing.
 */
export function podStatusResources(
  pod: V1Pod,
  ctx: { running: boolean; cgroup?: CgroupValues; old?: V1ResourceRequirements },
): V1ResourceRequirements {
  const base = structuredClone(pod.spec?.resources ?? {}) as V1ResourceRequirements;
  if (!ctx.running) {
    return {
      ...base,
      requests: asList(pod, podRequests(pod)),
      limits: asList(pod, podLimits(pod)),
    };
  }
  const requests = { ...(base.requests ?? {}) } as Record<string, string>;
  const limits = { ...(base.limits ?? {}) } as Record<string, string>;
  const keep = (name: string, from: unknown, into: Record<string, string>) => {
    const v = (from as Record<string, string> | undefined)?.[name];
    if (v !== undefined) into[name] = v;
  };
  const cg = ctx.cgroup;
  const shares = cg?.cpuShares ?? 0;
  const requestMilli = shares >= MIN_SHARES ? Math.ceil((shares * 1000) / 1024) : 0;
  if (requestMilli > 0) {
    if (requestMilli > MIN_SHARES || milli(requests.cpu) > MIN_SHARES) {
      requests.cpu = milliQuantity(requestMilli);
    }
  } else keep("cpu", ctx.old?.requests, requests);
  if (requests.memory === undefined) {
    const memory = podRequests(pod).get("memory");
    if (memory !== undefined) requests.memory = formatQuantity(memory, formatOf(pod, "memory"));
  }
  const period = cg?.cpuPeriod ?? 0;
  const quota = cg?.cpuQuota ?? -1;
  const limitMilli = period > 0 && quota !== -1 ? Math.trunc((quota * 1000) / period) : 0;
  if (limitMilli > 0) {
    if (limitMilli > MIN_MILLI_CPU_LIMIT || milli(limits.cpu) > MIN_MILLI_CPU_LIMIT) {
      limits.cpu = milliQuantity(limitMilli);
    }
  } else keep("cpu", ctx.old?.limits, limits);
  if (cg?.memoryLimitBytes !== undefined && cg.memoryLimitBytes > 0) {
    limits.memory = formatQuantity(cg.memoryLimitBytes, "BinarySI");
  } else keep("memory", ctx.old?.limits, limits);
  return { ...base, requests, limits };
}
