import assert from "node:assert/strict";
import {
  createHealthzHandler,
  createNodeApiHandler,
  serveHealthz,
  serveNodeApi,
} from "../../src/server/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";
import { waitFor } from "../support/wait.ts";
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

Deno.test("healthz handler: /healthz with the process's own checks only; nothing else", async () => {
  const lines: string[] = [];
  const h = createHealthzHandler({
    logger: createLogger({ verbosity: 10, write: (l) => lines.push(l), now: () => 0 }),
  });
  const plain = await h(new Request("http://127.0.0.1:10248/healthz"));
  assert.equal(await plain.text(), "ok");
  const verbose = await h(new Request("http://127.0.0.1:10248/healthz?verbose"));
  assert.equal(await verbose.text(), "[+]ping ok\n[+]log ok\nhealthz check passed\n");
  assert.equal(await (await h(new Request("http://127.0.0.1:10248/healthz/ping"))).text(), "ok");
  for (const path of ["/pods", "/healthz/syncloop", "/metrics"]) {
    const res = await h(new Request(`http://127.0.0.1:10248${path}`));
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
});

Deno.test("serveHealthz: a port in use is logged and tried again every 5 s, not fatal", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const clock = new FakeClock();
  const lines: string[] = [];
  const ac = new AbortController();
  const server = serveHealthz(createHealthzHandler({ logger: nullLogger }), {
    address: "127.0.0.1",
    port,
    clock,
    logger: createLogger({ verbosity: 0, write: (l) => lines.push(l), now: () => 0 }),
    signal: ac.signal,
  });
  await clock.advance(0);
  assert.equal(lines.filter((l) => l.includes("Failed to start the healthz server")).length, 1);
  await clock.advance(4_999);
  assert.equal(lines.filter((l) => l.includes("Failed to start the healthz server")).length, 1);
  taken.close();
  await clock.advance(1);
  await waitFor(async () => {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    return res !== undefined && (await res.text()) === "ok";
  }, { timeoutMs: 5_000, what: "/healthz served once the port is free" });
  ac.abort();
  await server.finished;
});
