import assert from "node:assert/strict";
import type { V1Lease } from "@kubernetes/client-node";
import { createNodeLeaseController, microTime } from "../../src/node/lease.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeApiServer } from "./_fakes.ts";

const NAME = "edge-1";
const LEASES = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function start(setup?: (api: FakeApiServer) => void, leaseDurationSeconds = 40) {
  const clock = new FakeClock(T0);
  const api = new FakeApiServer(clock);
  setup?.(api);
  const ac = new AbortController();
  const done = createNodeLeaseController({
    client: api,
    nodeName: NAME,
    clock,
    logger: nullLogger,
    leaseDurationSeconds,
    random: () => 0,
  }).run({ signal: ac.signal });
  return {
    clock,
    api,
    lease: () => api.leases.get(NAME) as V1Lease | undefined,
    async stop() {
      ac.abort();
      await done;
    },
  };
}

const addNode = (api: FakeApiServer) =>
  api.addNode({ apiVersion: "v1", kind: "Node", metadata: { name: NAME } });

Deno.test("microTime has exactly six fractional digits, as metav1.MicroTime", () => {
  assert.equal(microTime(Date.UTC(2026, 0, 1, 0, 0, 0, 123)), "2026-01-01T00:00:00.123000Z");
});

Deno.test("the lease is created owned by the Node and renewed every quarter of its duration", async () => {
  let uid = "";
  const h = start((api) => uid = addNode(api).metadata.uid);
  try {
    await h.clock.advance(0);
    const [create] = h.api.calls("POST", LEASES);
    assert.ok(create, "created");
    const body = create.body as V1Lease;
    assert.deepEqual(body.metadata, {
      name: NAME,
      namespace: "kube-node-lease",
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name: NAME, uid }],
    });
    assert.deepEqual(body.spec, {
      holderIdentity: NAME,
      leaseDurationSeconds: 40,
      renewTime: "2026-01-01T12:00:00.000000Z",
    });
    assert.equal(h.api.calls("PUT").length, 0, "a new lease needs no renewal");

    await h.clock.advance(9_999);
    assert.equal(h.api.calls("PUT").length, 0);
    await h.clock.advance(1);
    await h.clock.advance(10_000);
    const puts = h.api.calls("PUT", LEASES);
    assert.deepEqual(puts.map((p) => p.at - T0), [10_000, 20_000]);
    assert.equal(String(h.lease()?.spec?.renewTime), "2026-01-01T12:00:20.000000Z");
    // Renewals reuse the lease they wrote last: no read before each one.
    assert.equal(h.api.calls("GET", LEASES).length, 1);
  } finally {
    await h.stop();
  }
});

Deno.test("the first renewal strips the lease's managedFields; later ones send none and get none back", async () => {
  const h = start(addNode);
  try {
    await h.clock.advance(0);
    assert.ok(h.lease()?.metadata?.managedFields?.length, "the API server tracks a new lease");
    await h.clock.advance(10_000);
    const [first] = h.api.calls("PUT", LEASES);
    // The documented reset: one empty entry (an empty list would keep the live ones).
    assert.deepEqual((first.body as V1Lease).metadata?.managedFields, [{}]);
    assert.equal(h.lease()?.metadata?.managedFields, undefined, "stripped");
    await h.clock.advance(20_000);
    const later = h.api.calls("PUT", LEASES).slice(1);
    assert.equal(later.length, 2);
    for (const p of later) {
      assert.equal((p.body as V1Lease).metadata?.managedFields, undefined);
    }
    assert.equal(h.lease()?.metadata?.managedFields, undefined, "not tracked again");
  } finally {
    await h.stop();
  }
});

Deno.test("the renew interval follows nodeLeaseDurationSeconds", async () => {
  const h = start(addNode, 20);
  try {
    await h.clock.advance(0);
    await h.clock.advance(15_000);
    assert.deepEqual(h.api.calls("PUT").map((p) => p.at - T0), [5_000, 10_000, 15_000]);
    assert.equal(h.lease()?.spec?.leaseDurationSeconds, 20);
  } finally {
    await h.stop();
  }
});

Deno.test("a renewal that conflicts reads the lease again and renews that version", async () => {
  const h = start(addNode);
  try {
    await h.clock.advance(0);
    h.api.touch(h.api.leases.get(NAME)!, (l) => l.spec.holderIdentity = "someone-else");
    await h.clock.advance(10_000);
    const puts = h.api.calls("PUT");
    assert.equal(puts.length, 2, "the stale update, then one on the fresh version");
    assert.equal(String(h.lease()?.spec?.renewTime), microTime(T0 + 10_000));
    assert.equal(h.lease()?.spec?.holderIdentity, "someone-else");
  } finally {
    await h.stop();
  }
});

Deno.test("while the API server is away the lease is retried with back-off, then renewed", async () => {
  const h = start(addNode);
  try {
    await h.clock.advance(0);
    h.api.down = true;
    await h.clock.advance(10_000);
    assert.equal(h.api.calls("PUT").length, 5, "five updates per renewal");
    const gets = () => h.api.calls("GET", LEASES).slice(1).map((r) => r.at - T0);
    await h.clock.advance(20_000);
    assert.deepEqual(gets(), [10_000, 10_200, 10_600, 11_400, 13_000, 16_200, 22_600, 29_600]);
    h.api.down = false;
    await h.clock.advance(7_000);
    assert.equal(String(h.lease()?.spec?.renewTime), microTime(T0 + 36_600));
    await h.clock.advance(10_000);
    assert.equal(String(h.lease()?.spec?.renewTime), microTime(T0 + 46_600));
  } finally {
    await h.stop();
  }
});

Deno.test("the lease waits for the Node to exist and is created owned by it", async () => {
  const h = start();
  try {
    await h.clock.advance(1_000);
    assert.equal(h.lease(), undefined);
    const uid = addNode(h.api).metadata.uid;
    await h.clock.advance(2_000);
    assert.equal(h.lease()?.metadata?.ownerReferences?.[0]?.uid, uid);
  } finally {
    await h.stop();
  }
});

Deno.test("an existing lease without an owner gets the Node as owner when renewed", async () => {
  let uid = "";
  const h = start((api) => {
    uid = addNode(api).metadata.uid;
    api.leases.set(NAME, {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: NAME, namespace: "kube-node-lease", resourceVersion: "1" },
      spec: { holderIdentity: NAME, leaseDurationSeconds: 40 },
    });
  });
  try {
    await h.clock.advance(0);
    assert.equal(h.api.calls("POST").length, 0);
    assert.deepEqual(h.lease()?.metadata?.ownerReferences, [
      { apiVersion: "v1", kind: "Node", name: NAME, uid },
    ]);
    assert.equal(String(h.lease()?.spec?.renewTime), microTime(T0));
  } finally {
    await h.stop();
  }
});

Deno.test("aborting the lease controller ends it without a rejection or a timer left", async () => {
  const h = start((api) => api.down = true);
  await h.clock.advance(1_000);
  await h.stop();
  assert.equal(h.clock.pendingTimers, 0);
});

Deno.test("a renewal that fails again (not a conflict) closes the connections, as the kubelet's closeAllConns", async () => {
  const clock = new FakeClock(T0);
  const api = new FakeApiServer(clock);
  addNode(api);
  let closes = 0;
  const ac = new AbortController();
  const done = createNodeLeaseController({
    client: api,
    nodeName: NAME,
    clock,
    logger: nullLogger,
    leaseDurationSeconds: 40,
    random: () => 0,
    onRepeatedHeartbeatFailure: () => closes++,
  }).run({ signal: ac.signal });
  try {
    await clock.advance(0);
    assert.equal(closes, 0, "a renewal that works closes nothing");
    api.down = true;
    await clock.advance(10_000);
    // Five updates in the renewal: the second to the fifth are repeated failures.
    assert.equal(api.calls("PUT").length, 5);
    assert.equal(closes, 4);
  } finally {
    ac.abort();
    await done;
  }
});
