import assert from "node:assert/strict";
import { createUrlSource, type PodSourceUpdate } from "../../src/sources/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { podYaml, settle, Updates } from "./_support.ts";

const PERIOD = 20_000;

interface Reply {
  status?: number;
  body: string;
}

/** A manifest server on 127.0.0.1 whose next reply the test sets. */
function serve() {
  const state: { reply: Reply; requests: Array<{ method: string; headers: Headers }> } = {
    reply: { body: "" },
    requests: [],
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    state.requests.push({ method: req.method, headers: new Headers(req.headers) });
    return new Response(state.reply.body, { status: state.reply.status ?? 200 });
  });
  const url = `http://127.0.0.1:${server.addr.port}/pods`;
  return { state, url, close: () => server.shutdown() };
}

function start(
  url: string,
  opts: { headers?: Record<string, string[]>; fetch?: typeof fetch } = {},
) {
  const clock = new FakeClock();
  const updates = new Updates();
  const ctrl = new AbortController();
  const source = createUrlSource(url, {
    nodeName: "node1",
    headers: opts.headers ?? {},
    checkFrequencyMs: PERIOD,
    clock,
    logger: nullLogger,
    fetch: opts.fetch,
    timeoutMs: 10_000,
  });
  assert.equal(source.name, "http");
  const done = source.run(updates.push, { signal: ctrl.signal });
  return {
    clock,
    updates,
    stop: async () => {
      ctrl.abort();
      await done;
      assert.equal(clock.pendingTimers, 0, "no timer left behind");
    },
  };
}

const names = (u: PodSourceUpdate) => u.pods.map((p) => p.metadata?.name);

Deno.test("url source reads a single pod and sends the configured headers", async () => {
  const srv = serve();
  srv.state.reply = { body: podYaml("web") };
  const { updates, stop } = start(srv.url, {
    headers: { Authorization: ["Bearer t0k3n"], "X-Multi": ["a", "b"] },
  });
  const first = await updates.next();
  assert.equal(first.source, "http");
  assert.deepEqual(names(first), ["web-node1"]);
  assert.equal(first.pods[0].metadata?.annotations?.["kubernetes.io/config.source"], "http");
  assert.deepEqual(first.problems, []);
  const req = srv.state.requests[0];
  assert.equal(req.method, "GET");
  assert.equal(req.headers.get("authorization"), "Bearer t0k3n");
  assert.equal(req.headers.get("x-multi"), "a, b");
  await stop();
  await srv.close();
});

Deno.test("url source reads a PodList and re-polls each period, reporting only changes", async () => {
  const srv = serve();
  const list = (...names: string[]) =>
    JSON.stringify({
      apiVersion: "v1",
      kind: "PodList",
      items: names.map((name) => ({
        metadata: { name },
        spec: { containers: [{ name: "c", image: "x:1" }] },
      })),
    });
  srv.state.reply = { body: list("a", "b") };
  const { clock, updates, stop } = start(srv.url);
  assert.deepEqual(names(await updates.next()), ["a-node1", "b-node1"]);

  await clock.advance(PERIOD);
  while (srv.state.requests.length < 2) await settle();
  await settle();
  assert.equal(updates.pending, 0, "the same body is not reported again");

  srv.state.reply = { body: list("b") };
  await clock.advance(PERIOD);
  assert.deepEqual(names(await updates.next()), ["b-node1"]);

  srv.state.reply = { body: "" };
  await clock.advance(PERIOD);
  const empty = await updates.next();
  assert.deepEqual(empty.pods, [], "an empty body means no pods, as upstream");
  assert.deepEqual(empty.problems, []);
  await stop();
  await srv.close();
});

Deno.test("url source keeps the last good pods and reports a problem on errors", async () => {
  const srv = serve();
  srv.state.reply = { body: podYaml("web") };
  const { clock, updates, stop } = start(srv.url);
  const good = await updates.next();
  assert.deepEqual(names(good), ["web-node1"]);

  srv.state.reply = { status: 500, body: "boom" };
  await clock.advance(PERIOD);
  const failed = await updates.next();
  assert.deepEqual(names(failed), ["web-node1"]);
  assert.equal(failed.pods[0].metadata?.uid, good.pods[0].metadata?.uid);
  assert.equal(failed.problems.length, 1);
  assert.equal(failed.problems[0].path, srv.url);
  assert.equal(failed.problems[0].source, "http");
  assert.match(failed.problems[0].reason, /500/);

  srv.state.reply = { body: podYaml("web", "''") };
  await clock.advance(PERIOD);
  const invalid = await updates.next();
  assert.deepEqual(names(invalid), ["web-node1"], "an invalid body also keeps the last good pods");
  assert.match(invalid.problems[0].reason, /spec\.containers\[0\]\.image: Required value/);

  srv.state.reply = { body: podYaml("web") };
  await clock.advance(PERIOD);
  const recovered = await updates.next();
  assert.deepEqual(names(recovered), ["web-node1"]);
  assert.deepEqual(recovered.problems, [], "a good response clears the problem");
  await stop();
  await srv.close();
});

Deno.test("url source reports an unreachable server as a problem", async () => {
  const srv = serve();
  const url = srv.url;
  await srv.close(); // nothing listens on the port any more
  const { updates, stop } = start(url);
  const first = await updates.next();
  assert.deepEqual(first.pods, []);
  assert.equal(first.problems.length, 1);
  assert.match(first.problems[0].reason, /GET .* failed/);
  await stop();
});

Deno.test("url source gives up on a request after the timeout", async () => {
  let aborted = false;
  const hangingFetch: typeof fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => {
        aborted = true;
        reject(init.signal?.reason);
      });
    });
  const { clock, updates, stop } = start("http://127.0.0.1:9/pods", { fetch: hangingFetch });
  await settle();
  assert.equal(updates.pending, 0);
  await clock.advance(10_000);
  const timedOut = await updates.next();
  assert.ok(aborted, "the request itself is cancelled");
  assert.match(timedOut.problems[0].reason, /no response within 10000 ms/);
  await stop();
});

Deno.test("url source run resolves promptly when aborted mid-request", async () => {
  const hangingFetch: typeof fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
    });
  const { updates, stop } = start("http://127.0.0.1:9/pods", { fetch: hangingFetch });
  await settle();
  await stop();
  assert.equal(updates.all.length, 0, "an aborted first read reports nothing");
});
