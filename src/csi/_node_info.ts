/**
 * What a registered CSI driver writes to the API (upstream nodeinfomanager): the CSINode
 * object of the node (made on first use, owned by the Node) with an entry per driver — name,
 * node ID, topology keys, allocatable count — and on the Node the annotation
 * `csi.volume.kubernetes.io/nodeid` (driver → node ID) and the driver's topology labels.
 */
import type { V1Node } from "@kubernetes/client-node";
import { type ApiClient, ApiError } from "../apiclient/types.ts";
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
    ownerReferences?: unknown[];
    annotations?: Record<string, string>;
  };
  spec: { drivers: CSINodeDriver[] | null };
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
      const body: CSINode = {
        apiVersion: "storage.k8s.io/v1",
        kind: "CSINode",
        metadata: {
          name: nodeName,
          annotations: { "storage.alpha.kubernetes.io/migrated-plugins": "" },
          ownerReferences: [{
            apiVersion: "v1",
            kind: "Node",
            name: nodeName,
            uid: node.metadata?.uid,
          }],
        },
        spec: { drivers: opts.edit([]) },
      };
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
