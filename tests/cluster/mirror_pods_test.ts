/**
 * Mirror pods: created for every static pod (annotation, Node owner reference), deleted and
 * created again when deleted or outdated, deleted when the static pod is gone, retried with
 * back-off, and nothing done before the store and the Node are known.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { ApiUnavailableError } from "../../src/apiclient/mod.ts";
import { createMirrorPods } from "../../src/cluster/mirror_pods.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { drivenStore, FakeKubelet, ScriptedApi, settle } from "./_fakes.ts";

const NODE: V1Node = { metadata: { name: "node1", uid: "node-uid" } };

function staticPod(name: string, hash: string): V1Pod {
  return {
    metadata: {
      name,
      namespace: "kube-system",
      uid: hash,
      labels: { tier: "control-plane" },
      annotations: {
        "kubernetes.io/config.source": "file",
        "kubernetes.io/config.hash": hash,
        "kubernetes.io/config.seen": "2026-01-01T00:00:00.000Z",
      },
    },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
    status: { phase: "Running" },
  };
}

function mirror(name: string, hash: string, uid: string, deleting = false): V1Pod {
  return {
    metadata: {
      name,
      namespace: "kube-system",
      uid,
      resourceVersion: "3",
      annotations: { "kubernetes.io/config.mirror": hash },
      deletionTimestamp: deleting ? "2026-01-01T00:01:00Z" as unknown as Date : undefined,
    },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
  };
}

function setup(opts: { node?: V1Node } = { node: NODE }) {
  const clock = new FakeClock();
  const api = new ScriptedApi();
  let created = 0;
  api.answer = (req) => {
    if (req.method !== "POST") return {};
    const pod = structuredClone(req.body) as V1Pod;
    pod.metadata!.uid = `created-${++created}`;
    pod.metadata!.resourceVersion = String(100 + created);
    return pod;
  };
  const driven = drivenStore(clock);
  const kubelet = new FakeKubelet();
  const current = { node: opts.node };
  const mirrors = createMirrorPods({
    client: api,
    store: driven.store,
    nodeName: "node1",
    node: () => current.node,
    clock,
    logger: nullLogger,
  });
  const ac = new AbortController();
  const done = mirrors.run(kubelet, { signal: ac.signal });
  return {
    clock,
    api,
    driven,
    kubelet,
    mirrors,
    current,
    stop: async () => {
      ac.abort();
      await done;
      await driven.stop();
    },
  };
}

const paths = (api: ScriptedApi) => api.requests.map((r) => `${r.method} ${r.path}`);

Deno.test("mirror pods: priority and preemptionPolicy are left for the API server's admission to set", async () => {
  const t = setup();
  const pod = staticPod("web-node1", "h1");
  // What the agent's defaults hold locally: only the system classes resolve to a number.
  pod.spec = { ...pod.spec!, priorityClassName: "high", priority: 0 };
  pod.spec.preemptionPolicy = "PreemptLowerPriority";
  t.kubelet.add(pod);
  t.driven.list([]);
  t.mirrors.trigger();
  await settle();
  const spec = (t.api.requests[0].body as V1Pod).spec!;
  assert.equal(spec.priorityClassName, "high");
  assert.ok(!("priority" in spec), "a class worth 1000 upstream would refuse priority 0");
  assert.ok(!("preemptionPolicy" in spec));
  assert.equal(pod.spec.priority, 0, "the local pod keeps its own");
  await t.stop();
});

Deno.test("mirror pods: every static pod gets one, owned by the Node; API pods get none", async () => {
  const t = setup();
  t.kubelet.add(staticPod("etcd-node1", "h1"));
  t.kubelet.add({
    metadata: {
      name: "web",
      namespace: "default",
      uid: "u",
      annotations: { "kubernetes.io/config.source": "api" },
    },
    spec: { containers: [] },
  });
  t.driven.list([]);
  t.mirrors.trigger();
  await settle();
  assert.deepEqual(paths(t.api), ["POST /api/v1/namespaces/kube-system/pods"]);
  const body = t.api.requests[0].body as V1Pod;
  assert.equal(body.metadata?.name, "etcd-node1");
  assert.equal(body.metadata?.uid, undefined, "the API server gives it its own UID");
  assert.equal(body.metadata?.annotations?.["kubernetes.io/config.mirror"], "h1");
  assert.equal(body.metadata?.annotations?.["kubernetes.io/config.hash"], "h1");
  assert.deepEqual(body.metadata?.labels, { tier: "control-plane" });
  assert.deepEqual(body.metadata?.ownerReferences, [{
    apiVersion: "v1",
    kind: "Node",
    name: "node1",
    uid: "node-uid",
    controller: true,
  }]);
  assert.equal(body.status, undefined);
  assert.deepEqual(body.spec, staticPod("etcd-node1", "h1").spec);
  // The answer is in the store: the next pass does not create it again.
  await t.clock.advance(20_000);
  await settle();
  assert.equal(t.api.requests.length, 1);
  await t.stop();
});

Deno.test("mirror pods: nothing before the first list, nor before the Node is known", async () => {
  const t = setup({});
  t.kubelet.add(staticPod("etcd-node1", "h1"));
  t.mirrors.trigger();
  await settle();
  assert.equal(t.api.requests.length, 0, "the store does not know which mirrors exist");
  t.driven.list([]);
  await t.clock.advance(10_000);
  await settle();
  assert.equal(t.api.requests.length, 0, "no owner reference without the Node's UID");
  t.current.node = NODE;
  await t.clock.advance(5_000);
  await settle();
  assert.deepEqual(paths(t.api), ["POST /api/v1/namespaces/kube-system/pods"]);
  await t.stop();
});

Deno.test("mirror pods: a mirror being deleted is deleted for good and created again", async () => {
  const t = setup();
  t.kubelet.add(staticPod("etcd-node1", "h1"));
  t.driven.list([mirror("etcd-node1", "h1", "m1", true)]);
  await settle();
  assert.deepEqual(paths(t.api), [
    "DELETE /api/v1/namespaces/kube-system/pods/etcd-node1",
    "POST /api/v1/namespaces/kube-system/pods",
  ]);
  assert.deepEqual(t.api.requests[0].body, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    gracePeriodSeconds: 0,
    preconditions: { uid: "m1" },
  });
  await t.stop();
});

Deno.test("mirror pods: an outdated mirror is replaced; a deleted one is recreated", async () => {
  const t = setup();
  t.kubelet.add(staticPod("etcd-node1", "h2"));
  t.driven.list([mirror("etcd-node1", "h1", "m1")]);
  await settle();
  assert.deepEqual(paths(t.api), [
    "DELETE /api/v1/namespaces/kube-system/pods/etcd-node1",
    "POST /api/v1/namespaces/kube-system/pods",
  ]);
  assert.equal(
    (t.api.requests[1].body as V1Pod).metadata?.annotations?.["kubernetes.io/config.mirror"],
    "h2",
  );
  // Someone deletes the mirror (the watch says so): it comes back.
  const current = t.driven.store.get("kube-system", "etcd-node1")!;
  t.driven.event("DELETED", current);
  await settle();
  assert.equal(t.api.calls("POST").length, 2);
  await t.stop();
});

Deno.test("mirror pods: an orphan is deleted once its static pod has stopped", async () => {
  const t = setup();
  // The static pod (UID = hash) is still terminating: its mirror shows that, so it stays.
  t.kubelet.states.set("h1", "terminating");
  t.driven.list([mirror("etcd-node1", "h1", "m1")]);
  await settle();
  assert.equal(t.api.requests.length, 0);
  t.kubelet.states.set("h1", "terminated");
  await t.clock.advance(5_000);
  await settle();
  assert.deepEqual(paths(t.api), ["DELETE /api/v1/namespaces/kube-system/pods/etcd-node1"]);
  assert.equal(t.driven.store.get("kube-system", "etcd-node1"), undefined);
  await t.clock.advance(20_000);
  await settle();
  assert.equal(t.api.requests.length, 1);
  await t.stop();
});

Deno.test("mirror pods: a failed create is retried after a back-off", async () => {
  const t = setup();
  const answer = t.api.answer;
  let failing = true;
  t.api.answer = (req) => failing ? new ApiUnavailableError("connection refused") : answer(req);
  t.kubelet.add(staticPod("etcd-node1", "h1"));
  t.driven.list([]);
  await settle();
  assert.equal(t.api.requests.length, 1);
  // Triggers during the back-off do not retry it.
  t.mirrors.trigger();
  await t.clock.advance(900);
  await settle();
  assert.equal(t.api.requests.length, 1);
  await t.clock.advance(5_000); // next periodic pass, after the 1 s back-off
  await settle();
  assert.equal(t.api.requests.length, 2);
  failing = false;
  await t.clock.advance(5_000); // the next pass, past the 2 s back-off
  await settle();
  assert.equal(t.api.requests.length, 3);
  await t.clock.advance(30_000);
  await settle();
  assert.equal(t.api.requests.length, 3, "created; nothing more");
  await t.stop();
});

Deno.test("mirror pods: a name held by an API pod gets no mirror", async () => {
  const t = setup();
  t.kubelet.add(staticPod("etcd-node1", "h1"));
  t.driven.list([{
    metadata: { name: "etcd-node1", namespace: "kube-system", uid: "api", resourceVersion: "2" },
    spec: { containers: [] },
  }]);
  await t.clock.advance(10_000);
  await settle();
  assert.equal(t.api.requests.length, 0);
  await t.stop();
});
