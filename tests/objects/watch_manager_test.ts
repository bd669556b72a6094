import assert from "node:assert/strict";
import type { V1ConfigMap } from "@kubernetes/client-node";
import { ObjectNotFoundError, WatchManager } from "../../src/objects/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { isKind, NotFoundError } from "../../src/util/errors.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeApi, settle } from "./_fakes.ts";

function cm(name: string, data: Record<string, string>, extra: { immutable?: boolean } = {}) {
  return { metadata: { name, namespace: "ns" }, data, ...extra };
}

function setup() {
  const api = new FakeApi();
  const clock = new FakeClock();
  const changed: string[][] = [];
  const m = new WatchManager<V1ConfigMap>({
    client: api,
    clock,
    logger: nullLogger,
    kind: "configmap",
    resource: "configmaps",
    onChange: (uids) => changed.push(uids.sort()),
  });
  return { api, clock, m, changed };
}

Deno.test("watch manager lists and watches one object by name and serves reads from memory", async () => {
  const { api, m } = setup();
  api.put("configmaps", cm("app", { k: "v1" }));
  m.registerPod("pod-1", "ns", ["app"]);
  assert.equal((await m.get("ns", "app")).data?.k, "v1");
  const lists = api.requests.filter((r) => r.method === "GET");
  assert.equal(lists.length, 1);
  assert.equal(lists[0].path, "/api/v1/namespaces/ns/configmaps");
  assert.equal(lists[0].query?.fieldSelector, "metadata.name=app");
  await settle();
  assert.deepEqual(api.watches(), ["/api/v1/namespaces/ns/configmaps app"]);
  await m.get("ns", "app");
  assert.equal(api.requests.length, 1, "a second read asks nothing");
  await m.close();
  assert.deepEqual(api.watches(), []);
});

Deno.test("watch manager: a missing object is a NotFoundError with upstream's message", async () => {
  const { m } = setup();
  m.registerPod("pod-1", "ns", ["nope"]);
  await assert.rejects(m.get("ns", "nope"), (e) => {
    assert.ok(e instanceof ObjectNotFoundError);
    assert.ok(isKind(e, NotFoundError));
    assert.equal((e as Error).message, 'configmap "nope" not found');
    return true;
  });
  await m.close();
});

Deno.test("watch manager reports changes to the pods using the object", async () => {
  const { api, m, changed } = setup();
  m.registerPod("pod-1", "ns", ["app"]);
  m.registerPod("pod-2", "ns", ["app", "other"]);
  await assert.rejects(m.get("ns", "app"), NotFoundError);
  await settle();
  assert.deepEqual(changed, [], "the first list is no change");

  api.put("configmaps", cm("app", { k: "v1" }));
  await settle();
  assert.deepEqual(changed, [["pod-1", "pod-2"]]);
  assert.equal((await m.get("ns", "app")).data?.k, "v1");

  api.put("configmaps", cm("app", { k: "v2" }));
  await settle();
  assert.equal((await m.get("ns", "app")).data?.k, "v2");
  assert.equal(changed.length, 2);

  api.remove("configmaps", "ns", "app");
  await settle();
  await assert.rejects(m.get("ns", "app"), /configmap "app" not found/);
  assert.equal(changed.length, 3);

  // Another namespace's object of the same name is another object.
  api.put("configmaps", { metadata: { name: "app", namespace: "elsewhere" }, data: {} });
  await settle();
  assert.equal(changed.length, 3);
  await m.close();
});

Deno.test("watch manager stops a watch when no pod references the object any more", async () => {
  const { api, m } = setup();
  m.registerPod("pod-1", "ns", ["a", "b"]);
  m.registerPod("pod-2", "ns", ["b"]);
  await settle();
  assert.equal(api.watches().length, 2);
  m.unregisterPod("pod-1");
  await settle();
  assert.deepEqual(api.watches(), ["/api/v1/namespaces/ns/configmaps b"]);
  await assert.rejects(m.get("ns", "a"), /object "ns"\/"a" not registered/);
  // Re-registering with fewer names drops the rest.
  m.registerPod("pod-2", "ns", []);
  await settle();
  assert.deepEqual(api.watches(), []);
  assert.deepEqual(m.pods(), []);
  await m.close();
});

Deno.test("watch manager: a first read gives up when the list does not come in time", async () => {
  const { api, clock, m } = setup();
  api.hangLists = true;
  m.registerPod("pod-1", "ns", ["app"]);
  const read = m.get("ns", "app");
  const outcome = read.then(() => "resolved", (e) => String(e));
  await clock.advance(4000);
  assert.equal(await Promise.race([outcome, Promise.resolve("pending")]), "pending");
  await clock.advance(1000);
  assert.match(await outcome, /failed to sync configmap cache: timed out waiting/);
  const ac = new AbortController();
  const aborted = m.get("ns", "app", { signal: ac.signal });
  ac.abort(new Error("stop"));
  await assert.rejects(aborted, /stop/);
  api.hangLists = false;
  await m.close();
});

Deno.test("watch manager stops watching an immutable object once read", async () => {
  const { api, m } = setup();
  api.put("configmaps", cm("frozen", { k: "v" }, { immutable: true }));
  m.registerPod("pod-1", "ns", ["frozen"]);
  assert.equal((await m.get("ns", "frozen")).data?.k, "v");
  await settle();
  assert.deepEqual(api.watches(), []);
  assert.equal((await m.get("ns", "frozen")).data?.k, "v");
  await m.close();
});
