/**
 * What a pod asks of the node, and whether the node has it (the scheduler's `noderesources.Fits`,
 * which the kubelet runs again at admission): pod requests by the sidecar-aware formula
 * (component-helpers `PodRequests`), then pods, cpu, memory, ephemeral-storage and the scalar
 * resources against allocatable minus what the other active pods request.
 */
import type { V1Container, V1ContainerStatus, V1Node, V1Pod } from "@kubernetes/client-node";
import { quantityMilliValue, quantityValue } from "../util/quantity.ts";
import { isPodLevelResource, podLevelRequestsSet } from "../util/pod_level.ts";

/** Resource amounts by name: cpu in millicores, everything else in whole units (bytes, pages). */
export type Amounts = Map<string, number>;

/** One resource the node lacks (upstream InsufficientResource). */
export interface Shortage {
  resource: string;
  requested: number;
  used: number;
  capacity: number;
}

const CPU = "cpu";
const MEMORY = "memory";
const EPHEMERAL = "ephemeral-storage";

/** The amount of `q` for resource `name`; an unparsable quantity counts as nothing. */
function amount(name: string, q: unknown): number {
  if (typeof q !== "string" && typeof q !== "number") return 0;
  try {
    return name === CPU ? quantityMilliValue(q) : quantityValue(q);
  } catch {
    // Validation refuses such pods before they get here; a leftover counts as zero.
    return 0;
  }
}

function toAmounts(list: Record<string, unknown> | undefined): Amounts {
  const out: Amounts = new Map();
  for (const [name, q] of Object.entries(list ?? {})) out.set(name, amount(name, q));
  return out;
}

function add(into: Amounts, more: Amounts): void {
  for (const [k, v] of more) into.set(k, (into.get(k) ?? 0) + v);
}

function max(into: Amounts, other: Amounts): void {
  for (const [k, v] of other) if (v > (into.get(k) ?? 0)) into.set(k, v);
}

type List = Record<string, unknown> | undefined;
/** What one container counts for: its spec, or a view of its status (UseStatusResources). */
type ContainerList = (c: V1Container, status: V1ContainerStatus | undefined) => List;

/**
 * The pod's effective requests: app containers and sidecars summed; each regular init container
 * runs beside the sidecars declared before it, and the pod needs the largest of those moments;
 * pod-level requests replace the container sum for the resources they name; overhead is added.
 */
export function podRequests(pod: V1Pod): Amounts {
  const total = aggregate(pod, (c) => c.resources?.requests as List);
  addPodLevel(total, pod, pod.spec?.resources?.requests as List);
  add(total, toAmounts(pod.spec?.overhead as Record<string, unknown> | undefined));
  return total;
}

/**
 * What an admitted pod holds of the node while a resize of it may be under way (PodRequests
 * with UseStatusResources, as the scheduler's NodeInfo counts it): the largest of its spec,
 * what it was allocated and what it has, by the status the kubelet last computed for it.
 */
export function podUsage(pod: V1Pod): Amounts {
  const status = pod.status;
  if (!status) return podRequests(pod);
  const infeasible = (status.conditions ?? []).some((c) =>
    c.type === "PodResizePending" && c.reason === "Infeasible"
  );
  const statusOf = (name: string) =>
    [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])]
      .find((s) => s.name === name);
  const fallback = (c: V1Container) => infeasible ? undefined : c.resources?.requests as List;
  const allocated: ContainerList = (c, s) => (s?.allocatedResources as List) ?? fallback(c);
  const actual: ContainerList = (c, s) =>
    (s?.resources?.requests as List) ?? (s?.allocatedResources as List) ?? fallback(c);
  const spec = aggregate(pod, (c) => c.resources?.requests as List);
  const podLevel = status as { resources?: { requests?: List }; allocatedResources?: List };
  const usePodLevel = podLevel.allocatedResources !== undefined &&
    podLevel.resources?.requests !== undefined;
  const allocatedTotal = usePodLevel
    ? toAmounts(podLevel.allocatedResources)
    : aggregate(pod, allocated, statusOf);
  const actualTotal = usePodLevel
    ? toAmounts(podLevel.resources!.requests)
    : aggregate(pod, actual, statusOf);
  const total: Amounts = new Map(spec);
  max(total, allocatedTotal);
  max(total, actualTotal);
  addPodLevel(total, pod, pod.spec?.resources?.requests as List);
  add(total, toAmounts(pod.spec?.overhead as Record<string, unknown> | undefined));
  return total;
}

/** Pod-level requests replace the container sum for the resources they name. */
function addPodLevel(total: Amounts, pod: V1Pod, podLevel: List): void {
  if (!podLevelRequestsSet(pod)) return;
  for (const [name, q] of Object.entries(podLevel ?? {})) {
    if (isPodLevelResource(name)) total.set(name, amount(name, q));
  }
}

/** The containers' amounts as the pod needs them (sidecars beside the init containers). */
function aggregate(
  pod: V1Pod,
  of: ContainerList,
  statusOf: (name: string) => V1ContainerStatus | undefined = () => undefined,
): Amounts {
  const spec = pod.spec;
  const listOf = (c: V1Container) => toAmounts(of(c, statusOf(c.name)));
  const total: Amounts = new Map();
  for (const c of spec?.containers ?? []) add(total, listOf(c));
  const sidecars: Amounts = new Map();
  const initPeak: Amounts = new Map();
  for (const c of spec?.initContainers ?? []) {
    const own = listOf(c);
    if (c.restartPolicy === "Always") {
      add(total, own);
      add(sidecars, own);
      max(initPeak, sidecars);
    } else {
      const moment: Amounts = new Map(own);
      add(moment, sidecars);
      max(initPeak, moment);
    }
  }
  max(total, initPeak);
  return total;
}

/**
 * Extended resources (a domain other than kubernetes.io) the node does not list are ignored, as
 * upstream's admission does: they may be cluster-level or DRA-backed.
 */
function isExtendedResource(name: string): boolean {
  if (!name.includes("/") || name.startsWith("requests.")) return false;
  const domain = name.slice(0, name.indexOf("/"));
  return domain !== "kubernetes.io" && !domain.endsWith(".kubernetes.io");
}

/**
 * What the node lacks for `pod` beside `others` (the active pods), in upstream order: pods,
 * cpu, memory, ephemeral-storage, then the other resources by name. `maxPods` is the pod
 * capacity. Empty when the pod fits.
 */
export function resourceShortages(
  pod: V1Pod,
  ctx: { others: readonly V1Pod[]; node: V1Node; maxPods: number },
): Shortage[] {
  const out: Shortage[] = [];
  if (ctx.others.length + 1 > ctx.maxPods) {
    out.push({ resource: "pods", requested: 1, used: ctx.others.length, capacity: ctx.maxPods });
  }
  const allocatable = toAmounts(ctx.node.status?.allocatable as Record<string, unknown>);
  const want = podRequests(pod);
  for (const name of [...want.keys()]) {
    if (isExtendedResource(name) && !allocatable.has(name)) want.delete(name);
  }
  if ([...want.values()].every((v) => v === 0)) return out;
  const used: Amounts = new Map();
  for (const other of ctx.others) add(used, podUsage(other));
  const scalars = [...want.keys()].filter((n) => n !== CPU && n !== MEMORY && n !== EPHEMERAL)
    .sort();
  for (const name of [CPU, MEMORY, EPHEMERAL, ...scalars]) {
    const requested = want.get(name) ?? 0;
    if (requested <= 0) continue;
    const capacity = allocatable.get(name) ?? 0;
    const inUse = used.get(name) ?? 0;
    if (requested > capacity - inUse) {
      out.push({ resource: name, requested, used: inUse, capacity });
    }
  }
  return out;
}
