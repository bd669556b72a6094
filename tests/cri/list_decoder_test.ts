/** List responses decode only the items that changed since a recent list (issue 14). */
import assert from "node:assert/strict";
import type { Buffer } from "node:buffer";
import { decodeContainer, encodeListContainersResponse } from "../../src/cri/_codec.ts";
import { ListDecoder } from "../../src/cri/_list_decoder.ts";
import { ProtoWriter } from "../../src/cri/_wire.ts";
import { createCriClient } from "../../src/cri/mod.ts";
import { startTestServer } from "./_server.ts";

function container(id: string, state = "CONTAINER_RUNNING") {
  return {
    id,
    podSandboxId: `sb-${id}`,
    metadata: { name: "web", attempt: 0 },
    state,
    createdAt: 1_763_000_000_000_000_000,
    labels: { "io.kubernetes.pod.uid": `uid-${id}` },
    annotations: { "io.kubernetes.container.hash": "1" },
  };
}

function listBytes(containers: unknown[]): Buffer {
  const w = new ProtoWriter();
  encodeListContainersResponse(w, { containers });
  return w.finish();
}

Deno.test("ListDecoder reuses unchanged items and decodes changed ones afresh", () => {
  const list = new ListDecoder(1, decodeContainer);
  const first = list.decode(listBytes([container("a"), container("b")]));
  assert.deepEqual(list.stats, { decoded: 2, reused: 0 });
  assert.equal(first[0].id, "a");
  assert.ok(Object.isFrozen(first[0]) && Object.isFrozen(first[0].labels));
  assert.ok(Object.isFrozen(first[0].metadata));

  const second = list.decode(listBytes([container("b"), container("a", "CONTAINER_EXITED")]));
  assert.deepEqual(list.stats, { decoded: 3, reused: 1 });
  assert.equal(second[0], first[1], "b did not change: the same object");
  assert.notEqual(second[1], first[0]);
  assert.equal(second[1].state, "CONTAINER_EXITED");
  assert.deepEqual(second.map((c) => c.id), ["b", "a"], "the answer's order");
});

Deno.test("ListDecoder forgets items not seen in its window of answers", () => {
  const list = new ListDecoder(1, decodeContainer, { window: 2 });
  const [a] = list.decode(listBytes([container("a")]));
  list.decode(listBytes([container("b")]));
  list.decode(listBytes([container("b")]));
  list.decode(listBytes([container("b")]));
  const [again] = list.decode(listBytes([container("a")]));
  assert.notEqual(again, a, "decoded afresh after it fell out of the window");
  assert.deepEqual(again, a);
});

Deno.test("ListDecoder keys items without their map fields (entries in another order, or changed)", () => {
  // Go runtimes write a map in random iteration order: containerd sends the same container
  // with its labels and annotations ordered differently from one list to the next.
  const labels = { "io.kubernetes.pod.uid": "uid-a", "io.kubernetes.pod.name": "web" };
  const reordered = { "io.kubernetes.pod.name": "web", "io.kubernetes.pod.uid": "uid-a" };
  const annotations = { "io.kubernetes.container.hash": "1", "x": "2" };
  const list = new ListDecoder(1, decodeContainer, { mapFields: [8, 9] });
  const a = listBytes([{ ...container("a"), labels, annotations }]);
  const b = listBytes([{
    ...container("a"),
    labels: reordered,
    annotations: { "x": "2", "io.kubernetes.container.hash": "1" },
  }]);
  assert.notDeepEqual(a, b, "the wire bytes differ");
  const [first] = list.decode(a);
  const [second] = list.decode(b);
  assert.equal(second, first);
  assert.deepEqual(list.stats, { decoded: 1, reused: 1 });
  assert.equal(list.size, 1);
  // CRI never changes an item's maps (only its other fields, the id among them, decide): a
  // changed entry under the same id and state is the same item.
  const [third] = list.decode(listBytes([{ ...container("a"), labels: { ...reordered, x: "y" } }]));
  assert.equal(third, first);
  // Another field changed: decoded afresh, with the maps it comes with.
  const [fourth] = list.decode(listBytes([{
    ...container("a", "CONTAINER_EXITED"),
    labels: { ...reordered, x: "y" },
  }]));
  assert.notEqual(fourth, first);
  assert.equal(fourth.labels.x, "y");
  // Without mapFields the order counts (a decoder for messages without maps).
  const plain = new ListDecoder(1, decodeContainer);
  plain.decode(a);
  plain.decode(b);
  assert.deepEqual(plain.stats, { decoded: 2, reused: 0 });
});

Deno.test("ListDecoder refuses a list cut short", () => {
  const list = new ListDecoder(1, decodeContainer);
  const bytes = listBytes([container("a")]);
  assert.throws(() => list.decode(bytes.subarray(0, bytes.length - 3)), /ends inside/);
});

Deno.test("cri client: listContainers hands back the same frozen object for an unchanged container", async () => {
  const server = await startTestServer();
  const client = createCriClient(server.endpoint, { timeoutMs: 2000 });
  let state = "CONTAINER_RUNNING";
  server.handlers.ListContainers = () => ({ containers: [container("a"), container("b", state)] });
  server.handlers.ListPodSandbox = () => ({
    items: [{ id: "s", state: "SANDBOX_READY", labels: { x: "y" } }],
  });
  try {
    const [a1, b1] = await client.runtime.listContainers();
    state = "CONTAINER_EXITED";
    const [a2, b2] = await client.runtime.listContainers({ labelSelector: { x: "y" } });
    assert.equal(a2, a1);
    assert.notEqual(b2, b1);
    assert.equal(b2.state, "CONTAINER_EXITED");
    assert.throws(() => {
      (a2.labels as Record<string, string>).z = "1";
    }, TypeError);
    const [s1] = await client.runtime.listPodSandbox();
    const [s2] = await client.runtime.listPodSandbox();
    assert.equal(s2, s1);
  } finally {
    client.close();
    await server.close();
  }
});
