/**
 * The claim cache: a GET per read (the Node authorizer allows a kubelet nothing else on these
 * kinds), the copy last read served while the API server cannot be reached (this run's, or the
 * checkpoint's after an offline reboot), and the checkpoint kept as the pods' claims.
 */
import assert from "node:assert/strict";
import type { V1PersistentVolume, V1PersistentVolumeClaim } from "@kubernetes/client-node";
import {
  type ApiClient,
  ApiError,
  type ApiRequest,
  ApiUnavailableError,
} from "../../src/apiclient/mod.ts";
import type { ObjectsCheckpoint } from "../../src/checkpoint/types.ts";
import { ClaimCache, ObjectNotFoundError } from "../../src/objects/mod.ts";
import { errorMessage, nullLogger } from "../../src/util/log.ts";
import { MemorySlot } from "../checkpoint/_fakes.ts";

class GetOnlyApi implements ApiClient {
  readonly server = "https://fake";
  objects = new Map<string, unknown>();
  requests: ApiRequest[] = [];
  down = false;
  request<T>(req: ApiRequest): Promise<T> {
    this.requests.push(req);
    if (this.down) return Promise.reject(new ApiUnavailableError("connection refused"));
    const o = this.objects.get(req.path);
    if (o === undefined) {
      const [, kind, name] = /\/([a-z]+)\/([^/]+)$/.exec(req.path)!;
      const why = `${kind} "${name}" not found`;
      return Promise.reject(new ApiError(404, "NotFound", `GET ${req.path}: 404 NotFound: ${why}`));
    }
    return Promise.resolve(structuredClone(o) as T);
  }
  watch(): AsyncIterable<never> {
    throw new Error("the Node authorizer refuses watches of these kinds");
  }
  close(): void {}
}

const claim = (name: string, rv: string): V1PersistentVolumeClaim => ({
  metadata: { name, namespace: "ns", uid: `u-${name}`, resourceVersion: rv },
  spec: { volumeName: `pv-${name}` },
  status: { phase: "Bound" },
});
const pv = (name: string): V1PersistentVolume => ({
  metadata: { name, resourceVersion: "1" },
  spec: { hostPath: { path: `/data/${name}` } },
});
const CLAIMS = "/api/v1/namespaces/ns/persistentvolumeclaims";

function setup(saved?: { claims?: V1PersistentVolumeClaim[]; volumes?: V1PersistentVolume[] }) {
  const api = new GetOnlyApi();
  const claimSlot = new MemorySlot<ObjectsCheckpoint<V1PersistentVolumeClaim>>(
    saved?.claims && { objects: saved.claims },
  );
  const pvSlot = new MemorySlot<ObjectsCheckpoint<V1PersistentVolume>>(
    saved?.volumes && { objects: saved.volumes },
  );
  const cache = new ClaimCache({
    client: api,
    logger: nullLogger,
    checkpoint: { claims: claimSlot, volumes: pvSlot },
  });
  const names = (slot: MemorySlot<ObjectsCheckpoint<{ metadata?: { name?: string } }>>) =>
    slot.produced()?.objects.map((o) => o.metadata?.name);
  return { api, cache, claimSlot, pvSlot, names };
}

Deno.test("claim cache: a claim is read with one GET and checkpointed with its volume", async () => {
  const { api, cache, claimSlot, pvSlot, names } = setup();
  api.objects.set(`${CLAIMS}/c`, claim("c", "5"));
  api.objects.set("/api/v1/persistentvolumes/pv-c", pv("pv-c"));
  assert.equal(
    (await cache.claim("pod-1", { namespace: "ns", name: "c" })).spec?.volumeName,
    "pv-c",
  );
  assert.equal((await cache.volume("pod-1", "pv-c")).metadata?.name, "pv-c");
  assert.deepEqual(api.requests.map((r) => `${r.method} ${r.path}`), [
    `GET ${CLAIMS}/c`,
    "GET /api/v1/persistentvolumes/pv-c",
  ]);
  assert.deepEqual(names(claimSlot), ["c"]);
  assert.deepEqual(names(pvSlot), ["pv-c"]);
  cache.forgetPod("pod-1");
  assert.deepEqual(names(claimSlot), [], "gone with the last pod that used it");
});

Deno.test("claim cache: a claim that does not exist is ObjectNotFoundError with the API server's words", async () => {
  const { cache } = setup();
  const err = await cache.claim("pod-1", { namespace: "ns", name: "nope" }).catch((e) => e);
  assert.ok(err instanceof ObjectNotFoundError);
  assert.equal(errorMessage(err), 'persistentvolumeclaims "nope" not found', "no request details");
});

Deno.test("claim cache: offline after a reboot, the checkpoint's claim and volume are served", async () => {
  const { api, cache, claimSlot, names } = setup({
    claims: [claim("c", "7"), claim("old", "1")],
    volumes: [pv("pv-c")],
  });
  api.down = true;
  assert.equal(
    (await cache.claim("pod-1", { namespace: "ns", name: "c" })).metadata?.resourceVersion,
    "7",
  );
  assert.equal((await cache.volume("pod-1", "pv-c")).spec?.hostPath?.path, "/data/pv-c");
  await assert.rejects(cache.volume("pod-1", "pv-other"), ApiUnavailableError);
  // The first pod gone: copies no pod asked for since the start go too.
  cache.forgetPod("pod-9");
  assert.deepEqual(names(claimSlot), ["c"]);
});

Deno.test("claim cache: while the API server is away, the copy read earlier this run is served", async () => {
  const { api, cache } = setup();
  api.objects.set(`${CLAIMS}/c`, claim("c", "5"));
  await cache.claim("pod-1", { namespace: "ns", name: "c" });
  api.down = true;
  assert.equal((await cache.claim("pod-2", { namespace: "ns", name: "c" })).metadata?.uid, "u-c");
  api.down = false;
  api.objects.set(`${CLAIMS}/c`, claim("c", "6"));
  assert.equal(
    (await cache.claim("pod-2", { namespace: "ns", name: "c" })).metadata?.resourceVersion,
    "6",
    "the API server's answer wins once it is back",
  );
});
