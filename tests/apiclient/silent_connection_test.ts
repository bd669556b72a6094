/**
 * A connection to the API server that goes silent (a NAT entry timing out: no FIN, no RST) is
 * noticed: a ping after the read-idle time goes unanswered, the connections are closed, the
 * watch on it ends with ApiUnavailableError (its reflector relists) and the next request dials
 * anew. A black-holing TCP proxy between client and server plays the NAT. Real sockets, real
 * time with short read-idle and ping timeouts; the assertions are about outcomes, not timing.
 */
import assert from "node:assert/strict";
import {
  ApiUnavailableError,
  createApiClient,
  resolveKubeconfig,
} from "../../src/apiclient/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { startTcpProxy } from "../support/tcp_proxy.ts";
import { kubeconfig, makePki } from "./_pki.ts";

/** Long enough to fail the test rather than hang it when nothing notices the silence. */
const GIVE_UP_MS = 20_000;

async function setup() {
  const pki = await makePki();
  const stopServer = new AbortController();
  const seen = { watches: 0, hung: 0 };
  const server = Deno.serve({
    port: 0,
    hostname: "127.0.0.1",
    cert: pki.cert,
    key: pki.key,
    signal: stopServer.signal,
    onListen() {},
  }, (req) => {
    const url = new URL(req.url);
    if (url.searchParams.get("watch") === "true") {
      seen.watches++;
      // A watch with nothing to say: open until the client goes.
      return new Response(new ReadableStream({ start() {} }));
    }
    if (url.pathname === "/hang") {
      seen.hung++;
      return new Promise<Response>((resolve) => {
        req.signal.addEventListener("abort", () => resolve(new Response("gone")), { once: true });
      });
    }
    return Response.json({ kind: "Status", path: url.pathname });
  });
  const proxy = startTcpProxy({ hostname: "127.0.0.1", port: server.addr.port });
  const conn = resolveKubeconfig(
    kubeconfig(`https://127.0.0.1:${proxy.port}`, pki.ca, { token: "t" }),
    { path: "/k" },
  ).connection;
  const client = createApiClient(conn, {
    clock: realClock,
    logger: nullLogger,
    qps: 0,
    burst: 0,
    userAgent: "t",
    readIdleMs: 300,
    pingTimeoutMs: 300,
  });
  const waitFor = async (pred: () => boolean) => {
    while (!pred()) await new Promise((r) => setTimeout(r, 10));
  };
  return {
    client,
    proxy,
    seen,
    waitFor,
    async close() {
      client.close();
      await proxy.close();
      stopServer.abort();
      await server.finished;
      await Deno.remove(pki.dir, { recursive: true });
    },
  };
}

Deno.test("a watch on a silently dropped connection ends after an unanswered ping; the next request dials anew", async () => {
  const t = await setup();
  try {
    const giveUp = AbortSignal.timeout(GIVE_UP_MS);
    const watching = (async () => {
      for await (const _ of t.client.watch("/api/v1/pods", { signal: giveUp })) {
        // no events: the watch only waits
      }
    })();
    await t.waitFor(() => t.seen.watches === 1);
    t.proxy.dropExisting();
    await assert.rejects(watching, ApiUnavailableError);
    assert.equal(giveUp.aborted, false, "the silence was noticed before the test gave up");
    const answer = await t.client.request<{ path: string }>({ method: "GET", path: "/api/v1" });
    assert.equal(answer.path, "/api/v1");
    assert.equal(t.proxy.accepted, 2, "one new connection after the silent one");
  } finally {
    await t.close();
  }
});

Deno.test("closeConnections fails requests waiting on the connection and the next one dials anew", async () => {
  const t = await setup();
  try {
    const hanging = t.client.request({ method: "GET", path: "/hang" }, { timeoutMs: GIVE_UP_MS });
    await t.waitFor(() => t.seen.hung === 1);
    t.client.closeConnections!("the heartbeat failed");
    await assert.rejects(hanging, (err: unknown) => {
      assert.ok(err instanceof ApiUnavailableError);
      assert.match(err.message, /closed: the heartbeat failed/);
      return true;
    });
    const answer = await t.client.request<{ path: string }>({ method: "GET", path: "/api" });
    assert.equal(answer.path, "/api");
    assert.equal(t.proxy.accepted, 2);
  } finally {
    await t.close();
  }
});
