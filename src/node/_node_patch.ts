/**
 * The registrar's comparisons and patches: the Node the agent computed against the one the API
 * server holds. As upstream's nodeStatusHasChanged, heartbeat times are not a change; a
 * condition keeps the server's transition time while its status stays the same; quantities are
 * compared by value (the server prints `96636764000` as `96636764k`). Patches are strategic
 * merges of `nodes/<name>/status`, so conditions and fields other components own are kept.
 */
import type { V1Node, V1NodeCondition } from "@kubernetes/client-node";
import { quantityMilliValue } from "../util/quantity.ts";
import { type NodeStatusWithDeclared, PROVIDED_NODE_IP } from "./node_status.ts";

type Json = Record<string, unknown>;

/** The annotation that hands volume attach/detach to the controller (upstream's default). */
export const CONTROLLER_MANAGED_ATTACH = "volumes.kubernetes.io/controller-managed-attach-detach";

/**
 * Labels the kubelet puts back on an adopted Node when it computed them, whether as its own
 * defaults or from --node-labels (upstream updateDefaultLabels). Any other label is left to
 * whoever set it.
 */
const DEFAULT_LABELS = [
  "kubernetes.io/hostname",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "node.kubernetes.io/instance-type",
  "beta.kubernetes.io/instance-type",
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "node.kubernetes.io/windows-build",
];

/** Labels whose absence or change is itself a reason to patch (upstream updateNode). */
const REQUIRED_LABELS = ["kubernetes.io/os", "kubernetes.io/arch"];

export interface StatusUpdate {
  /** True when anything but heartbeat times differs from the server's Node. */
  changed: boolean;
  /** The strategic merge patch for `nodes/<name>/status` that makes the server's Node ours. */
  patch: Json;
  /** Conditions whose status differs from the server's (or that it lacks, Ready aside). */
  transitions: Array<{ type: string; status: string }>;
}

/** The Node to create on registration: metadata, taints, provider id and the computed status. */
export function initialNode(ours: V1Node): Json {
  const taints = ours.spec?.taints ?? [];
  const providerID = ours.spec?.providerID;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name: ours.metadata?.name,
      labels: { ...ours.metadata?.labels },
      annotations: { ...ours.metadata?.annotations, [CONTROLLER_MANAGED_ATTACH]: "true" },
    },
    spec: { ...(taints.length > 0 ? { taints } : {}), ...(providerID ? { providerID } : {}) },
    status: {
      ...ours.status,
      conditions: (ours.status?.conditions ?? []).map((c) => wireCondition(c)),
    },
  };
}

/**
 * What registration changes on a Node that already exists (upstream tryRegisterWithAPIServer):
 * the default labels, the attach/detach annotation, huge page sizes, and capacity or
 * allocatable when missing. Other --node-labels and taints count only at creation, as upstream
 * (and NodeRestriction refuses a kubelet's taint changes). Undefined when nothing differs.
 */
export function reconcileExisting(existing: V1Node, ours: V1Node): Json | undefined {
  const labels: Record<string, string | null> = {};
  let labelsChanged = false;
  for (const key of DEFAULT_LABELS) {
    const want = ours.metadata?.labels?.[key];
    if (want === undefined) continue;
    const have = existing.metadata?.labels?.[key];
    // As upstream, a missing label reads as "": an empty value of ours removes the label, yet
    // an empty one already there is no reason to patch on its own.
    if ((have ?? "") !== want) labelsChanged = true;
    if (want === "") {
      if (have !== undefined) labels[key] = null;
    } else if (have !== want) labels[key] = want;
  }
  const metadata: Json = {};
  if (Object.keys(labels).length > 0) metadata.labels = labels;
  if (existing.metadata?.annotations?.[CONTROLLER_MANAGED_ATTACH] !== "true") {
    metadata.annotations = { [CONTROLLER_MANAGED_ATTACH]: "true" };
  }
  const status: Json = {};
  for (const field of ["capacity", "allocatable"] as const) {
    const have = existing.status?.[field];
    const want = ours.status?.[field] ?? {};
    if (have === undefined) {
      status[field] = want;
      continue;
    }
    const diff: Record<string, string | null> = {};
    for (const [name, q] of Object.entries(want)) {
      if (name.startsWith("hugepages-") && !sameQuantity(have[name], q)) diff[name] = q;
    }
    for (const name of Object.keys(have)) {
      if (name.startsWith("hugepages-") && !(name in want)) diff[name] = null;
    }
    if (Object.keys(diff).length > 0) status[field] = diff;
  }
  const annotated = "annotations" in metadata;
  if (!labelsChanged && !annotated && Object.keys(status).length === 0) return undefined;
  return {
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    ...(Object.keys(status).length > 0 ? { status } : {}),
  };
}

/**
 * Compares the server's Node with the computed one and builds the status patch: only what
 * differs, as upstream's two-way merge patch of the lister's Node and the updated one, so an
 * unchanged status (posted every nodeStatusReportFrequency) sends each condition's type and
 * heartbeat alone. `keepServerAddresses` (an external cloud provider): addresses already on the
 * server's Node are the controller's and are left alone, as upstream's NodeAddress setter
 * leaves them.
 */
export function statusUpdate(
  server: V1Node,
  ours: V1Node,
  now: number,
  opts: { keepServerAddresses?: boolean } = {},
): StatusUpdate {
  let changed = false;
  const transitions: StatusUpdate["transitions"] = [];
  const serverConditions = server.status?.conditions ?? [];
  const conditions = (ours.status?.conditions ?? []).map((c) => {
    const had = serverConditions.find((s) => s.type === c.type);
    if (had?.status === c.status) {
      if (had.reason === c.reason && had.message === c.message) {
        // Merged by type: the heartbeat is all that moved.
        return { type: c.type, lastHeartbeatTime: rfc3339(now) };
      }
      changed = true;
      return wireCondition(c, { heartbeat: now, transition: timeMs(had.lastTransitionTime) });
    }
    changed = true;
    // As upstream's setters: a new pressure condition is news, a new Ready is not.
    if (had || c.type !== "Ready") transitions.push({ type: c.type, status: c.status });
    return wireCondition(c, { heartbeat: now, transition: now });
  });

  const patch: Json = {};
  const labels: Record<string, string> = {};
  for (const key of REQUIRED_LABELS) {
    const want = ours.metadata?.labels?.[key];
    if (want !== undefined && server.metadata?.labels?.[key] !== want) labels[key] = want;
  }
  if (Object.keys(labels).length > 0) {
    changed = true;
    patch.metadata = { labels };
  }
  // The provided node IP is kept current, and removed once it no longer applies (upstream's
  // NodeAddress setter cleans a stale one up).
  const providedIP = ours.metadata?.annotations?.[PROVIDED_NODE_IP];
  if (server.metadata?.annotations?.[PROVIDED_NODE_IP] !== providedIP) {
    changed = true;
    patch.metadata = {
      ...patch.metadata as Json,
      annotations: { [PROVIDED_NODE_IP]: providedIP ?? null },
    };
  }

  const status: Json = { conditions };
  const differs = (field: string) => {
    changed = true;
    return field;
  };
  for (const field of ["capacity", "allocatable"] as const) {
    const want = ours.status?.[field] ?? {};
    const have = server.status?.[field] ?? {};
    const out: Record<string, string | null> = {};
    for (const [name, q] of Object.entries(want)) {
      if (!sameQuantity(have[name], q)) out[name] = q;
    }
    // Our own resources that we no longer report (a huge page size gone) are removed.
    for (const name of Object.keys(have)) {
      if (!(name in want) && isOwnResource(name)) out[name] = null;
    }
    if (Object.keys(out).length > 0) status[differs(field)] = out;
  }

  const addresses = ours.status?.addresses ?? [];
  const haveAddresses = server.status?.addresses ?? [];
  if (
    !(opts.keepServerAddresses && haveAddresses.length > 0) &&
    (addresses.length !== haveAddresses.length ||
      addresses.some((a, i) =>
        a.type !== haveAddresses[i].type || a.address !== haveAddresses[i].address
      ))
  ) {
    // NodeStatus.addresses merges by type on the wire, which cannot express a removed or a
    // second address of one type: replace the list, as upstream's PatchNodeStatus does.
    status[differs("addresses")] = [...addresses, { $patch: "replace" }];
  }

  const port = ours.status?.daemonEndpoints?.kubeletEndpoint?.Port;
  if (server.status?.daemonEndpoints?.kubeletEndpoint?.Port !== port) {
    status[differs("daemonEndpoints")] = ours.status?.daemonEndpoints;
  }

  // A struct: merged field by field, so only what differs goes (swap is a struct of its own,
  // compared by value, not by identity).
  const info = (ours.status?.nodeInfo ?? {}) as unknown as Record<string, unknown>;
  const haveInfo = (server.status?.nodeInfo ?? {}) as unknown as Record<string, unknown>;
  const infoDiff: Json = {};
  for (const [k, v] of Object.entries(info)) {
    if (JSON.stringify(haveInfo[k] ?? "") !== JSON.stringify(v ?? "")) infoDiff[k] = v;
  }
  if (Object.keys(infoDiff).length > 0) status[differs("nodeInfo")] = infoDiff;

  // Lists the API server replaces whole (listType atomic) and small structs: sent whole, when
  // they differ.
  type Status = NodeStatusWithDeclared | undefined;
  for (const field of ["runtimeHandlers", "features", "declaredFeatures"] as const) {
    const want = (ours.status as Status)?.[field];
    if (want === undefined) continue;
    const have = (server.status as Status)?.[field];
    if (JSON.stringify(want) !== JSON.stringify(have ?? null)) status[differs(field)] = want;
  }

  const images = ours.status?.images ?? [];
  if (!sameImages(server.status?.images ?? [], images)) status[differs("images")] = images;

  patch.status = status;
  return { changed, patch, transitions };
}

/**
 * `server` as a status patch of `patch` leaves it, as far as its conditions go (merged by type,
 * field by field): what the registrar reads of the Node it posted, without the API server's
 * answer.
 */
export function withConditions(server: V1Node, patch: Json): V1Node {
  const sent = ((patch.status as Json | undefined)?.conditions ?? []) as Json[];
  const conditions: V1NodeCondition[] = [...(server.status?.conditions ?? [])];
  for (const c of sent) {
    const i = conditions.findIndex((x) => x.type === c.type);
    if (i >= 0) conditions[i] = { ...conditions[i], ...c } as V1NodeCondition;
    else conditions.push(c as unknown as V1NodeCondition);
  }
  return { ...server, status: { ...server.status, conditions } };
}

/** The Ready condition's status in a Node ("Unknown" when it has none). */
export function readyStatus(node: V1Node | undefined): string {
  return node?.status?.conditions?.find((c) => c.type === "Ready")?.status ?? "Unknown";
}

/** A condition with RFC 3339 times (whole seconds, as metav1.Time keeps them). */
function wireCondition(
  c: V1NodeCondition,
  times: { heartbeat?: number; transition?: number } = {},
): Json {
  const heartbeat = times.heartbeat ?? timeMs(c.lastHeartbeatTime);
  const transition = times.transition ?? timeMs(c.lastTransitionTime);
  return {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    lastHeartbeatTime: heartbeat === undefined ? undefined : rfc3339(heartbeat),
    lastTransitionTime: transition === undefined ? undefined : rfc3339(transition),
  };
}

/** A time as parsed JSON gives it (a string) or as the agent builds it (a Date). */
function timeMs(t: Date | string | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = new Date(t).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

function isOwnResource(name: string): boolean {
  return ["cpu", "memory", "pods", "ephemeral-storage"].includes(name) ||
    name.startsWith("hugepages-");
}

function sameQuantity(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return quantityMilliValue(a) === quantityMilliValue(b);
  } catch {
    // Not a quantity we can read: only the same text is the same.
    return a === b;
  }
}

function sameImages(
  a: ReadonlyArray<{ names?: string[]; sizeBytes?: number }>,
  b: ReadonlyArray<{ names?: string[]; sizeBytes?: number }>,
): boolean {
  if (a.length !== b.length) return false;
  return a.every((img, i) =>
    (img.sizeBytes ?? 0) === (b[i].sizeBytes ?? 0) &&
    (img.names ?? []).join("\n") === (b[i].names ?? []).join("\n")
  );
}
