/**
 * What a pod asks of the node, and whether the node has it (the scheduler's `noderesources.Fits`,
 * which the kubelet runs again at admission): pod requests by the sidecar-aware formula
 * (component-helpers `PodRequests`), then pods, cpu, memory, ephemeral-storage and the scalar
 * resources against allocatable minus what the other active pods request.
 */
import type { V1Container, V1Node, V1Pod } from "@kubernetes/client-node";
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

function containerRequests(c: V1Container): Amounts {
  return toAmounts(c.resources?.requests as Record<string, unknown> | undefined);
}

/**
 * The pod's effective requests: app containers and sidecars summed; each regular init container
 * runs beside the sidecars declared before it, and the pod needs the largest of those moments;
 * pod-level requests replace the container sum for the resources they name; overhead is added.
 */
export function podRequests(pod: V1Pod): Amounts {
  const spec = pod.spec;
  const total: Amounts = new Map();
  for (const c of spec?.containers ?? []) add(total, containerRequests(c));
  const sidecars: Amounts = new Map();
  const initPeak: Amounts = new Map();
  for (const c of spec?.initContainers ?? []) {
    const own = containerRequests(c);
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
  if (podLevelRequestsSet(pod)) {
    const podLevel = spec?.resources?.requests as Record<string, unknown> | undefined;
    for (const [name, q] of Object.entries(podLevel ?? {})) {
      if (isPodLevelResource(name)) total.set(name, amount(name, q));
    }
  }
  add(total, toAmounts(spec?.overhead as Record<string, unknown> | undefined));
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
  for (const other of ctx.others) add(used, podRequests(other));
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
