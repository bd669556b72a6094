/**
 * What a registered CSI driver writes to the API (upstream nodeinfomanager): the CSINode
 * object of the node (made at start by csinode.ts, else on first use; owned by the Node) with an entry per driver — name,
 * node ID, topology keys, allocatable count — and on the Node the annotation
 * `csi.volume.kubernetes.io/nodeid` (driver → node ID) and the driver's topology labels.
 */
import type { V1Node } from "@kubernetes/client-node";
import { type ApiClient, ApiError } from "../apiclient/types.ts";
import { DenoletError } from "../util/errors.ts";
import type { NodeInfo } from "./_driver.ts";

const NODE_ID_ANNOTATION = "csi.volume.kubernetes.io/nodeid";

interface CSINodeDriver {
  name: string;
  nodeID: string;
  topologyKeys?: string[];
  allocatable?: { count: number };
}

interface CSINode {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    resourceVersion?: string;
    ownerReferences?: { apiVersion?: string; kind?: string; name?: string; uid?: string }[];
    annotations?: Record<string, string>;
  };
  spec: { drivers: CSINodeDriver[] | null };
}

/** Upstream's migrated in-tree plugins (every one migrated in v1.37), in its sorted form. */
export const MIGRATED_PLUGINS = [
  "kubernetes.io/aws-ebs",
  "kubernetes.io/azure-disk",
  "kubernetes.io/azure-file",
  "kubernetes.io/cinder",
  "kubernetes.io/gce-pd",
  "kubernetes.io/portworx-volume",
  "kubernetes.io/vsphere-volume",
].join(",");
const MIGRATED_ANNOTATION = "storage.alpha.kubernetes.io/migrated-plugins";

/** Upstream CreateCSINode's object: owned by the Node, the migrated plugins annotated. */
function newCSINode(nodeName: string, nodeUid: string, drivers: CSINodeDriver[]): CSINode {
  return {
    apiVersion: "storage.k8s.io/v1",
    kind: "CSINode",
    metadata: {
      name: nodeName,
      annotations: { [MIGRATED_ANNOTATION]: MIGRATED_PLUGINS },
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: nodeName, uid: nodeUid }],
    },
    spec: { drivers },
  };
}

const csiNodePath = (name: string) =>
  `/apis/storage.k8s.io/v1/csinodes/${encodeURIComponent(name)}`;

async function getCSINode(client: ApiClient, name: string, signal?: AbortSignal) {
  try {
    return await client.request<CSINode>({ method: "GET", path: csiNodePath(name) }, { signal });
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

/** Changes the node's CSINode drivers with `edit`; creates the CSINode when missing. */
async function updateCSINode(
  client: ApiClient,
  opts: {
    nodeName: string;
    edit: (drivers: CSINodeDriver[]) => CSINodeDriver[];
    signal?: AbortSignal;
  },
): Promise<void> {
  const { nodeName, signal } = opts;
  // An update that lost a race with another writer is tried again on the fresh object.
  for (let attempt = 0;; attempt++) {
    const current = await getCSINode(client, nodeName, signal);
    if (!current) {
      const node = await client.request<V1Node>({
        method: "GET",
        path: `/api/v1/nodes/${encodeURIComponent(nodeName)}`,
      }, { signal });
      const body = newCSINode(nodeName, node.metadata?.uid ?? "", opts.edit([]));
      try {
        await client.request({ method: "POST", path: "/apis/storage.k8s.io/v1/csinodes", body }, {
          signal,
        });
        return;
      } catch (err) {
        if (err instanceof ApiError && err.status === 409 && attempt < 3) continue;
        throw err;
      }
    }
    current.spec.drivers = opts.edit(current.spec.drivers ?? []);
    try {
      await client.request({ method: "PUT", path: csiNodePath(nodeName), body: current }, {
        signal,
      });
      return;
    } catch (err) {
      if (err instanceof ApiError && err.status === 409 && attempt < 3) continue;
      throw err;
    }
  }
}

/** Records driver `driver` on the node (InstallCSIDriver). */
export async function upsertDriver(
  client: ApiClient,
  opts: { nodeName: string; driver: string; node: NodeInfo; signal?: AbortSignal },
): Promise<void> {
  const { nodeName, driver, node, signal } = opts;
  await patchNode(client, nodeName, {
    metadata: {
      annotations: { [NODE_ID_ANNOTATION]: await nodeIdAnnotation(client, opts, node.nodeId) },
      labels: node.topology,
    },
  }, signal);
  const entry: CSINodeDriver = {
    name: driver,
    nodeID: node.nodeId,
    topologyKeys: Object.keys(node.topology).sort(),
  };
  if (node.maxVolumesPerNode > 0) entry.allocatable = { count: node.maxVolumesPerNode };
  await updateCSINode(client, {
    nodeName,
    signal,
    edit: (drivers) => [...drivers.filter((d) => d.name !== driver), entry],
  });
}

/** Removes driver `driver` from the node (UninstallCSIDriver). */
export async function removeDriver(
  client: ApiClient,
  opts: { nodeName: string; driver: string; signal?: AbortSignal },
): Promise<void> {
  await updateCSINode(client, {
    nodeName: opts.nodeName,
    signal: opts.signal,
    edit: (drivers) => drivers.filter((d) => d.name !== opts.driver),
  });
  const ids = JSON.parse(await currentAnnotation(client, opts.nodeName, opts.signal) || "{}");
  delete ids[opts.driver];
  await patchNode(client, opts.nodeName, {
    metadata: {
      annotations: {
        [NODE_ID_ANNOTATION]: Object.keys(ids).length ? JSON.stringify(ids) : null,
      },
    },
  }, opts.signal);
}

async function currentAnnotation(client: ApiClient, nodeName: string, signal?: AbortSignal) {
  const node = await client.request<V1Node>({
    method: "GET",
    path: `/api/v1/nodes/${encodeURIComponent(nodeName)}`,
  }, { signal });
  return node.metadata?.annotations?.[NODE_ID_ANNOTATION] ?? "";
}

async function nodeIdAnnotation(
  client: ApiClient,
  opts: { nodeName: string; driver: string; signal?: AbortSignal },
  nodeId: string,
): Promise<string> {
  const ids = JSON.parse(await currentAnnotation(client, opts.nodeName, opts.signal) || "{}");
  ids[opts.driver] = nodeId;
  return JSON.stringify(ids);
}

function patchNode(client: ApiClient, nodeName: string, body: unknown, signal?: AbortSignal) {
  return client.request({
    method: "PATCH",
    path: `/api/v1/nodes/${encodeURIComponent(nodeName)}`,
    body,
    patchType: "application/merge-patch+json",
  }, { signal });
}

/**
 * One try of upstream's tryInitializeCSINodeWithAnnotation, for the Node of UID `nodeUid`
 * (upstream GETs the Node; the agent's watch of it has the UID): the node's CSINode made when
 * missing; one owned by another Node of this name (an earlier one, deleted and registered
 * again) deleted, and this try failed so the next makes it anew; the migrated-plugins
 * annotation set when it differs.
 */
export async function initializeCSINodeOnce(
  client: ApiClient,
  opts: { nodeName: string; nodeUid: string; signal?: AbortSignal },
): Promise<void> {
  const { nodeName, nodeUid: uid, signal } = opts;
  const current = await getCSINode(client, nodeName, signal);
  if (!current) {
    const body = newCSINode(nodeName, uid, []);
    await client.request({ method: "POST", path: "/apis/storage.k8s.io/v1/csinodes", body }, {
      signal,
    });
    return;
  }
  let ownerUid = "";
  let owned = false;
  for (const ref of current.metadata.ownerReferences ?? []) {
    if (ref.kind !== "Node") continue;
    ownerUid = ref.uid ?? "";
    if (ref.name === nodeName && ownerUid === uid) owned = true;
    if (owned) break;
  }
  if (!owned) {
    await client.request({ method: "DELETE", path: csiNodePath(nodeName) }, { signal });
    throw new CSINodeOwnerError(
      `CSINode ${JSON.stringify(nodeName)} was owned by different node (oldNodeID=${ownerUid}, ` +
        `newNodeID=${uid}), deleted it`,
    );
  }
  const annotations = current.metadata.annotations ?? {};
  const had = new Set((annotations[MIGRATED_ANNOTATION] ?? "").split(",").filter((p) => p));
  const want = MIGRATED_PLUGINS.split(",");
  if (had.size === want.length && want.every((p) => had.has(p))) return;
  current.metadata.annotations = { ...annotations, [MIGRATED_ANNOTATION]: MIGRATED_PLUGINS };
  await client.request({ method: "PUT", path: csiNodePath(nodeName), body: current }, { signal });
}

/** The CSINode belonged to an earlier Node of this name and was deleted. */
export class CSINodeOwnerError extends DenoletError {}
