/**
 * The status writer: a strategic merge patch of `pods/<name>/status` with the UID precondition,
 * sent only when the kubelet-owned part differs from the API's, never repeated, retried with
 * back-off; static pods' statuses on their mirror pods; the final delete after a graceful one.
 */
import assert from "node:assert/strict";
import type { V1Pod, V1PodStatus } from "@kubernetes/client-node";
import { ApiError, ApiUnavailableError } from "../../src/apiclient/mod.ts";
import { createStatusWriter, type StatusWriterDeps } from "../../src/cluster/status_writer.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { drivenStore, FakeKubelet, ScriptedApi, settle } from "./_fakes.ts";

const T0 = "2026-01-01T00:00:00Z";
const T1 = new Date(Date.UTC(2026, 0, 1, 0, 0, 5));

function apiPod(name: string, status: V1PodStatus = { phase: "Pending" }): V1Pod {
  return {
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      resourceVersion: "5",
      annotations: { "kubernetes.io/config.source": "api" },
    },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
    status,
  };
}

function staticPod(name: string, hash: string): V1Pod {
  return {
    metadata: {
      name,
      namespace: "kube-system",
      uid: hash,
      annotations: { "kubernetes.io/config.source": "file", "kubernetes.io/config.hash": hash },
    },
    spec: { nodeName: "node1", containers: [{ name: "app", image: "busybox" }] },
  };
}

function mirrorOf(pod: V1Pod, hash: string, uid = "mirror-uid"): V1Pod {
  return {
    metadata: {
      name: pod.metadata!.name,
      namespace: pod.metadata!.namespace,
      uid,
      resourceVersion: "5",
      annotations: { "kubernetes.io/config.mirror": hash },
    },
    spec: pod.spec,
    status: { phase: "Pending", qosClass: "BestEffort" },
  };
}

/** A running status as the kubelet computes it (Dates at whole seconds). */
function running(extra: Partial<V1PodStatus> = {}): V1PodStatus {
  return {
    phase: "Running",
    qosClass: "BestEffort",
    podIP: "10.0.0.5",
    podIPs: [{ ip: "10.0.0.5" }],
    hostIP: "192.168.1.2",
    hostIPs: [{ ip: "192.168.1.2" }],
    startTime: new Date(T0),
    conditions: [
      { type: "PodScheduled", status: "True", lastTransitionTime: new Date(T0) },
      { type: "Ready", status: "True", lastTransitionTime: T1 },
    ],
    containerStatuses: [{
      name: "app",
      ready: true,
      restartCount: 0,
      image: "busybox",
      imageID: "sha256:1",
      containerID: "containerd://c1",
      started: true,
      state: { running: { startedAt: T1 } },
    }],
    ...extra,
  };
}

/** The same status as the API server sends it back: JSON, times without fractions. */
function asApi(s: V1PodStatus): V1PodStatus {
  return JSON.parse(JSON.stringify(s).replaceAll(".000Z", "Z"));
}

function setup(opts: Partial<StatusWriterDeps> = {}) {
  const clock = new FakeClock();
  const api = new ScriptedApi();
  const driven = drivenStore(clock);
  const kubelet = new FakeKubelet();
  const writer = createStatusWriter({
    client: api,
    store: driven.store,
    clock,
    logger: nullLogger,
    ...opts,
  });
  // The API's answer to a status patch: the stored pod with the patch merged (enough here).
  api.answer = (req) => {
    if (req.method !== "PATCH") return req.body;
    const [, ns, name] = /namespaces\/([^/]+)\/pods\/([^/]+)\/status/.exec(req.path)!;
    const held = structuredClone(driven.store.get(ns, name)!);
    const body = req.body as { status: Record<string, unknown> };
    held.status = { ...held.status, ...body.status } as V1PodStatus;
    held.metadata!.resourceVersion = String(Number(held.metadata!.resourceVersion) + 1);
    return held;
  };
  const ac = new AbortController();
  const done = writer.run(kubelet, { signal: ac.signal });
  return {
    clock,
    api,
    driven,
    kubelet,
    writer,
    stop: async () => {
      ac.abort();
      await done;
      await driven.stop();
    },
  };
}

Deno.test("status writer: patches the status subresource with the UID precondition, changed parts only", async () => {
  const t = setup();
  const pod = apiPod("web", {
    phase: "Pending",
    qosClass: "BestEffort",
    conditions: [
      { type: "PodScheduled", status: "True", lastTransitionTime: T0 as unknown as Date },
      { type: "example.com/gate", status: "True" },
    ],
  });
  t.driven.list([pod]);
  t.kubelet.add(pod);
  // The kubelet's copy of a condition someone else owns may be stale: it is never sent.
  const ours = running();
  ours.conditions!.push({ type: "example.com/gate", status: "False" });
  t.writer.statusChanged(pod, ours);
  await settle();
  const [patch, ...more] = t.api.calls("PATCH");
  assert.equal(more.length, 0);
  assert.equal(patch.path, "/api/v1/namespaces/default/pods/web/status");
  assert.equal(patch.patchType, "application/strategic-merge-patch+json");
  const body = patch.body as { metadata: { uid: string }; status: Record<string, unknown> };
  assert.deepEqual(body.metadata, { uid: "uid-web" });
  assert.equal(body.status.phase, "Running");
  assert.equal(body.status.startTime, T0, "times in RFC 3339 at whole seconds");
  assert.equal(body.status.qosClass, undefined, "unchanged fields are not sent");
  // Only the kubelet's own conditions; PodScheduled and the gate are the API's business.
  assert.deepEqual(body.status.conditions, [
    { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:05Z" },
  ]);
  assert.deepEqual(body.status["$setElementOrder/podIPs"], [{ ip: "10.0.0.5" }]);
  await t.stop();
});

Deno.test("status writer: nothing is written when the API already has it (a restarted agent)", async () => {
  const t = setup();
  const pod = apiPod("web", asApi(running()));
  t.driven.list([pod]);
  t.kubelet.add(pod);
  t.writer.statusChanged(pod, running());
  await settle();
  await t.clock.advance(30_000); // resyncs look again, still nothing to say
  await settle();
  assert.equal(t.api.requests.length, 0);
  await t.stop();
});

Deno.test("status writer: a status changed in the API after agreement is written back", async () => {
  const t = setup({ resyncMs: 10_000 });
  const pod = apiPod("web", asApi(running()));
  t.driven.list([pod]);
  t.kubelet.add(pod);
  t.writer.statusChanged(pod, running());
  await settle();
  await t.clock.advance(10_000); // a resync finds both unchanged: nothing to compare or write
  await settle();
  assert.equal(t.api.requests.length, 0);
  // Someone else writes the status; the watch brings a new object with other contents.
  t.driven.event("MODIFIED", {
    ...pod,
    metadata: { ...pod.metadata, resourceVersion: "6" },
    status: { ...asApi(running()), phase: "Pending" },
  });
  await settle();
  assert.equal(t.api.calls("PATCH").length, 1);
  assert.deepEqual(
    (t.api.calls("PATCH")[0].body as { status: V1PodStatus }).status.phase,
    "Running",
  );
  await t.stop();
});

Deno.test("status writer: a write is not repeated when the API answers it in its own words", async () => {
  const t = setup();
  const pod = apiPod("web");
  t.driven.list([pod]);
  t.kubelet.add(pod);
  // This API drops the message the kubelet sends: comparing again would patch forever.
  const merge = t.api.answer;
  t.api.answer = (req) => {
    const out = merge(req) as V1Pod;
    if (out?.status) delete out.status.message;
    return out;
  };
  t.writer.statusChanged(pod, running({ message: "hello" }));
  await settle();
  assert.equal(t.api.calls("PATCH").length, 1);
  await t.clock.advance(30_000);
  await settle();
  assert.equal(t.api.calls("PATCH").length, 1);
  // A new status is written again.
  t.writer.statusChanged(pod, running({ message: "hello", phase: "Succeeded" }));
  await settle();
  assert.equal(t.api.calls("PATCH").length, 2);
  await t.stop();
});

Deno.test("status writer: failures are retried with doubling back-off; a gone pod is not", async () => {
  const t = setup();
  const pod = apiPod("web");
  t.driven.list([pod]);
  t.kubelet.add(pod);
  const merge = t.api.answer;
  let failing = true;
  t.api.answer = (req) => failing ? new ApiUnavailableError("connection refused") : merge(req);
  t.writer.statusChanged(pod, running());
  await settle();
  assert.equal(t.api.calls("PATCH").length, 1);
  await t.clock.advance(999);
  await settle();
  assert.equal(t.api.calls("PATCH").length, 1, "not before the back-off");
  await t.clock.advance(1);
  await settle();
  assert.equal(t.api.calls("PATCH").length, 2, "after 1 s");
  await t.clock.advance(1999);
  await settle();
  assert.equal(t.api.calls("PATCH").length, 2);
  failing = false;
  await t.clock.advance(1);
  await settle();
  assert.equal(t.api.calls("PATCH").length, 3, "after 2 more s, and it worked");
  await t.clock.advance(60_000);
  await settle();
  assert.equal(t.api.calls("PATCH").length, 3);

  const gone = apiPod("gone");
  t.driven.event("ADDED", gone);
  t.kubelet.add(gone);
  t.api.answer = () => new ApiError(404, "NotFound", 'pods "gone" not found');
  t.writer.statusChanged(gone, running());
  await settle();
  await t.clock.advance(5_000);
  await settle();
  assert.equal(t.api.requests.filter((r) => r.path.includes("/gone/")).length, 1);
  await t.stop();
});

Deno.test("status writer: changes while a write is in flight coalesce into one more write", async () => {
  const t = setup();
  const pod = apiPod("web");
  t.driven.list([pod]);
  t.kubelet.add(pod);
  const merge = t.api.answer;
  const { promise: gate, resolve: release } = Promise.withResolvers<void>();
  t.api.answer = (req) =>
    t.api.calls("PATCH").length === 1 ? gate.then(() => merge(req)) : merge(req);
  t.writer.statusChanged(pod, running({ message: "1" }));
  await settle();
  // The first write hangs; the kubelet's calls still return at once and only record.
  t.writer.statusChanged(pod, running({ message: "2" }));
  t.writer.statusChanged(pod, running({ message: "3" }));
  await settle();
  assert.equal(t.api.calls("PATCH").length, 1);
  release();
  await settle();
  const patches = t.api.calls("PATCH");
  assert.equal(patches.length, 2);
  assert.equal((patches[1].body as { status: { message: string } }).status.message, "3");
  await t.stop();
});

Deno.test("status writer: a static pod's status goes to its current mirror pod", async () => {
  const t = setup();
  const pod = staticPod("etcd-node1", "hash1");
  t.kubelet.add(pod);
  t.driven.list([]);
  t.writer.statusChanged(pod, running());
  await settle();
  assert.equal(t.api.requests.length, 0, "no mirror yet");
  // An outdated mirror (another hash) is not written to either.
  t.driven.event("ADDED", mirrorOf(pod, "old-hash", "m0"));
  await settle();
  assert.equal(t.api.requests.length, 0);
  t.driven.event("DELETED", mirrorOf(pod, "old-hash", "m0"));
  t.driven.event("ADDED", mirrorOf(pod, "hash1", "m1"));
  await settle();
  const [patch] = t.api.calls("PATCH");
  assert.equal(patch.path, "/api/v1/namespaces/kube-system/pods/etcd-node1/status");
  const body = patch.body as { metadata: { uid: string }; status: Record<string, unknown> };
  assert.deepEqual(body.metadata, { uid: "m1" });
  // The mirror has no PodScheduled: the kubelet's is added.
  const types = (body.status.conditions as { type: string }[]).map((c) => c.type);
  assert.deepEqual(types.sort(), ["PodScheduled", "Ready"]);
  await t.stop();
});

Deno.test("status writer: a restarted agent keeps the mirror's transition times and start time", async () => {
  const t = setup();
  const pod = staticPod("etcd-node1", "hash1");
  t.kubelet.add(pod);
  const m = mirrorOf(pod, "hash1", "m1");
  m.status = asApi(running());
  t.driven.list([m]);
  // After the restart the kubelet stamps "now" on conditions and start time it cannot know.
  const later = new Date(Date.UTC(2026, 0, 1, 1, 0, 0));
  const fresh = running({ startTime: later });
  fresh.conditions = fresh.conditions!.map((c) => ({ ...c, lastTransitionTime: later }));
  t.writer.statusChanged(pod, fresh);
  await settle();
  assert.equal(t.api.requests.length, 0, "the same facts: nothing to write");
  // A condition that did change carries the new time.
  const unready = running({ startTime: later });
  unready.conditions = [{ type: "Ready", status: "False", lastTransitionTime: later }];
  t.writer.statusChanged(pod, unready);
  await settle();
  const body = t.api.calls("PATCH")[0].body as { status: Record<string, unknown> };
  assert.deepEqual(body.status.conditions, [
    { type: "Ready", status: "False", lastTransitionTime: "2026-01-01T01:00:00Z" },
  ]);
  assert.equal(body.status.startTime, undefined);
  await t.stop();
});

Deno.test("status writer: a gracefully deleted pod is deleted for good once terminated", async () => {
  const t = setup();
  const pod = apiPod("web", asApi(running()));
  pod.metadata!.deletionTimestamp = "2026-01-01T00:01:00Z" as unknown as Date;
  pod.metadata!.deletionGracePeriodSeconds = 30;
  t.driven.list([pod]);
  t.kubelet.add(pod, "terminating");
  const final = running({
    phase: "Failed",
    containerStatuses: [{
      name: "app",
      ready: false,
      restartCount: 0,
      image: "busybox",
      imageID: "sha256:1",
      state: { terminated: { exitCode: 137, reason: "Error", finishedAt: T1 } },
    }],
  });
  t.writer.statusChanged(pod, final);
  await settle();
  assert.equal(t.api.calls("DELETE").length, 0, "not while its containers may run");
  t.kubelet.states.set("uid-web", "terminated");
  t.writer.podTerminated(pod);
  await settle();
  const calls = t.api.requests.map((r) => r.method);
  assert.deepEqual(calls, ["PATCH", "DELETE"], "the final status first, then the delete");
  const del = t.api.calls("DELETE")[0];
  assert.equal(del.path, "/api/v1/namespaces/default/pods/web");
  assert.deepEqual(del.body, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    gracePeriodSeconds: 0,
    preconditions: { uid: "uid-web" },
  });
  assert.equal(t.driven.store.get("default", "web"), undefined);
  await t.clock.advance(30_000);
  await settle();
  assert.equal(t.api.calls("DELETE").length, 1);
  await t.stop();
});

Deno.test("status writer: no delete for a pod that is not being deleted, nor for static pods", async () => {
  const t = setup();
  const pod = apiPod("done", asApi(running({ phase: "Succeeded" })));
  const stat = staticPod("etcd-node1", "h");
  const mirror = mirrorOf(stat, "h");
  mirror.metadata!.deletionTimestamp = "2026-01-01T00:01:00Z" as unknown as Date;
  t.driven.list([pod, mirror]);
  t.kubelet.add(pod, "terminated");
  t.kubelet.add(stat, "terminated");
  t.writer.podTerminated(pod);
  t.writer.podTerminated(stat);
  await settle();
  assert.equal(t.api.calls("DELETE").length, 0);
  await t.stop();
});

Deno.test("status writer: a finished pod deleted later is deleted by the periodic pass", async () => {
  const t = setup({ resyncMs: 10_000 });
  const pod = apiPod("job", asApi(running({ phase: "Succeeded" })));
  t.driven.list([pod]);
  t.kubelet.add(pod, "terminated");
  // Its worker finished long ago; now someone deletes it: no worker terminates again.
  const deleting = structuredClone(pod);
  deleting.metadata!.deletionTimestamp = "2026-01-01T00:01:00Z" as unknown as Date;
  deleting.metadata!.resourceVersion = "6";
  t.driven.event("MODIFIED", deleting);
  t.kubelet.add(deleting, "terminated");
  await settle();
  assert.equal(t.api.calls("DELETE").length, 0);
  await t.clock.advance(10_000);
  await settle();
  assert.equal(t.api.calls("DELETE").length, 1);
  await t.stop();
});

Deno.test("status writer: a changed pod IP replaces the old one in the merge-by-ip list", async () => {
  const t = setup();
  const pod = apiPod("web", asApi(running()));
  t.driven.list([pod]);
  t.kubelet.add(pod);
  t.writer.statusChanged(pod, running({ podIP: "10.0.0.9", podIPs: [{ ip: "10.0.0.9" }] }));
  await settle();
  const body = t.api.calls("PATCH")[0].body as { status: Record<string, unknown> };
  assert.deepEqual(body.status.podIPs, [{ ip: "10.0.0.9" }, { ip: "10.0.0.5", $patch: "delete" }]);
  assert.equal(body.status.podIP, "10.0.0.9");
  assert.equal(body.status.containerStatuses, undefined);
  await t.stop();
});

Deno.test("status writer: after an outage the latest status is written as soon as the pods are listed again", async () => {
  const t = setup({ resyncMs: 3_600_000 });
  const pod = apiPod("web");
  t.driven.list([pod]);
  t.kubelet.add(pod);
  const merge = t.api.answer;
  let down = true;
  t.api.answer = (req) => down ? new ApiUnavailableError("connection refused") : merge(req);
  // The API server is away for a while: the back-off grows to 30 s; statuses keep changing.
  t.writer.statusChanged(pod, running({ podIP: "10.0.0.1", podIPs: [{ ip: "10.0.0.1" }] }));
  for (let i = 0; i < 8; i++) {
    await t.clock.advance(30_000);
    await settle();
  }
  t.writer.statusChanged(pod, running({ podIP: "10.0.0.2", podIPs: [{ ip: "10.0.0.2" }] }));
  t.writer.statusChanged(pod, running({ podIP: "10.0.0.3", podIPs: [{ ip: "10.0.0.3" }] }));
  await settle();
  const failed = t.api.calls("PATCH").length;
  down = false;
  // Back: the reflector lists again. Without waiting out the 30 s back-off, the latest status.
  t.driven.list([pod], "40");
  await settle();
  const patches = t.api.calls("PATCH");
  assert.equal(patches.length, failed + 1, "written at once");
  const body = patches.at(-1)!.body as { status: V1PodStatus };
  assert.equal(body.status.podIP, "10.0.0.3", "the latest, not the ones before");
  await t.stop();
});

Deno.test("status writer: statuses of pods run from the checkpoint are written once the pods are listed", async () => {
  const t = setup();
  const pod = apiPod("web");
  t.kubelet.add(pod);
  t.writer.statusChanged(pod, running());
  await t.clock.advance(60_000);
  await settle();
  assert.equal(t.api.requests.length, 0, "nothing to write to before the first list");
  t.driven.list([pod]);
  await settle();
  assert.equal(t.api.calls("PATCH").length, 1);
  await t.stop();
});
