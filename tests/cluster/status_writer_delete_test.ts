/**
 * The status writer's final delete after a graceful one, and what it writes after an outage or a
 * start from the checkpoint (status_writer_test.ts has the writes themselves).
 */
import assert from "node:assert/strict";
import type { V1PodStatus } from "@kubernetes/client-node";
import { ApiUnavailableError } from "../../src/apiclient/mod.ts";
import { settle } from "./_fakes.ts";
import { apiPod, asApi, mirrorOf, running, setup, staticPod, T1 } from "./_status_fixtures.ts";

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
