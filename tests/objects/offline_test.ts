/**
 * The object managers with a checkpoint (edge autonomy): ConfigMaps, Secrets and tokens served
 * from it while the API server cannot be reached, replaced (and the pods told) once it answers,
 * and the checkpoint kept as the objects in use were last seen.
 */
import assert from "node:assert/strict";
import type { V1ConfigMap, V1Pod, V1Secret } from "@kubernetes/client-node";
import { ApiError } from "../../src/apiclient/mod.ts";
import type { ObjectsCheckpoint, TokensCheckpoint } from "../../src/checkpoint/types.ts";
import { createObjectManagers, TokenManager, WatchManager } from "../../src/objects/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { MemorySlot } from "../checkpoint/_fakes.ts";
import { FakeApi, settle } from "./_fakes.ts";

const cm = (name: string, k: string, rv = "50") => ({
  metadata: { name, namespace: "ns", resourceVersion: rv },
  data: { k },
});

function setup(saved?: V1ConfigMap[]) {
  const api = new FakeApi();
  const clock = new FakeClock();
  const changed: string[][] = [];
  const slot = new MemorySlot<ObjectsCheckpoint<V1ConfigMap>>(saved && { objects: saved });
  const m = new WatchManager<V1ConfigMap>({
    client: api,
    clock,
    logger: nullLogger,
    kind: "configmap",
    resource: "configmaps",
    onChange: (uids) => changed.push(uids.sort()),
    checkpoint: slot,
  });
  const saving = () => slot.produced()?.objects.map((o) => `${o.metadata?.name}=${o.data?.k}`);
  return { api, clock, m, changed, slot, saving };
}

/** Resolves to the value, or "pending" when `p` has not settled yet. */
const peek = <T>(p: Promise<T>) => Promise.race([p, settle().then(() => "pending" as const)]);

Deno.test("watch manager: a refused list serves the checkpoint's copy at once; the list that works later is a change", async () => {
  const { api, clock, m, changed, saving } = setup([cm("app", "old")]);
  api.down = true;
  m.registerPod("pod-1", "ns", ["app"]);
  const read = m.get("ns", "app");
  assert.equal((await peek(read) as V1ConfigMap).data?.k, "old", "no 5 s wait");
  assert.equal(saving(), undefined, "nothing new to save while offline");

  api.down = false;
  api.put("configmaps", cm("app", "new"));
  await clock.advance(1_000); // the reflector's back-off
  assert.deepEqual(changed, [["pod-1"]], "the pod's volume is rewritten");
  assert.equal((await m.get("ns", "app")).data?.k, "new");
  assert.deepEqual(saving(), ["app=new"]);
  await m.close();
});

Deno.test("watch manager: an unanswered list waits the sync timeout, then serves the checkpoint", async () => {
  const { api, clock, m } = setup([cm("app", "old")]);
  api.hangLists = true;
  m.registerPod("pod-1", "ns", ["app"]);
  const read = m.get("ns", "app");
  await clock.advance(4_999);
  assert.equal(await peek(read), "pending");
  await clock.advance(1);
  assert.equal((await read).data?.k, "old");
  api.hangLists = false;
  await m.close();
});

Deno.test("watch manager: an object the checkpoint lacks fails as it would without one", async () => {
  const { api, clock, m } = setup([cm("app", "old")]);
  api.down = true;
  m.registerPod("pod-1", "ns", ["other"]);
  const read = m.get("ns", "other").then(() => "resolved", (e) => String(e));
  await clock.advance(5_000);
  assert.match(await read, /failed to sync configmap cache/);
  await m.close();
});

Deno.test("watch manager: the same version back from the API server is no change", async () => {
  // FakeApi numbers versions from 101.
  const { api, clock, m, changed } = setup([cm("app", "v", "101")]);
  api.put("configmaps", cm("app", "v"));
  api.down = true;
  m.registerPod("pod-1", "ns", ["app"]);
  assert.equal((await m.get("ns", "app")).data?.k, "v");
  api.down = false;
  await clock.advance(1_000);
  await settle();
  assert.deepEqual(changed, []);
  await m.close();
});

Deno.test("watch manager: the checkpoint holds the objects in use as last seen; closing keeps it", async () => {
  const { api, m, saving } = setup();
  api.put("configmaps", cm("app", "1"));
  api.put("configmaps", cm("other", "2"));
  m.registerPod("pod-1", "ns", ["app"]);
  m.registerPod("pod-2", "ns", ["other", "missing"]);
  await Promise.all([m.get("ns", "app"), m.get("ns", "other")]);
  await assert.rejects(m.get("ns", "missing"), /not found/);
  assert.deepEqual(saving(), ["app=1", "other=2"], "what does not exist is not kept");
  api.put("configmaps", cm("app", "3"));
  await settle();
  assert.deepEqual(saving(), ["app=3", "other=2"]);
  m.unregisterPod("pod-2");
  assert.deepEqual(saving(), ["app=3"], "an object no pod uses leaves");
  await m.close();
  assert.deepEqual(saving(), ["app=3"], "a stopping agent does not empty it");
});

const pod: V1Pod = {
  metadata: { name: "web", namespace: "ns", uid: "uid-1" },
  spec: { serviceAccountName: "builder", containers: [] },
};
const SPEC = { expirationSeconds: 3600 };
const KEY = JSON.stringify(["ns", "builder", "", 3600, "uid-1"]);

function tokenSetup(saved: TokensCheckpoint["tokens"]) {
  const clock = new FakeClock();
  const api = new FakeApi();
  api.now = () => clock.now();
  const slot = new MemorySlot<TokensCheckpoint>({ tokens: saved });
  const tokens = new TokenManager({
    client: api,
    clock,
    logger: nullLogger,
    random: () => 0,
    checkpoint: slot,
  });
  return { clock, api, tokens, slot };
}

Deno.test("token manager: a saved token still fresh is served without a TokenRequest", async () => {
  const now = Date.UTC(2026, 0, 1);
  const { api, tokens } = tokenSetup([
    {
      key: KEY,
      podUid: "uid-1",
      token: "saved",
      expiresAt: now + 3600_000,
      refreshAt: now + 2880_000,
    },
  ]);
  api.down = true;
  assert.equal(await tokens.get(pod, SPEC), "saved");
  assert.equal(api.tokenCalls, 0);
  assert.deepEqual(tokens.pods(), ["uid-1"]);
});

Deno.test("token manager: an expired token is served while the API server is away, asked again every 10 s, replaced on return", async () => {
  const now = Date.UTC(2026, 0, 1);
  const { clock, api, tokens, slot } = tokenSetup([
    { key: KEY, podUid: "uid-1", token: "expired", expiresAt: now - 1000, refreshAt: now - 2000 },
  ]);
  api.down = true;
  tokens.cleanup();
  assert.equal(await tokens.get(pod, SPEC), "expired", "the volume can be set up offline");
  tokens.cleanup();
  assert.deepEqual(tokens.pods(), ["uid-1"], "kept while the API server is away");
  assert.deepEqual(tokens.dueForRefresh(), []);
  await clock.advance(10_000);
  assert.deepEqual(tokens.dueForRefresh(), ["uid-1"], "the pod is synced to try again");
  assert.deepEqual(tokens.dueForRefresh(), []);
  api.down = false;
  const fresh = await tokens.get(pod, SPEC);
  assert.equal(fresh, "token-1");
  assert.deepEqual(slot.produced()?.tokens.map((t) => t.token), ["token-1"]);
});

Deno.test("token manager: an expired token the API server refuses to renew is not served", async () => {
  const now = Date.UTC(2026, 0, 1);
  const { api, tokens } = tokenSetup([
    { key: KEY, podUid: "uid-1", token: "expired", expiresAt: now - 1000, refreshAt: now - 2000 },
  ]);
  api.tokenError = new ApiError(404, "NotFound", 'serviceaccounts "builder" not found');
  await assert.rejects(tokens.get(pod, SPEC), /failed to fetch token: serviceaccounts "builder"/);
  tokens.cleanup();
  assert.deepEqual(tokens.pods(), [], "dropped as upstream");
});

Deno.test("token manager: a token from the API server drops expired ones kept for the outage", async () => {
  const now = Date.UTC(2026, 0, 1);
  const other = JSON.stringify(["ns", "builder", "", 3600, "uid-gone"]);
  const { tokens, slot } = tokenSetup([
    { key: other, podUid: "uid-gone", token: "old", expiresAt: now - 1000, refreshAt: now - 2000 },
  ]);
  tokens.cleanup();
  assert.deepEqual(tokens.pods(), ["uid-gone"], "kept until the API server answers");
  await tokens.get(pod, SPEC);
  tokens.cleanup();
  assert.deepEqual(tokens.pods(), ["uid-1"]);
  assert.deepEqual(slot.produced()?.tokens.map((t) => t.podUid), ["uid-1"]);
  tokens.forgetPod("uid-1");
  assert.deepEqual(slot.produced()?.tokens, []);
});

Deno.test("object managers serve checkpointed Secrets and ConfigMaps to volumes while offline", async () => {
  const api = new FakeApi();
  api.down = true;
  const secret = {
    metadata: { name: "creds", namespace: "ns", resourceVersion: "9" },
    data: { p: "cA==" },
  };
  const objects = createObjectManagers({
    client: api,
    clock: new FakeClock(),
    logger: nullLogger,
    onPodsChanged: () => {},
    checkpoint: {
      configMaps: new MemorySlot<ObjectsCheckpoint<V1ConfigMap>>({ objects: [cm("app", "x")] }),
      secrets: new MemorySlot<ObjectsCheckpoint<V1Secret>>({ objects: [secret] }),
      tokens: new MemorySlot<TokensCheckpoint>({ tokens: [] }),
    },
  });
  const user: V1Pod = {
    metadata: { name: "web", namespace: "ns", uid: "uid-1" },
    spec: {
      containers: [{ name: "c", envFrom: [{ secretRef: { name: "creds" } }] }],
      volumes: [{ name: "v", configMap: { name: "app" } }],
    },
  };
  assert.equal((await peek(objects.secret(user, "creds")) as V1Secret).data?.p, "cA==");
  assert.equal((await peek(objects.configMap(user, "app")) as V1ConfigMap).data?.k, "x");
  const ac = new AbortController();
  ac.abort();
  await objects.run(() => [], { signal: ac.signal });
});
