/**
 * The `api` source with a checkpoint (edge autonomy): when the first list fails, or is not
 * answered within 3 s, the checkpoint's pods are the snapshot; the first list that succeeds
 * replaces them (the API's view wins, unchanged pods stay the same objects); the checkpoint
 * follows the store once listed, never before.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  type ApiClient,
  type ApiRequest,
  ApiUnavailableError,
  type ReflectorOptions,
  runReflector,
  type WatchEvent,
} from "../../src/apiclient/mod.ts";
import type { PodsCheckpoint } from "../../src/checkpoint/types.ts";
import { createApiSource } from "../../src/sources/mod.ts";
import type { PodSourceUpdate } from "../../src/sources/types.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { ScriptedApi, settle } from "../cluster/_fakes.ts";
import { MemorySlot } from "../checkpoint/_fakes.ts";

function apiPod(name: string, rv = "5", extra: Partial<V1Pod["metadata"]> = {}): V1Pod {
  return {
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      resourceVersion: rv,
      creationTimestamp: "2026-01-01T00:00:00Z" as unknown as Date,
      ...extra,
    },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
    status: { phase: "Running", conditions: [{ type: "PodScheduled", status: "True" }] },
  };
}

/** Names of the pods the next checkpoint write would hold. */
const savedNames = (slot: MemorySlot<PodsCheckpoint>) =>
  slot.produced()?.pods.map((p) => p.metadata!.name!);

const names = (u: PodSourceUpdate) => u.pods.map((p) => p.metadata?.name);

function driven(saved?: V1Pod[]) {
  const clock = new FakeClock();
  let reflector: ReflectorOptions<V1Pod> | undefined;
  const slot = new MemorySlot<PodsCheckpoint>(
    saved && { pods: structuredClone(saved) },
    clock.now() - 60_000,
  );
  const source = createApiSource({
    client: new ScriptedApi(),
    reflector: (opts, run) => {
      reflector = opts;
      return new Promise((resolve) => run.signal.addEventListener("abort", () => resolve()));
    },
    nodeName: "node1",
    clock,
    logger: nullLogger,
    checkpoint: slot,
  });
  const updates: PodSourceUpdate[] = [];
  const ac = new AbortController();
  const done = source.run((u) => updates.push(u), { signal: ac.signal });
  return {
    clock,
    slot,
    source,
    updates,
    failList: (msg = "connect: connection refused") =>
      reflector!.onListError?.(new ApiUnavailableError(msg)),
    list: (pods: V1Pod[], rv = "10") => reflector!.onList(structuredClone(pods), rv),
    event: (type: "ADDED" | "MODIFIED" | "DELETED", pod: V1Pod) =>
      reflector!.onEvent(type, structuredClone(pod)),
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

Deno.test("api source: a failed first list runs the checkpoint's pods at once, and the source counts as read", async () => {
  const s = driven([apiPod("b"), apiPod("a")]);
  await settle();
  assert.equal(s.updates.length, 0);
  s.failList();
  assert.equal(s.updates.length, 1);
  const [u] = s.updates;
  assert.equal(u.unread, undefined, "a snapshot: clean-up may act on it");
  assert.deepEqual(names(u), ["a", "b"]);
  assert.equal(u.pods[0].metadata?.annotations?.["kubernetes.io/config.source"], "api");
  assert.deepEqual(s.source.state(), {
    listed: false,
    fromCheckpoint: true,
    lastListError: "connect: connection refused",
  });
  s.failList();
  await s.clock.advance(60_000);
  assert.equal(s.updates.length, 1, "run once; later failures change nothing");
  assert.equal(s.slot.schedules, 0, "the checkpoint is not rewritten from itself");
  await s.stop();
});

Deno.test("api source: checkpoint pods bound to another node (a renamed node) are not run", async () => {
  const elsewhere = apiPod("elsewhere");
  elsewhere.spec!.nodeName = "node0";
  const s = driven([apiPod("a"), elsewhere]);
  s.failList();
  assert.deepEqual(s.updates.map(names), [["a"]]);
  await s.stop();
});

Deno.test("api source: a first list not answered within 3 s runs the checkpoint (a black-holed uplink)", async () => {
  const s = driven([apiPod("a")]);
  await s.clock.advance(2_999);
  assert.equal(s.updates.length, 0);
  await s.clock.advance(1);
  assert.deepEqual(s.updates.map(names), [["a"]]);
  assert.equal(s.source.state().fromCheckpoint, true);
  await s.stop();
  assert.equal(s.clock.pendingTimers, 0);
});

Deno.test("api source: a list within 3 s means the checkpoint never runs", async () => {
  const s = driven([apiPod("old")]);
  await s.clock.advance(1_000);
  s.list([apiPod("new")]);
  await s.clock.advance(10_000);
  assert.deepEqual(s.updates.map(names), [["new"]]);
  assert.equal(s.source.state().fromCheckpoint, false);
  await s.stop();
});

Deno.test("api source: without a checkpoint nothing is sent while lists fail (upstream)", async () => {
  const s = driven(undefined);
  s.failList("dial tcp 10.0.0.1:6443: i/o timeout");
  await s.clock.advance(60_000);
  assert.equal(s.updates.length, 0, "unseen: clean-up waits");
  assert.deepEqual(s.source.state(), {
    listed: false,
    fromCheckpoint: false,
    lastListError: "dial tcp 10.0.0.1:6443: i/o timeout",
  });
  s.list([]);
  assert.deepEqual(s.source.state(), {
    listed: true,
    fromCheckpoint: false,
    lastListError: undefined,
  });
  await s.stop();
});

Deno.test("api source: the first list replaces the checkpoint; pods gone are killed, unchanged ones stay the same", async () => {
  const s = driven([apiPod("keep"), apiPod("gone")]);
  s.failList();
  const fromCheckpoint = s.updates[0].pods.find((p) => p.metadata?.name === "keep");

  // The API server's view: "keep" unchanged but for its version and status, "gone" deleted
  // meanwhile, "new" bound since.
  const keep = apiPod("keep", "12");
  keep.status = { phase: "Running", podIP: "10.1.1.1", conditions: keep.status!.conditions };
  s.list([keep, apiPod("new", "11")]);
  assert.equal(s.updates.length, 3);
  const killed = s.updates[1].pods.find((p) => p.metadata?.name === "gone");
  assert.equal(killed?.metadata?.deletionGracePeriodSeconds, 0, "stopped at once");
  assert.deepEqual(names(s.updates[2]), ["keep", "new"]);
  const after = s.updates[2].pods.find((p) => p.metadata?.name === "keep");
  assert.equal(
    JSON.stringify(after),
    JSON.stringify(fromCheckpoint),
    "the kubelet sees no change: nothing restarts",
  );
  assert.deepEqual(s.source.state(), {
    listed: true,
    fromCheckpoint: false,
    lastListError: undefined,
  });
  await s.stop();
});

Deno.test("api source: once listed the checkpoint follows the store; mirrors and field managers stay out", async () => {
  const s = driven(undefined);
  const mirror = apiPod("static-node1", "5", {
    annotations: { "kubernetes.io/config.mirror": "hash", "kubernetes.io/config.source": "file" },
  });
  s.list([apiPod("b", "5", { managedFields: [{ manager: "kubectl" }] }), mirror, apiPod("a")]);
  assert.deepEqual(savedNames(s.slot), ["a", "b"]);
  const saved = s.slot.produced()!.pods.find((p) => p.metadata?.name === "b")!;
  assert.equal(saved.metadata?.managedFields, undefined);
  assert.equal(saved.status?.phase, "Running", "the last status seen comes along");

  // A status written by the agent is saved too (debounced by the slot), not only spec changes.
  const written = apiPod("a", "6");
  written.status = { phase: "Running", podIP: "10.0.0.9" };
  s.event("MODIFIED", written);
  assert.equal(
    s.slot.produced()!.pods.find((p) => p.metadata?.name === "a")?.status?.podIP,
    "10.0.0.9",
  );

  // Deleted in the API: gone from the checkpoint with the snapshot that stops it.
  s.event("DELETED", apiPod("b", "7"));
  assert.deepEqual(names(s.updates.at(-1)!), ["a"]);
  assert.deepEqual(savedNames(s.slot), ["a"]);
  await s.stop();
});

/** Lists refused as by a stopped API server, then answered. */
class RefusingClient implements ApiClient {
  readonly server = "https://fake";
  up = false;
  request<T>(_req: ApiRequest): Promise<T> {
    if (!this.up) return Promise.reject(new ApiUnavailableError("connection refused"));
    return Promise.resolve(
      { metadata: { resourceVersion: "20" }, items: [apiPod("a", "20")] } as T,
    );
  }
  // deno-lint-ignore require-yield
  async *watch<T>(_path: string, opts: { signal: AbortSignal }): AsyncIterable<WatchEvent<T>> {
    await new Promise<void>((r) => opts.signal.addEventListener("abort", () => r()));
  }
  close() {}
}

Deno.test("api source with the real reflector: a refused list runs the checkpoint without waiting, a later list wins", async () => {
  const clock = new FakeClock();
  const client = new RefusingClient();
  const slot = new MemorySlot<PodsCheckpoint>({ pods: [apiPod("a"), apiPod("b")] }, clock.now());
  const source = createApiSource({
    client,
    reflector: runReflector,
    nodeName: "node1",
    clock,
    logger: nullLogger,
    checkpoint: slot,
  });
  const updates: PodSourceUpdate[] = [];
  const ac = new AbortController();
  const done = source.run((u) => updates.push(u), { signal: ac.signal });
  await settle();
  assert.deepEqual(updates.map(names), [["a", "b"]], "no 3 s wait for a refused connection");
  client.up = true;
  await clock.advance(2_000);
  assert.deepEqual(names(updates.at(-1)!), ["a"]);
  assert.deepEqual(savedNames(slot), ["a"]);
  ac.abort();
  await done;
});
