/** CRI GetContainerEvents through the client: the evented PLEG's stream (issue 14). */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import { createCriClient, isUnimplemented } from "../../src/cri/mod.ts";
import type { ContainerEvent } from "../../src/cri/mod.ts";
import { STREAM_READY_AFTER_MS } from "../../src/cri/_unary.ts";
import { startTestServer } from "./_server.ts";

Deno.test("cri containerEvents: events arrive after onReady; aborting resolves and cancels", async () => {
  const server = await startTestServer();
  const client = createCriClient(server.endpoint, { timeoutMs: 2000 });
  let cancelled: Promise<void> | undefined;
  server.streams.GetContainerEvents = (call) => {
    call.sendMetadata(new grpc.Metadata());
    cancelled = new Promise((r) => call.on("cancelled", () => r()));
    call.write({ containerId: "c1", containerEventType: "CONTAINER_STARTED_EVENT", createdAt: 5 });
    call.write({ containerId: "c2", containerEventType: "CONTAINER_STOPPED_EVENT", createdAt: 6 });
  };
  const ac = new AbortController();
  const got: ContainerEvent[] = [];
  let ready = false;
  try {
    const done = client.runtime.containerEvents!((e) => {
      assert.ok(ready, "onReady comes first");
      got.push(e);
      if (got.length === 2) ac.abort();
    }, { signal: ac.signal, onReady: () => (ready = true) });
    await done;
    assert.deepEqual(got, [
      { containerId: "c1", containerEventType: "CONTAINER_STARTED_EVENT", createdAt: 5 },
      { containerId: "c2", containerEventType: "CONTAINER_STOPPED_EVENT", createdAt: 6 },
    ]);
    await cancelled;
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("cri containerEvents: a quiet stream without headers is ready after a second (grpc-go sends them with the first event)", async () => {
  const server = await startTestServer();
  const client = createCriClient(server.endpoint, { timeoutMs: 2000 });
  let write: ((e: ContainerEvent) => void) | undefined;
  server.streams.GetContainerEvents = (call) => {
    write = (e) => call.write(e);
  };
  const ac = new AbortController();
  const got: string[] = [];
  let readyAt = 0;
  const opened = Date.now();
  // Without the quiet-stream rule onReady never comes: end the stream and fail, not hang.
  const deadline = setTimeout(() => ac.abort(), 5_000);
  try {
    const done = client.runtime.containerEvents!((e) => {
      got.push(e.containerId);
      ac.abort();
    }, {
      signal: ac.signal,
      onReady: () => {
        readyAt = Date.now();
        write!({ containerId: "c1", containerEventType: "CONTAINER_CREATED_EVENT", createdAt: 1 });
      },
    });
    await done;
    assert.ok(readyAt > 0, "onReady never came");
    assert.deepEqual(got, ["c1"]);
    assert.ok(readyAt - opened >= STREAM_READY_AFTER_MS - 50, `ready after ${readyAt - opened} ms`);
  } finally {
    clearTimeout(deadline);
    client.close();
    await server.close();
  }
});

Deno.test("cri containerEvents: a runtime without the RPC rejects as unimplemented", async () => {
  const server = await startTestServer();
  const client = createCriClient(server.endpoint, { timeoutMs: 2000 });
  try {
    let ready = false;
    const err = await client.runtime.containerEvents!(() => {}, {
      signal: new AbortController().signal,
      onReady: () => (ready = true),
    }).then(() => undefined, (e) => e);
    assert.ok(isUnimplemented(err), String(err));
    assert.match(String(err), /CRI GetContainerEvents failed/);
    assert.equal(ready, false);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("cri containerEvents: a stream the runtime ends is an error, not the end", async () => {
  const server = await startTestServer();
  const client = createCriClient(server.endpoint, { timeoutMs: 2000 });
  server.streams.GetContainerEvents = (call) => call.end();
  try {
    await assert.rejects(
      client.runtime.containerEvents!(() => {}, { signal: new AbortController().signal }),
      /the runtime ended the stream/,
    );
  } finally {
    client.close();
    await server.close();
  }
});
