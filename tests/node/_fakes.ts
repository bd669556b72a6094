/**
 * A fake API server for the registrar and lease tests: Nodes and Leases in memory, the API's
 * answers for create/get/update (AlreadyExists, NotFound, Conflict on a stale resourceVersion),
 * a strategic merge of `nodes/<name>/status` as far as the registrar uses it, and an outage
 * switch. Leases get managedFields as the API server keeps them: added on create, kept by an
 * update without any, stripped by an update with one empty entry and not tracked again after.
 */
import { decodeObject, encodeEnvelope } from "../../src/apiclient/protobuf.ts";
import type { V1Node, V1NodeCondition } from "@kubernetes/client-node";
import {
  type ApiClient,
  ApiError,
  type ApiRequest,
  ApiUnavailableError,
  type RequestOptions,
} from "../../src/apiclient/mod.ts";
import type { Clock } from "../../src/util/clock.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

export interface RecordedRequest extends Omit<ApiRequest, "protobuf"> {
  at: number;
  /** Whether it was sent in protobuf form. */
  protobuf: boolean;
}

export class FakeApiServer implements ApiClient {
  readonly server = "https://fake";
  readonly nodes = new Map<string, Json>();
  readonly leases = new Map<string, Json>();
  readonly requests: RecordedRequest[] = [];
  /** Every request fails as unreachable while set. */
  down = false;
  #rv = 0;
  #uid = 0;

  constructor(readonly clock: Clock) {}

  /** Requests matching method and a path prefix. */
  calls(method: string, pathPrefix = ""): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path.startsWith(pathPrefix));
  }

  /** Adds a Node as someone else (an admin, an earlier agent) would have created it. */
  addNode(node: Json): Json {
    const stored = this.#stamp(structuredClone(node));
    this.nodes.set(stored.metadata.name, stored);
    return stored;
  }

  /** Changes a stored object as another client would (bumps its resourceVersion). */
  touch(obj: Json, change: (o: Json) => void): void {
    change(obj);
    obj.metadata.resourceVersion = String(++this.#rv);
  }

  request<T>(req: ApiRequest, _opts?: RequestOptions): Promise<T> {
    // A protobuf request goes through its codec both ways, as on the wire: what the codec
    // drops is lost here too.
    const { protobuf, ...plain } = req;
    const wire = (obj: unknown) =>
      protobuf && obj !== undefined ? decodeObject(protobuf, encodeEnvelope(protobuf, obj)) : obj;
    const sent = { ...plain, body: wire(plain.body) };
    this.requests.push({ ...structuredClone(sent), protobuf: !!protobuf, at: this.clock.now() });
    if (this.down) {
      return Promise.reject(new ApiUnavailableError(`${req.method} ${req.path}: refused`));
    }
    try {
      const answer = this.#handle(sent);
      // `as=PartialObjectMetadata`: the API server sends the metadata alone.
      const shaped = req.metadataOnly
        ? { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: answer.metadata }
        : answer;
      return Promise.resolve(wire(structuredClone(shaped)) as T);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  watch(): AsyncIterable<never> {
    throw new Error("the node tests do not watch");
  }

  close(): void {}

  #handle(req: ApiRequest): Json {
    const node = /^\/api\/v1\/nodes(?:\/([^/]+))?(\/status)?$/.exec(req.path);
    if (node) return this.#store(this.nodes, req, node[1], node[2] !== undefined);
    const lease =
      /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/kube-node-lease\/leases(?:\/([^/]+))?$/
        .exec(req.path);
    if (lease) return this.#store(this.leases, req, lease[1], false);
    throw new ApiError(404, "NotFound", `no route ${req.path}`);
  }

  #store(objects: Map<string, Json>, req: ApiRequest, name: string | undefined, status: boolean) {
    const body = structuredClone(req.body) as Json;
    const tracked = objects === this.leases;
    if (req.method === "POST") {
      const key = body.metadata.name;
      if (objects.has(key)) throw new ApiError(409, "AlreadyExists", `${key} already exists`);
      const created = this.#stamp(body);
      if (tracked) created.metadata.managedFields = [managedEntry(this.clock.now())];
      objects.set(key, created);
      return created;
    }
    const existing = objects.get(name!);
    if (!existing) throw new ApiError(404, "NotFound", `${name} not found`);
    if (req.method === "GET") return existing;
    if (req.method === "PUT") {
      if (body.metadata?.resourceVersion !== existing.metadata.resourceVersion) {
        throw new ApiError(409, "Conflict", "the object has been modified");
      }
      const updated = { ...body, metadata: { ...body.metadata, uid: existing.metadata.uid } };
      updated.metadata.resourceVersion = String(++this.#rv);
      if (tracked) {
        const sent = body.metadata?.managedFields as Json[] | undefined;
        const reset = sent?.length === 1 && Object.keys(sent[0]).length === 0;
        // skipNonAppliedManager: an object without managedFields gets none from an update.
        const live = existing.metadata.managedFields as Json[] | undefined;
        const kept = reset ? undefined : sent?.length ? sent : live;
        if (kept) updated.metadata.managedFields = kept;
        else delete updated.metadata.managedFields;
      }
      objects.set(name!, updated);
      return updated;
    }
    if (req.method === "PATCH" && status) {
      if (req.patchType !== "application/strategic-merge-patch+json") {
        throw new ApiError(415, "UnsupportedMediaType", String(req.patchType));
      }
      applyNodeStatusPatch(existing, body);
      existing.metadata.resourceVersion = String(++this.#rv);
      return existing;
    }
    throw new ApiError(405, "MethodNotAllowed", `${req.method} ${req.path}`);
  }

  #stamp(obj: Json): Json {
    obj.metadata.uid ??= `uid-${++this.#uid}`;
    obj.metadata.resourceVersion = String(++this.#rv);
    obj.metadata.creationTimestamp ??= new Date(this.clock.now()).toISOString();
    return obj;
  }
}

/** A Lease's managedFields entry as the API server writes it for the agent's update. */
function managedEntry(now: number): Json {
  return {
    manager: "denolet",
    operation: "Update",
    apiVersion: "coordination.k8s.io/v1",
    time: new Date(Math.floor(now / 1000) * 1000).toISOString().replace(".000Z", "Z"),
    fieldsType: "FieldsV1",
    fieldsV1: { "f:spec": { "f:holderIdentity": {}, "f:renewTime": {} } },
  };
}

/** The strategic merge of a Node status patch, for the fields and directives the agent sends. */
function applyNodeStatusPatch(node: Json, patch: Json): void {
  for (const key of ["labels", "annotations"]) {
    if (!patch.metadata?.[key]) continue;
    node.metadata[key] = mergeMap(node.metadata[key], patch.metadata[key]);
  }
  const st = patch.status ?? {};
  node.status ??= {};
  for (const [k, v] of Object.entries(st) as Array<[string, Json]>) {
    if (k === "conditions") {
      const out: Json[] = [...(node.status.conditions ?? [])];
      for (const c of v as unknown as Json[]) {
        const i = out.findIndex((o) => o.type === c.type);
        if (i >= 0) out[i] = { ...out[i], ...c };
        else out.push(c);
      }
      node.status.conditions = out;
    } else if (k === "addresses") {
      const list = v as unknown as Json[];
      node.status.addresses = list.filter((a) => a.$patch === undefined);
    } else if (k === "capacity" || k === "allocatable" || k === "nodeInfo") {
      // Maps merge by key, structs field by field.
      node.status[k] = mergeMap(node.status[k], v);
    } else {
      node.status[k] = v;
    }
  }
}

function mergeMap(base: Json | undefined, patch: Json): Json {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** What the node status provider would say, with knobs the tests turn. */
export interface AgentNodeState {
  ready: boolean;
  memoryPressure: boolean;
  memory: string;
  labels?: Record<string, string>;
  taints?: Array<{ key: string; value?: string; effect: string }>;
}

export function agentNode(name: string, clock: Clock, s: AgentNodeState): V1Node {
  const now = new Date(clock.now());
  const cond = (
    type: string,
    on: boolean,
    texts: [string, string, string, string],
  ): V1NodeCondition => ({
    type,
    status: on ? "True" : "False",
    reason: on ? texts[0] : texts[2],
    message: on ? texts[1] : texts[3],
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  });
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": "amd64",
        ...s.labels,
      },
    },
    spec: s.taints ? { taints: s.taints } : {},
    status: {
      capacity: { cpu: "2", memory: "2000Mi", pods: "110", "ephemeral-storage": "100Gi" },
      allocatable: {
        cpu: "1900m",
        memory: s.memory,
        pods: "110",
        "ephemeral-storage": "96636764000",
      },
      conditions: [
        cond("MemoryPressure", s.memoryPressure, [
          "KubeletHasInsufficientMemory",
          "kubelet has insufficient memory available",
          "KubeletHasSufficientMemory",
          "kubelet has sufficient memory available",
        ]),
        cond("Ready", s.ready, [
          "KubeletReady",
          "kubelet is posting ready status",
          "KubeletNotReady",
          "container runtime is down",
        ]),
      ],
      addresses: [{ type: "InternalIP", address: "10.0.0.5" }, { type: "Hostname", address: name }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: "m",
        systemUUID: "",
        bootID: "b",
        kernelVersion: "6.1",
        osImage: "Debian",
        containerRuntimeVersion: "containerd://1.6.20",
        kubeletVersion: "v0.1.0",
        kubeProxyVersion: "",
        operatingSystem: "linux",
        architecture: "amd64",
      },
      images: [{ names: ["busybox:1.35"], sizeBytes: 4_000_000 }],
    },
  };
}
