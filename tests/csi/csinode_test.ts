/**
 * The CSINode made at start in API mode, before any driver registers (upstream's
 * initializeCSINode): owned by the Node, with the migrated-plugins annotation; the node's
 * readiness error until then; upstream's waits and messages when it cannot be made; one left by
 * an earlier Node of the same name replaced.
 */
import assert from "node:assert/strict";
import { ApiError, ApiUnavailableError } from "../../src/apiclient/mod.ts";
import { initializeCsiNode } from "../../src/csi/csinode.ts";
import { MIGRATED_PLUGINS } from "../../src/csi/_node_info.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeCsiApi } from "./_fakes.ts";

const NODE = "n1";
const CSINODE = `/apis/storage.k8s.io/v1/csinodes/${NODE}`;

interface CSINode {
  metadata: {
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; uid: string }[];
  };
  spec: { drivers: unknown[] | null };
}

/** Starts the initialisation; `node.uid` is the Node's UID as the agent's watch has it. */
function start(api: FakeCsiApi, node: { uid?: string } = { uid: "node-uid" }) {
  const clock = new FakeClock();
  const states: (string | undefined)[] = [];
  const stop = new AbortController();
  const done = initializeCsiNode({
    client: api,
    nodeName: NODE,
    clock,
    logger: nullLogger,
    nodeUid: () => node.uid,
    onState: (e) => states.push(e),
  }, { signal: stop.signal });
  return { states, clock, done, stop };
}

Deno.test("csinode: made at start with no driver, owned by the Node, with upstream's migrated-plugins annotation", async () => {
  const api = new FakeCsiApi();
  const t = start(api);
  await t.done;
  const made = api.objects.get(CSINODE) as unknown as CSINode;
  assert.deepEqual(made.spec.drivers, []);
  assert.deepEqual(made.metadata.ownerReferences, [
    { apiVersion: "v1", kind: "Node", name: NODE, uid: "node-uid" },
  ]);
  assert.equal(
    made.metadata.annotations?.["storage.alpha.kubernetes.io/migrated-plugins"],
    "kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file," +
      "kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume," +
      "kubernetes.io/vsphere-volume",
  );
  assert.deepEqual(t.states, [undefined], "ready once made");
});

Deno.test("csinode: waits for the API server and the Node, then tries with upstream's back-off and message", async () => {
  const api = new FakeCsiApi();
  api.fail = () => new ApiUnavailableError("connection refused");
  const node: { uid?: string } = {};
  const t = start(api, node);
  await t.clock.advance(3_000);
  api.fail = undefined;
  await t.clock.advance(1_000);
  assert.deepEqual(
    api.writes,
    [],
    "nothing made before the API server answers and the Node is seen",
  );
  // The Node is there; making the CSINode fails (four quick tries inside one).
  node.uid = "node-uid";
  api.fail = (req) =>
    req.method === "POST" ? new ApiError(403, "Forbidden", "csinodes is forbidden") : undefined;
  await t.clock.advance(510);
  assert.equal(t.states.length, 1);
  assert.equal(
    t.states[0],
    "failed to initialize CSINode: error updating CSINode annotation: timed out waiting for " +
      "the condition; caused by: csinodes is forbidden",
  );
  assert.deepEqual(t.states, [t.states[0]], "not ready while it fails");
  api.fail = undefined;
  await t.clock.advance(30);
  await t.done;
  assert.equal(t.states.at(-1), undefined);
  assert.ok(api.objects.get(CSINODE));
});

Deno.test("csinode: one owned by an earlier Node of the name is deleted and made anew; drivers of our own are kept", async () => {
  const api = new FakeCsiApi();
  api.objects.set(CSINODE, {
    metadata: { name: NODE, ownerReferences: [{ kind: "Node", name: NODE, uid: "old-uid" }] },
    spec: { drivers: [{ name: "stale", nodeID: "x" }] },
  });
  const first = start(api, { uid: "new-uid" });
  // The try that deleted it fails; the next, 10 ms on, makes it.
  let finished = false;
  const done = first.done.then(() => finished = true);
  while (!finished && first.clock.monotonic() < Date.UTC(2026, 0, 1) + 1_000) {
    await first.clock.advance(5);
  }
  await done;
  assert.ok(first.clock.monotonic() >= Date.UTC(2026, 0, 1) + 10, "after the 10 ms wait");
  assert.ok(api.writes.some((w) => w.method === "DELETE" && w.path === CSINODE));
  let csiNode = api.objects.get(CSINODE) as unknown as CSINode;
  assert.equal(csiNode.metadata.ownerReferences?.[0].uid, "new-uid");
  assert.deepEqual(csiNode.spec.drivers, []);

  // Ours, without the annotation (made by an older agent): annotated, drivers untouched.
  api.objects.set(CSINODE, {
    metadata: { name: NODE, ownerReferences: [{ kind: "Node", name: NODE, uid: "new-uid" }] },
    spec: { drivers: [{ name: "d", nodeID: "x" }] },
  });
  await start(api, { uid: "new-uid" }).done;
  csiNode = api.objects.get(CSINODE) as unknown as CSINode;
  assert.equal(
    csiNode.metadata.annotations?.["storage.alpha.kubernetes.io/migrated-plugins"],
    MIGRATED_PLUGINS,
  );
  assert.deepEqual(csiNode.spec.drivers, [{ name: "d", nodeID: "x" }]);
  const puts = api.writes.filter((w) => w.method === "PUT").length;
  await start(api, { uid: "new-uid" }).done;
  assert.equal(api.writes.filter((w) => w.method === "PUT").length, puts, "nothing to change");
});
