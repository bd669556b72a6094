import assert from "node:assert/strict";
import { createNodeApiHandler, serveNodeApi } from "../../src/server/mod.ts";
import { nullLogger } from "../../src/util/log.ts";
import { fakeDeps, staticPod } from "./_fakes.ts";

Deno.test("serveNodeApi listens on 127.0.0.1 with port 0 and stops on abort", async () => {
  const ac = new AbortController();
  const handler = createNodeApiHandler(fakeDeps({ pods: () => [staticPod()] }));
  const server = await serveNodeApi(handler, {
    address: "127.0.0.1",
    port: 0,
    logger: nullLogger,
    signal: ac.signal,
  });
  assert.ok(server.port > 0);
  const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "ok");
  const pods = await fetch(`http://127.0.0.1:${server.port}/pods`);
  assert.equal((await pods.json()).items[0].metadata.name, "web-node-a");
  ac.abort();
  await server.finished;
  await assert.rejects(fetch(`http://127.0.0.1:${server.port}/healthz`));
});

Deno.test("serveNodeApi names the address when it cannot bind", async () => {
  const ac = new AbortController();
  const handler = createNodeApiHandler(fakeDeps());
  const first = await serveNodeApi(handler, {
    address: "127.0.0.1",
    port: 0,
    logger: nullLogger,
    signal: ac.signal,
  });
  try {
    await assert.rejects(
      serveNodeApi(handler, {
        address: "127.0.0.1",
        port: first.port,
        logger: nullLogger,
        signal: ac.signal,
      }),
      new RegExp(`Cannot serve the node API on 127\\.0\\.0\\.1:${first.port}`),
    );
  } finally {
    ac.abort();
    await first.finished;
  }
});
