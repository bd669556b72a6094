/**
 * The status writer: a strategic merge patch of `pods/<name>/status` with the UID precondition,
 * sent only when the kubelet-owned part differs from the API's, never repeated, retried with
 * back-off; static pods' statuses on their mirror pods. The final delete after a graceful one is
 * in status_writer_delete_test.ts.
 */
import assert from "node:assert/strict";
import type { V1Pod, V1PodStatus } from "@kubernetes/client-node";
import { ApiError, ApiUnavailableError } from "../../src/apiclient/mod.ts";
import { settle } from "./_fakes.ts";
import { apiPod, asApi, mirrorOf, running, setup, staticPod, T0 } from "./_status_fixtures.ts";

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

Deno.test("status writer: a resize condition the kubelet no longer shows is deleted", async () => {
  const t = setup();
  const pending = {
    type: "PodResizePending",
    status: "True",
    reason: "Deferred",
    message: "Node didn't have enough resource: cpu",
    lastTransitionTime: T0 as unknown as Date,
  };
  const pod = apiPod(
    "web",
    asApi({ ...running(), conditions: [...running().conditions!, pending] }),
  );
  t.driven.list([pod]);
  t.kubelet.add(pod);
  t.writer.statusChanged(pod, running());
  await settle();
  const [patch, ...more] = t.api.calls("PATCH");
  assert.equal(more.length, 0);
  const body = patch.body as { status: Record<string, unknown> };
  assert.deepEqual(body.status.conditions, [{ type: "PodResizePending", $patch: "delete" }]);
  await t.stop();
});
