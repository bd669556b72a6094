/**
 * The `api` pod source: snapshots only after a successful list (unseen until then), the pod
 * config's annotations, mirror pods kept out of the kubelet's set, a status the agent wrote
 * treated as no news, and the last snapshot standing while the API server is away.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  type ApiClient,
  type ApiRequest,
  ApiUnavailableError,
  runReflector,
  type WatchEvent,
  type WatchOptions,
} from "../../src/apiclient/mod.ts";
import { createApiSource } from "../../src/sources/mod.ts";
import type { PodSourceUpdate } from "../../src/sources/types.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { drivenStore, settle } from "../cluster/_fakes.ts";

function apiPod(name: string, extra: Partial<V1Pod["metadata"]> = {}, rv = "5"): V1Pod {
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
    status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True" }] },
  };
}

const names = (u: PodSourceUpdate) => u.pods.map((p) => p.metadata?.name);

Deno.test("api source: nothing is sent before a list succeeds, then the first list even if empty", async () => {
  const s = drivenStore(new FakeClock());
  await settle();
  assert.equal(s.updates.length, 0, "unseen until the API server answered a list");
  assert.equal(s.store.synced, false);
  s.list([]);
  assert.equal(s.updates.length, 1);
  assert.deepEqual(s.updates[0], { source: "api", pods: [], problems: [] });
  assert.equal(s.store.synced, true);
  await s.stop();
});

Deno.test("api source: pods carry config.source=api and config.seen; mirror pods stay out", async () => {
  const clock = new FakeClock();
  const s = drivenStore(clock);
  const mirror = apiPod("static-node1", {
    annotations: { "kubernetes.io/config.mirror": "abc", "kubernetes.io/config.source": "file" },
  });
  s.list([apiPod("web", { managedFields: [{ manager: "kubectl" }] }), mirror]);
  const [u] = s.updates;
  assert.deepEqual(names(u), ["web"]);
  const annotations = u.pods[0].metadata?.annotations ?? {};
  assert.equal(annotations["kubernetes.io/config.source"], "api");
  assert.equal(annotations["kubernetes.io/config.seen"], new Date(clock.now()).toISOString());
  assert.equal(u.pods[0].metadata?.managedFields, undefined, "no field manager noise");
  assert.equal(u.pods[0].status?.phase, "Pending", "the API's status comes along");
  assert.deepEqual(s.store.pods().map((p) => p.metadata?.name).sort(), ["static-node1", "web"]);
  await s.stop();
});

Deno.test("api source: the status the agent writes is no news; spec, deletion and others' conditions are", async () => {
  const s = drivenStore(new FakeClock());
  s.list([apiPod("web")]);
  assert.equal(s.updates.length, 1);

  // Our own status write coming back through the watch: kubelet conditions, containers, phase.
  const written = apiPod("web", {}, "6");
  written.status = {
    phase: "Running",
    podIP: "10.0.0.5",
    conditions: [
      { type: "PodScheduled", status: "True" },
      { type: "Ready", status: "True" },
      { type: "ContainersReady", status: "True" },
    ],
    containerStatuses: [{ name: "app", ready: true, restartCount: 0, image: "b", imageID: "" }],
  };
  s.event("MODIFIED", written);
  assert.equal(s.updates.length, 1, "no update for a status-only change");
  assert.equal(s.store.get("default", "web")?.status?.phase, "Running", "the store follows");

  // A condition someone else owns (a readiness gate) is news: the kubelet computes Ready from it.
  const gated = structuredClone(written);
  gated.metadata!.resourceVersion = "7";
  gated.status!.conditions!.push({ type: "example.com/gate", status: "True" });
  s.event("MODIFIED", gated);
  assert.equal(s.updates.length, 2);
  assert.ok(s.updates[1].pods[0].status?.conditions?.some((c) => c.type === "example.com/gate"));

  // Graceful deletion.
  const deleting = structuredClone(gated);
  deleting.metadata!.resourceVersion = "8";
  deleting.metadata!.deletionTimestamp = "2026-01-01T00:01:00Z" as unknown as Date;
  deleting.metadata!.deletionGracePeriodSeconds = 30;
  s.event("MODIFIED", deleting);
  assert.equal(s.updates.length, 3);
  assert.equal(s.updates[2].pods[0].metadata?.deletionGracePeriodSeconds, 30);

  // Gone from the API server: first shown deleted with grace 0 (a force deletion cuts a graceful
  // one short), then removed.
  s.event("DELETED", deleting);
  assert.equal(s.updates.length, 5);
  assert.equal(s.updates[3].pods[0].metadata?.deletionGracePeriodSeconds, 0);
  assert.deepEqual(names(s.updates[4]), []);
  await s.stop();
});

Deno.test("api source: a pod force-deleted in the API server is handed over as deleted with grace 0, then removed", async () => {
  const clock = new FakeClock();
  const s = drivenStore(clock);
  s.list([apiPod("web"), apiPod("db")]);
  s.event("DELETED", apiPod("web", {}, "6"));
  assert.equal(s.updates.length, 3);
  const killed = s.updates[1].pods.find((p) => p.metadata?.name === "web");
  assert.equal(killed?.metadata?.deletionGracePeriodSeconds, 0);
  assert.equal(
    String(killed?.metadata?.deletionTimestamp),
    new Date(clock.now()).toISOString(),
  );
  assert.deepEqual(names(s.updates[1]), ["db", "web"]);
  assert.deepEqual(names(s.updates[2]), ["db"]);
  // A pod the API server already showed deleted with grace 0 is just removed.
  const zero = apiPod("db", {
    deletionTimestamp: "2026-01-01T00:00:00Z" as unknown as Date,
    deletionGracePeriodSeconds: 0,
  }, "7");
  s.event("MODIFIED", zero);
  s.event("DELETED", zero);
  assert.equal(s.updates.length, 5);
  assert.deepEqual(names(s.updates[4]), []);
  await s.stop();
});

Deno.test("api source: pods are sent oldest first (upstream admits by creation time)", async () => {
  const s = drivenStore(new FakeClock());
  const at = (t: string) => ({ creationTimestamp: t as unknown as Date });
  s.list([
    apiPod("c", at("2026-01-01T00:00:03Z")),
    apiPod("a", at("2026-01-01T00:00:01Z")),
    apiPod("b", at("2026-01-01T00:00:02Z")),
  ]);
  assert.deepEqual(names(s.updates[0]), ["a", "b", "c"]);
  await s.stop();
});

Deno.test("api store: a write's answer is not undone by an older watch event or list", async () => {
  const s = drivenStore(new FakeClock());
  s.list([apiPod("web", {}, "5")], "5");
  const answer = apiPod("web", {}, "9");
  answer.status = { phase: "Running" };
  s.store.observe(answer);
  s.event("MODIFIED", apiPod("web", {}, "7")); // in flight before our write
  assert.equal(s.store.get("default", "web")?.status?.phase, "Running");
  // A list at an older revision keeps it too, and keeps a pod we created after that revision.
  const created = apiPod("mirror", { annotations: { "kubernetes.io/config.mirror": "h" } }, "10");
  s.store.observe(created);
  s.list([apiPod("web", {}, "5")], "6");
  assert.equal(s.store.get("default", "web")?.status?.phase, "Running");
  assert.ok(s.store.get("default", "mirror"));
  // Another incarnation (a new UID) replaces whatever was held.
  s.event("ADDED", apiPod("web", { uid: "uid-web-2" }, "3"));
  assert.equal(s.store.get("default", "web")?.metadata?.uid, "uid-web-2");
  // forget drops only the incarnation it names.
  s.store.forget("default", "web", "uid-web");
  assert.ok(s.store.get("default", "web"));
  s.store.forget("default", "web", "uid-web-2");
  assert.equal(s.store.get("default", "web"), undefined);
  await s.stop();
});

/** A client whose lists and watches the test scripts, for the real reflector. */
class OutageClient implements ApiClient {
  readonly server = "https://fake";
  lists: Array<() => unknown> = [];
  watches: Array<() => WatchEvent<V1Pod>[] | Error> = [];
  queries: ApiRequest[] = [];
  request<T>(req: ApiRequest): Promise<T> {
    this.queries.push(req);
    const next = this.lists.shift() ?? (() => {
      throw new ApiUnavailableError("connection refused");
    });
    try {
      return Promise.resolve(next() as T);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  async *watch<T>(_path: string, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const next = this.watches.shift() ?? (() => new ApiUnavailableError("connection refused"));
    const events = next();
    if (events instanceof Error) throw events;
    for (const e of events) yield e as WatchEvent<T>;
    await new Promise<void>((r) => opts.signal.addEventListener("abort", () => r()));
  }
  close() {}
}

Deno.test("api source: while the API server is away the last snapshot stands", async () => {
  const clock = new FakeClock();
  const client = new OutageClient();
  client.lists.push(() => ({
    metadata: { resourceVersion: "10" },
    items: [apiPod("a"), apiPod("b")],
  }));
  // The watch breaks at once; every list after that is refused.
  client.watches.push(() => new ApiUnavailableError("stream broke"));
  const source = createApiSource({
    client,
    reflector: runReflector,
    nodeName: "node1",
    clock,
    logger: nullLogger,
  });
  const updates: PodSourceUpdate[] = [];
  const ac = new AbortController();
  const done = source.run((u) => updates.push(u), { signal: ac.signal });
  await settle();
  for (let i = 0; i < 10; i++) {
    await clock.advance(30_000);
    await settle();
  }
  assert.ok(client.queries.length > 3, "it kept trying");
  assert.equal(client.queries[0].query?.fieldSelector, "spec.nodeName=node1");
  assert.equal(updates.length, 1, "no snapshot while lists fail");
  assert.deepEqual(names(updates[0]), ["a", "b"]);
  ac.abort();
  await done;
});
