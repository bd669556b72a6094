import assert from "node:assert/strict";
import type { V1Node } from "@kubernetes/client-node";
import { createNodeRegistrar, type NodeRegistrarDeps } from "../../src/node/registrar.ts";
import type { EventRecorder, ObjectRef } from "../../src/events/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { agentNode, type AgentNodeState, FakeApiServer } from "./_fakes.ts";

const NAME = "edge-1";
const NODE_PATH = `/api/v1/nodes/${NAME}`;
const STATUS_PATH = `${NODE_PATH}/status`;

interface Harness {
  clock: FakeClock;
  api: FakeApiServer;
  state: AgentNodeState;
  events: Array<{ ref: ObjectRef; reason: string; message: string }>;
  stop: () => Promise<void>;
  registered: () => boolean;
}

function start(over: Partial<NodeRegistrarDeps> = {}, setup?: (h: Harness) => void): Harness {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const api = new FakeApiServer(clock);
  const state: AgentNodeState = { ready: true, memoryPressure: false, memory: "1900Mi" };
  const events: Harness["events"] = [];
  const recorder: EventRecorder = {
    event: (ref, _type, reason, message) => events.push({ ref, reason, message }),
  };
  const ac = new AbortController();
  const h: Harness = {
    clock,
    api,
    state,
    events,
    stop: async () => {
      ac.abort();
      await done;
    },
    registered: () => registrar.registered,
  };
  setup?.(h);
  const registrar = createNodeRegistrar({
    client: api,
    nodeName: NAME,
    node: () => Promise.resolve(agentNode(NAME, clock, state)),
    clock,
    logger: nullLogger,
    register: true,
    updateFrequencyMs: 10_000,
    reportFrequencyMs: 300_000,
    recorder,
    random: () => 0,
    ...over,
  });
  const done = registrar.run({ signal: ac.signal });
  return h;
}

const stored = (h: Harness) => h.api.nodes.get(NAME) as V1Node & Record<string, never>;
/** Condition times are whole seconds on the wire, as metav1.Time keeps them. */
const sec = (ms: number) => Math.floor(ms / 1000) * 1000;
const condition = (node: V1Node, type: string) =>
  node.status?.conditions?.find((c) => c.type === type);

Deno.test("registrar creates the Node with labels, taints and status, then sends nothing unchanged", async () => {
  const h = start({}, (x) => {
    x.state.labels = { "denolet.test/role": "edge" };
    x.state.taints = [{ key: "dedicated", value: "edge", effect: "NoSchedule" }];
  });
  try {
    await h.clock.advance(100);
    const [post] = h.api.calls("POST");
    assert.equal(post.path, "/api/v1/nodes");
    assert.equal(post.at, h.clock.now());
    const body = post.body as V1Node;
    assert.equal(body.metadata?.labels?.["denolet.test/role"], "edge");
    assert.equal(body.metadata?.labels?.["kubernetes.io/hostname"], NAME);
    assert.equal(
      body.metadata?.annotations?.["volumes.kubernetes.io/controller-managed-attach-detach"],
      "true",
    );
    assert.deepEqual(body.spec?.taints, [{
      key: "dedicated",
      value: "edge",
      effect: "NoSchedule",
    }]);
    assert.equal(condition(body, "Ready")?.lastTransitionTime, "2026-01-01T12:00:00Z");
    assert.equal(body.status?.allocatable?.memory, "1900Mi");
    assert.ok(h.registered());
    assert.deepEqual(h.events.map((e) => e.reason), ["NodeHasSufficientMemory"]);
    assert.deepEqual(h.events[0].ref, { kind: "Node", apiVersion: "v1", name: NAME, uid: NAME });
    assert.equal(h.events[0].message, `Node ${NAME} status is now: NodeHasSufficientMemory`);

    // The status update right after registration reads the Node from the server's cache and
    // finds nothing to change; so do the next ones.
    await h.clock.advance(30_000);
    const gets = h.api.calls("GET", NODE_PATH);
    assert.equal(gets.length, 4);
    assert.deepEqual(gets[0].query, { resourceVersion: "0" });
    assert.equal(h.api.calls("PATCH").length, 0);
    assert.equal(h.api.calls("POST").length, 1);
  } finally {
    await h.stop();
  }
});

Deno.test("registrar patches a change at the next update, keeping unchanged transition times", async () => {
  const h = start();
  try {
    await h.clock.advance(100);
    const createdAt = h.clock.now();
    await h.clock.advance(5_000);
    h.state.memoryPressure = true;
    h.state.memory = "1800Mi";
    assert.equal(h.api.calls("PATCH").length, 0, "nothing before the update period");
    await h.clock.advance(5_000);
    const patches = h.api.calls("PATCH");
    assert.equal(patches.length, 1);
    assert.equal(patches[0].path, STATUS_PATH);
    assert.equal(patches[0].patchType, "application/strategic-merge-patch+json");
    const node = stored(h);
    assert.equal(node.status?.allocatable?.memory, "1800Mi");
    const mp = condition(node, "MemoryPressure")!;
    assert.equal(mp.status, "True");
    assert.equal(mp.reason, "KubeletHasInsufficientMemory");
    assert.equal(new Date(mp.lastTransitionTime!).getTime(), sec(h.clock.now()));
    const ready = condition(node, "Ready")!;
    assert.equal(new Date(ready.lastTransitionTime!).getTime(), sec(createdAt));
    assert.equal(new Date(ready.lastHeartbeatTime!).getTime(), sec(h.clock.now()));
    assert.deepEqual(h.events.map((e) => e.reason), [
      "NodeHasSufficientMemory",
      "NodeHasInsufficientMemory",
    ]);
  } finally {
    await h.stop();
  }
});

Deno.test("registrar posts an unchanged status only when the report frequency has passed", async () => {
  const h = start({ reportFrequencyMs: 60_000 });
  try {
    await h.clock.advance(100);
    const createdAt = h.clock.now();
    // The API server prints quantities canonically; that is not a change.
    h.api.touch(stored(h), (n) => n.status.allocatable["ephemeral-storage"] = "96636764k");
    await h.clock.advance(59_000);
    assert.equal(h.api.calls("PATCH").length, 0);
    await h.clock.advance(1_000);
    const patches = h.api.calls("PATCH");
    assert.equal(patches.length, 1);
    assert.equal(patches[0].at, createdAt + 60_000);
    const ready = condition(stored(h), "Ready")!;
    assert.equal(new Date(ready.lastHeartbeatTime!).getTime(), sec(createdAt + 60_000));
    assert.equal(new Date(ready.lastTransitionTime!).getTime(), sec(createdAt));
    await h.clock.advance(50_000);
    assert.equal(h.api.calls("PATCH").length, 1);
  } finally {
    await h.stop();
  }
});

Deno.test("registrar puts its Ready back when the node controller marked the Node Unknown", async () => {
  const h = start();
  try {
    await h.clock.advance(100);
    h.api.touch(stored(h), (n) => {
      const ready = n.status.conditions.find((c: { type: string }) => c.type === "Ready");
      Object.assign(ready, {
        status: "Unknown",
        reason: "NodeStatusUnknown",
        message: "Kubelet stopped posting node status.",
      });
      // A condition the agent does not own stays as it is.
      n.status.conditions.push({ type: "NetworkUnavailable", status: "False" });
    });
    await h.clock.advance(10_000);
    assert.equal(h.api.calls("PATCH").length, 1);
    const node = stored(h);
    const ready = condition(node, "Ready")!;
    assert.equal(ready.status, "True");
    assert.equal(ready.reason, "KubeletReady");
    assert.equal(new Date(ready.lastTransitionTime!).getTime(), sec(h.clock.now()));
    assert.equal(condition(node, "NetworkUnavailable")?.status, "False");
    assert.deepEqual(h.events.map((e) => e.reason).at(-1), "NodeReady");
  } finally {
    await h.stop();
  }
});

Deno.test("registrar posts Ready within 100 ms when a Node registered NotReady becomes ready", async () => {
  const h = start({}, (x) => x.state.ready = false);
  try {
    await h.clock.advance(100);
    assert.equal(condition(stored(h), "Ready")?.status, "False");
    await h.clock.advance(2_000);
    assert.equal(h.api.calls("PATCH").length, 0);
    h.state.ready = true;
    const readyAt = h.clock.now();
    await h.clock.advance(100);
    const [patch] = h.api.calls("PATCH");
    assert.ok(patch, "patched before the 10 s period");
    assert.ok(patch.at - readyAt <= 100);
    assert.equal(condition(stored(h), "Ready")?.status, "True");
    // The answer is asked for as metadata alone: the Ready just posted is known without it.
    assert.equal(patch.metadataOnly, true);
    // Once the server shows Ready, the regular period applies again.
    await h.clock.advance(5_000);
    assert.equal(h.api.calls("GET", NODE_PATH).length, 2);
  } finally {
    await h.stop();
  }
});

Deno.test("registrar adopts an existing Node: default labels back, what others set left alone", async () => {
  const h = start({}, (x) => {
    x.state.labels = { "denolet.test/role": "edge" };
    x.state.taints = [{ key: "mine", effect: "NoSchedule" }];
    x.api.addNode({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: NAME,
        labels: { "kubernetes.io/hostname": "old-name", "kubernetes.io/os": "linux", team: "a" },
      },
      spec: { taints: [{ key: "theirs", effect: "NoExecute" }] },
      status: { capacity: { cpu: "2", "hugepages-1Gi": "1Gi" }, allocatable: { cpu: "2" } },
    });
  });
  try {
    await h.clock.advance(100);
    assert.equal(h.api.calls("POST").length, 1);
    assert.ok(h.registered());
    const [adopt] = h.api.calls("PATCH");
    assert.equal(adopt.path, STATUS_PATH);
    assert.deepEqual((adopt.body as { metadata: unknown }).metadata, {
      labels: {
        "kubernetes.io/hostname": NAME,
        "kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "beta.kubernetes.io/arch": "amd64",
      },
      annotations: { "volumes.kubernetes.io/controller-managed-attach-detach": "true" },
    });
    assert.deepEqual((adopt.body as { status: unknown }).status, {
      capacity: { "hugepages-1Gi": null },
    });
    const node = stored(h);
    assert.equal(node.metadata?.labels?.team, "a");
    assert.equal(node.metadata?.labels?.["denolet.test/role"], undefined, "only at creation");
    assert.deepEqual(node.spec?.taints, [{ key: "theirs", effect: "NoExecute" }]);
    // Then the regular status update brings the status in line.
    assert.equal(h.api.calls("PATCH").length, 2);
    assert.equal(condition(stored(h), "Ready")?.status, "True");
    assert.equal(stored(h).status?.capacity?.["hugepages-1Gi"], undefined);
  } finally {
    await h.stop();
  }
});

Deno.test("registration retries with back-off from 100 ms doubling to 7 s until the server answers", async () => {
  const h = start({}, (x) => x.api.down = true);
  try {
    await h.clock.advance(27_000);
    const tries = h.api.calls("POST").map((r) => r.at - Date.UTC(2026, 0, 1, 12, 0, 0));
    assert.deepEqual(tries, [100, 300, 700, 1_500, 3_100, 6_300, 12_700, 19_700, 26_700]);
    assert.equal(h.registered(), false);
    h.api.down = false;
    await h.clock.advance(7_000);
    assert.ok(h.registered());
    assert.equal(h.api.nodes.size, 1);
  } finally {
    await h.stop();
  }
});

Deno.test("a failed status update is tried five times, then again each period, and recovers", async () => {
  const h = start();
  try {
    await h.clock.advance(100);
    h.api.down = true;
    const downAt = h.clock.now();
    h.state.memoryPressure = true;
    await h.clock.advance(30_000);
    const failed = h.api.calls("GET", NODE_PATH).filter((r) => r.at > downAt);
    assert.equal(failed.length, 15, "five tries in each of three periods");
    assert.deepEqual(failed[1].query, undefined, "retries read from storage, not the cache");
    h.api.down = false;
    await h.clock.advance(10_000);
    assert.equal(condition(stored(h), "MemoryPressure")?.status, "True");
  } finally {
    await h.stop();
  }
});

Deno.test("with --register-node=false the agent only updates a Node someone else created", async () => {
  const h = start({ register: false }, (x) => {
    x.api.addNode({ apiVersion: "v1", kind: "Node", metadata: { name: NAME } });
  });
  try {
    await h.clock.advance(100);
    assert.equal(h.api.calls("POST").length, 0);
    assert.equal(h.registered(), false);
    assert.equal(h.api.calls("PATCH").length, 1);
    assert.equal(condition(stored(h), "Ready")?.status, "True");
    assert.equal(stored(h).status?.allocatable?.memory, "1900Mi");
  } finally {
    await h.stop();
  }
});

Deno.test("aborting the registrar ends it without a rejection, even mid back-off", async () => {
  const h = start({}, (x) => x.api.down = true);
  await h.clock.advance(1_000);
  await h.stop();
  assert.equal(h.clock.pendingTimers, 0);
});

Deno.test("a Node that cannot be computed is retried, never the end of the loop", async () => {
  let failures = 2;
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const api = new FakeApiServer(clock);
  const state: AgentNodeState = { ready: false, memoryPressure: false, memory: "1900Mi" };
  const ac = new AbortController();
  const done = createNodeRegistrar({
    client: api,
    nodeName: NAME,
    node: () => {
      if (failures-- > 0) return Promise.reject(new Error("cannot read /proc/meminfo"));
      return Promise.resolve(agentNode(NAME, clock, state));
    },
    clock,
    logger: nullLogger,
    register: true,
    updateFrequencyMs: 10_000,
    reportFrequencyMs: 300_000,
    random: () => 0,
  }).run({ signal: ac.signal });
  try {
    await clock.advance(700);
    assert.equal(api.calls("POST").length, 1, "registered on the third try");
    // The fast readiness checks fail too, and the loop goes on.
    failures = 3;
    state.ready = true;
    await clock.advance(10_000);
    assert.equal(condition(api.nodes.get(NAME) as V1Node, "Ready")?.status, "True");
  } finally {
    ac.abort();
    await done;
  }
});

Deno.test("a Node deleted from the API server is registered again at the next status update", async () => {
  const h = start();
  try {
    await h.clock.advance(100);
    const first = stored(h).metadata?.uid;
    assert.ok(first);
    h.api.nodes.delete(NAME); // an admin removed the node while it was away
    await h.clock.advance(10_000);
    assert.equal(h.api.nodes.size, 0, "noticed at the next update");
    await h.clock.advance(200); // the registration's first back-off step
    const again = stored(h);
    assert.ok(again, "created again");
    assert.notEqual(again.metadata?.uid, first);
    assert.equal(h.api.calls("POST", "/api/v1/nodes").length, 2);
    assert.equal(condition(again, "Ready")?.status, "True");
    assert.equal(again.metadata?.labels?.["kubernetes.io/hostname"], NAME);
    assert.ok(h.registered());
    // And it stays: nothing more is created while it exists.
    await h.clock.advance(60_000);
    assert.equal(h.api.calls("POST", "/api/v1/nodes").length, 2);
  } finally {
    await h.stop();
  }
});

Deno.test("with --register-node=false a deleted Node is not created again", async () => {
  const h = start({ register: false }, (x) => {
    x.api.addNode({ apiVersion: "v1", kind: "Node", metadata: { name: NAME } });
  });
  try {
    await h.clock.advance(100);
    h.api.nodes.delete(NAME);
    await h.clock.advance(60_000);
    assert.equal(h.api.calls("POST").length, 0);
    assert.equal(h.api.nodes.size, 0);
  } finally {
    await h.stop();
  }
});

Deno.test("a status update that fails again closes the connections, as the kubelet's closeAllConns", async () => {
  let closes = 0;
  const h = start({ onRepeatedHeartbeatFailure: () => closes++ });
  try {
    await h.clock.advance(100);
    assert.equal(closes, 0);
    h.api.down = true;
    await h.clock.advance(10_000);
    assert.equal(closes, 4, "the second to the fifth try of one update");
  } finally {
    await h.stop();
  }
});

Deno.test("registrar posts a changed status at once when asked (a node shutdown began)", async () => {
  let request: () => void = () => {};
  const h = start({
    onUpdateRequest: (fn) => {
      request = fn;
      return () => request = () => {};
    },
  });
  try {
    await h.clock.advance(100);
    await h.clock.advance(3_000);
    h.state.ready = false;
    // Without the request the NotReady would wait for the next period, 7 s away.
    request();
    await h.clock.advance(0);
    const patches = h.api.calls("PATCH");
    assert.equal(patches.length, 1);
    assert.equal(condition(stored(h), "Ready")?.status, "False");
  } finally {
    await h.stop();
  }
});

Deno.test("with an external cloud provider the controller's addresses are never overwritten", async () => {
  const h = start({ externalCloudProvider: true }, (x) => {
    x.api.addNode({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: NAME,
        labels: { "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64" },
      },
      status: { addresses: [{ type: "ExternalIP", address: "203.0.113.9" }] },
    });
  });
  try {
    await h.clock.advance(30_000);
    const patches = h.api.calls("PATCH", STATUS_PATH);
    assert.ok(patches.length > 0);
    for (const p of patches) {
      assert.equal((p.body as { status?: { addresses?: unknown } }).status?.addresses, undefined);
    }
    assert.deepEqual(stored(h).status?.addresses, [{ type: "ExternalIP", address: "203.0.113.9" }]);
  } finally {
    await h.stop();
  }
});
