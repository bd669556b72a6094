/**
 * The part of a pod's status the kubelet owns, compared with what the API server holds, as a
 * strategic merge patch of `pods/<name>/status` (upstream statusutil.PatchPodStatus over the
 * status manager's mergePodStatus). Only what differs is sent: scalars the kubelet sets, the
 * container status lists (replaced whole), pod and host IPs (merged by `ip`, stale ones deleted)
 * and the conditions the kubelet owns (merged by `type`), so conditions others own are never
 * overwritten with a stale copy. A condition the API lacks (PodScheduled on a mirror pod,
 * DisruptionTarget after an eviction) is added. Transition times and the start time the API
 * already holds for unchanged facts are kept.
 *
 * Values are compared in a canonical form: times at whole seconds whatever their spelling, and
 * empty values (Go's omitted zero values: "", 0, false, [], {}, null) left out.
 */
import type { V1PodCondition, V1PodIP, V1PodStatus } from "@kubernetes/client-node";
import { KUBELET_CONDITIONS } from "../sources/api_source.ts";

const SCALARS = [
  "observedGeneration",
  "phase",
  "reason",
  "message",
  "hostIP",
  "podIP",
  "qosClass",
  "startTime",
] as const;
const CONTAINER_LISTS = [
  "initContainerStatuses",
  "containerStatuses",
  "ephemeralContainerStatuses",
] as const;
const IP_LISTS = ["podIPs", "hostIPs"] as const;
/** Maps merged key by key (pod-level resources): a key the kubelet no longer shows is nulled. */
const MAPS = ["resources", "allocatedResources"] as const;

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** RFC 3339 at whole seconds in UTC, as Go's metav1.Time marshals. */
function apiTime(d: Date): string {
  return new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** The value as JSON for the wire: Dates as API times, undefined dropped. */
export function toWire(v: unknown): unknown {
  if (v instanceof Date) return apiTime(v);
  if (Array.isArray(v)) return v.map(toWire);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = toWire(x);
    return out;
  }
  return v;
}

/** The canonical form for comparisons; undefined for an empty value. */
export function canonical(v: unknown): unknown {
  if (v === undefined || v === null || v === "" || v === false || v === 0) return undefined;
  if (v instanceof Date) return apiTime(v);
  if (typeof v === "string" && RFC3339.test(v)) {
    const t = new Date(v);
    return Number.isNaN(t.getTime()) ? v : apiTime(t);
  }
  if (Array.isArray(v)) {
    const items = v.map((x) => canonical(x) ?? null);
    return items.length === 0 ? undefined : items;
  }
  if (typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = canonical((v as Record<string, unknown>)[k]);
      if (x !== undefined) out[k] = x;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}

/** A stable text of the canonical form: equal texts, equal statuses for the API. */
export function canonicalText(v: unknown): string {
  return JSON.stringify(canonical(v)) ?? "";
}

function same(a: unknown, b: unknown): boolean {
  return canonicalText(a) === canonicalText(b);
}

const isTerminal = (phase: string | undefined) => phase === "Succeeded" || phase === "Failed";

/**
 * The `status` of a strategic merge patch that brings `api` to the kubelet's `ours`, or
 * undefined when nothing the kubelet owns differs.
 */
export function statusPatch(
  computed: V1PodStatus,
  api: V1PodStatus | undefined,
): Record<string, unknown> | undefined {
  const ours = withApiTimes(computed, api);
  const held = (api ?? {}) as Record<string, unknown>;
  const mine = ours as Record<string, unknown>;
  const patch: Record<string, unknown> = {};
  for (const field of SCALARS) {
    const v = mine[field];
    if (canonical(v) === undefined || same(v, held[field])) continue;
    // The API server keeps a terminal phase; the kubelet never takes a pod back out of one.
    if (field === "phase" && isTerminal(api?.phase) && !isTerminal(ours.phase)) continue;
    patch[field] = toWire(v);
  }
  for (const field of CONTAINER_LISTS) {
    const v = mine[field];
    if (v === undefined || same(v, held[field])) continue;
    patch[field] = toWire(v);
  }
  for (const field of MAPS) {
    const v = mine[field];
    if (v === undefined || same(v, held[field])) continue;
    patch[field] = mapPatch(toWire(v), held[field]);
  }
  for (const field of IP_LISTS) {
    const v = mine[field] as V1PodIP[] | undefined;
    if (!v || v.length === 0 || same(v, held[field])) continue;
    const keep = new Set(v.map((x) => x.ip));
    const stale = ((held[field] ?? []) as V1PodIP[]).filter((x) => !keep.has(x.ip));
    patch[field] = [
      ...v.map((x) => ({ ip: x.ip })),
      ...stale.map((x) => ({ ip: x.ip, $patch: "delete" })),
    ];
    patch[`$setElementOrder/${field}`] = v.map((x) => ({ ip: x.ip }));
  }
  const apiConditions = api?.conditions ?? [];
  const changed = (ours.conditions ?? []).filter((c: V1PodCondition) => {
    const theirs = apiConditions.find((a) => a.type === c.type);
    if (theirs && !KUBELET_CONDITIONS.has(c.type)) return false;
    return !same(c, theirs);
  });
  // A condition the kubelet owns and no longer shows (a resize no longer pending) goes.
  const gone = apiConditions.filter((a) =>
    KUBELET_CONDITIONS.has(a.type) && !(ours.conditions ?? []).some((c) => c.type === a.type)
  );
  if (changed.length > 0 || gone.length > 0) {
    patch.conditions = [
      ...(toWire(changed) as unknown[]),
      ...gone.map((a) => ({ type: a.type, $patch: "delete" })),
    ];
  }
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** `ours`, with null for what `theirs` has and `ours` has not (a merge patch's deletion). */
function mapPatch(ours: unknown, theirs: unknown): unknown {
  if (!isMap(ours) || !isMap(theirs)) return ours;
  const out: Record<string, unknown> = { ...ours };
  for (const [k, t] of Object.entries(theirs)) {
    out[k] = k in ours ? mapPatch(ours[k], t) : null;
  }
  return out;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * The status manager's rules against the status the API holds: a condition whose status did
 * not change keeps its transition time there, and the start time, once set, stays. A restarted
 * agent (or one whose static pod got a new mirror) computes new times for old facts.
 */
function withApiTimes(ours: V1PodStatus, api: V1PodStatus | undefined): V1PodStatus {
  if (!api) return ours;
  const conditions = ours.conditions?.map((c) => {
    const held = api.conditions?.find((a) => a.type === c.type);
    if (!held || held.status !== c.status || !held.lastTransitionTime) return c;
    return { ...c, lastTransitionTime: held.lastTransitionTime };
  });
  return { ...ours, conditions, startTime: api.startTime ?? ours.startTime };
}
