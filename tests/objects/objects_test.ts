import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { createObjectManagers, podRefs } from "../../src/objects/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeApi, settle } from "./_fakes.ts";

function pod(uid: string, spec: Partial<NonNullable<V1Pod["spec"]>>): V1Pod {
  return {
    metadata: { name: `pod-${uid}`, namespace: "ns", uid },
    spec: { containers: [], ...spec },
  };
}

const cmVolumePod = pod("a", {
  volumes: [{ name: "cfg", configMap: { name: "app" } }],
});
const envPod = pod("b", {
  containers: [{
    name: "c",
    env: [{ name: "PW", valueFrom: { secretKeyRef: { name: "creds", key: "pw" } } }],
    envFrom: [{ configMapRef: { name: "app" } }],
  }],
});

function setup() {
  const clock = new FakeClock();
  const api = new FakeApi();
  api.now = () => clock.now();
  const changed: string[] = [];
  const objects = createObjectManagers({
    client: api,
    clock,
    logger: nullLogger,
    onPodsChanged: (uids) => changed.push(...uids),
    random: () => 0,
  });
  return { clock, api, objects, changed };
}

Deno.test("podRefs lists the ConfigMaps and Secrets of pull secrets, volumes, projections, env and envFrom", () => {
  const p = pod("x", {
    imagePullSecrets: [{ name: "s-pull" }, { name: "" }],
    volumes: [
      { name: "a", configMap: { name: "cm-vol" } },
      { name: "b", secret: { secretName: "s-vol" } },
      {
        name: "c",
        projected: {
          sources: [{ configMap: { name: "cm-proj" } }, { secret: { name: "s-proj" } }, {
            serviceAccountToken: { path: "token" },
          }],
        },
      },
    ],
    initContainers: [{ name: "i", envFrom: [{ secretRef: { name: "s-init" } }] }],
    containers: [{
      name: "c",
      env: [{ name: "X", valueFrom: { configMapKeyRef: { name: "cm-env", key: "k" } } }],
    }],
  });
  const refs = podRefs(p);
  assert.deepEqual([...refs.configMaps].sort(), ["cm-env", "cm-proj", "cm-vol"]);
  assert.deepEqual([...refs.secrets].sort(), ["s-init", "s-proj", "s-pull", "s-vol"]);
});

Deno.test("object managers register a pod on its first read and refuse names it does not use", async () => {
  const { api, objects } = setup();
  api.put("configmaps", { metadata: { name: "app", namespace: "ns" }, data: { k: "v" } });
  api.put("secrets", { metadata: { name: "creds", namespace: "ns" }, data: { pw: "cHc=" } });
  assert.equal((await objects.configMap(envPod, "app")).data?.k, "v");
  assert.equal((await objects.secret(envPod, "creds")).data?.pw, "cHc=");
  await assert.rejects(objects.configMap(envPod, "unrelated"), /not registered/);
  const ac = new AbortController();
  ac.abort();
  await objects.run(() => [], { signal: ac.signal });
});

Deno.test("object managers follow the desired pods and report changes and due tokens", async () => {
  const { clock, api, objects, changed } = setup();
  api.put("configmaps", { metadata: { name: "app", namespace: "ns" }, data: { k: "v1" } });
  let pods = [cmVolumePod, envPod];
  const ac = new AbortController();
  const running = objects.run(() => pods, { signal: ac.signal });
  await settle();
  assert.deepEqual(api.watches().sort(), [
    "/api/v1/namespaces/ns/configmaps app",
    "/api/v1/namespaces/ns/secrets creds",
  ]);

  api.put("configmaps", { metadata: { name: "app", namespace: "ns" }, data: { k: "v2" } });
  await settle();
  assert.deepEqual(changed.sort(), ["a", "b"]);
  changed.length = 0;

  await objects.serviceAccountToken(cmVolumePod, { expirationSeconds: 100 });
  await clock.advance(80_000);
  assert.deepEqual(changed, ["a"], "the token is due at 80 %");
  changed.length = 0;

  pods = [cmVolumePod];
  await clock.advance(1000);
  await settle();
  assert.deepEqual(api.watches(), ["/api/v1/namespaces/ns/configmaps app"]);
  pods = [];
  await clock.advance(1000);
  await settle();
  assert.deepEqual(api.watches(), []);
  await clock.advance(60_000);
  assert.deepEqual(changed, [], "a gone pod's token is forgotten");

  pods = [envPod];
  await clock.advance(1000);
  await settle();
  assert.equal(api.watches().length, 2);
  ac.abort();
  await running;
  assert.deepEqual(api.watches(), [], "stopping ends every watch");
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("object managers drop the tokens of a pod that is gone, even one never synced", async () => {
  const { api, objects } = setup();
  const tokenOnly = pod("t", {});
  await objects.serviceAccountToken(tokenOnly, { expirationSeconds: 3600 });
  await objects.serviceAccountToken(tokenOnly, { expirationSeconds: 3600 });
  assert.equal(api.tokenCalls, 1, "cached");
  objects.syncPods([]);
  await objects.serviceAccountToken(tokenOnly, { expirationSeconds: 3600 });
  assert.equal(api.tokenCalls, 2, "the gone pod's token was dropped");
  const ac = new AbortController();
  ac.abort();
  await objects.run(() => [], { signal: ac.signal });
});
