import assert from "node:assert/strict";
import {
  createUrlSource,
  MAX_MANIFEST_BYTES,
  type PodSourceUpdate,
} from "../../src/sources/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { type Logger, nullLogger } from "../../src/util/log.ts";
import { captureLogger, podYaml, settle, Updates } from "./_support.ts";

const PERIOD = 20_000;

interface Reply {
  status?: number;
  body: string | Uint8Array<ArrayBuffer>;
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
  opts: {
    headers?: Record<string, string[]>;
    fetch?: typeof fetch;
    logger?: Logger;
    onUpdate?: (u: PodSourceUpdate) => void;
  } = {},
) {
  const clock = new FakeClock();
  const updates = new Updates();
  const ctrl = new AbortController();
  const source = createUrlSource(url, {
    nodeName: "node1",
    headers: opts.headers ?? {},
    checkFrequencyMs: PERIOD,
    clock,
    logger: opts.logger ?? nullLogger,
    fetch: opts.fetch,
    timeoutMs: 10_000,
  });
  assert.equal(source.name, "http");
  const done = source.run(opts.onUpdate ?? updates.push, { signal: ctrl.signal });
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

Deno.test("url source sends only why while the server is unreachable at start", async () => {
  // An empty snapshot would mark the source as read, and housekeeping would then remove the
  // pods a restarted agent has just adopted. Upstream sends nothing on error either.
  const srv = serve();
  srv.state.reply = { body: podYaml("web") };
  let down = true;
  const flaky: typeof fetch = (input, init) =>
    down ? Promise.reject(new TypeError("connection refused")) : fetch(input, init);
  const { logger, lines } = captureLogger();
  const { clock, updates, stop } = start(srv.url, { fetch: flaky, logger });
  await settle();
  for (let i = 0; i < 3; i++) {
    await clock.advance(PERIOD);
    await settle();
  }
  // Reports for /sources (unread: the source stays unseen), never a snapshot of no pods.
  const reports = [];
  while (updates.pending > 0) reports.push(await updates.next());
  assert.ok(reports.length >= 1);
  assert.ok(reports.every((r) => r.unread === true && r.pods.length === 0));
  assert.match(reports[0].problems[0].reason, /connection refused/);
  const warned = lines.filter((l) => l.includes("Failed to read pods from URL"));
  assert.ok(warned.length >= 1, "the failure is logged");
  assert.match(warned[0], /level=warn .*url=http:\/\/127\.0\.0\.1.*GET .* failed/);

  down = false;
  await clock.advance(PERIOD);
  const first = await updates.next();
  assert.deepEqual(names(first), ["web-node1"]);
  assert.deepEqual(first.problems, []);
  await stop();
  await srv.close();
});

Deno.test("url source gives up on a request after the timeout, keeping the last pods", async () => {
  const srv = serve();
  srv.state.reply = { body: podYaml("web") };
  let hang = false;
  let aborted = false;
  const hangingFetch: typeof fetch = (input, init) =>
    hang
      ? new Promise((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => {
          aborted = true;
          reject(init.signal?.reason);
        });
      })
      : fetch(input, init);
  const { clock, updates, stop } = start(srv.url, { fetch: hangingFetch });
  assert.deepEqual(names(await updates.next()), ["web-node1"]);
  hang = true;
  await clock.advance(PERIOD);
  await settle();
  assert.equal(updates.pending, 0);
  await clock.advance(10_000);
  const timedOut = await updates.next();
  assert.ok(aborted, "the request itself is cancelled");
  assert.deepEqual(names(timedOut), ["web-node1"]);
  assert.match(timedOut.problems[0].reason, /no response within 10000 ms/);
  await stop();
  await srv.close();
});

Deno.test("url source reports a hostile body and keeps the last good pods", async () => {
  const srv = serve();
  srv.state.reply = { body: podYaml("web") };
  const { clock, updates, stop } = start(srv.url);
  const good = await updates.next();
  const bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 8; i++) {
    bomb.push(
      `${"abcdefgh"[i]}: &${"abcdefgh"[i]} [${Array(10).fill(`*${"abcdefgh"[i - 1]}`).join(", ")}]`,
    );
  }
  const cases: Array<[string, string | Uint8Array<ArrayBuffer>, RegExp]> = [
    ["alias bomb", bomb.join("\n"), /excessive aliasing/],
    [
      "invalid UTF-8",
      new Uint8Array([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xff, 0xfe]),
      /not valid UTF-8/,
    ],
    ["deep nesting", `${"[".repeat(10_000)}${"]".repeat(10_000)}`, /nested more than 100 levels/],
    [
      "a Deployment",
      "apiVersion: apps/v1\nkind: Deployment\n",
      /expected kind "Pod": kind is "Deployment"/,
    ],
  ];
  for (const [what, body, reason] of cases) {
    srv.state.reply = { body };
    await clock.advance(PERIOD);
    const u = await updates.next();
    assert.deepEqual(names(u), ["web-node1"], what);
    assert.equal(u.pods[0].metadata?.uid, good.pods[0].metadata?.uid, what);
    assert.match(u.problems[0].reason, reason, what);
  }
  await stop();
  await srv.close();
});

Deno.test("url source refuses a body larger than 10 MB", async () => {
  const srv = serve();
  srv.state.reply = { body: podYaml("web") };
  const { clock, updates, stop } = start(srv.url);
  await updates.next();
  srv.state.reply = { body: "x".repeat(MAX_MANIFEST_BYTES + 1) };
  await clock.advance(PERIOD);
  const u = await updates.next();
  assert.deepEqual(names(u), ["web-node1"]);
  assert.match(u.problems[0].reason, /larger than 10485760 bytes/);
  await stop();
  await srv.close();
});

Deno.test("url source logs an error in a poll and carries on at the next check", async () => {
  const srv = serve();
  srv.state.reply = { body: podYaml("web") };
  const { logger, lines } = captureLogger();
  const updates = new Updates();
  let calls = 0;
  const onUpdate = (u: PodSourceUpdate) => {
    if (++calls === 1) throw new TypeError("consumer bug");
    updates.push(u);
  };
  const { clock, stop } = start(srv.url, { logger, onUpdate });
  while (srv.state.requests.length < 1) await settle();
  await settle();
  await settle();
  const errors = lines.filter((l) => l.includes("level=error"));
  assert.equal(errors.length, 1, lines.join("\n"));
  assert.match(errors[0], /Reading pods from URL failed.*url=http:\/\/127\.0\.0\.1.*consumer bug/);
  await clock.advance(PERIOD);
  assert.deepEqual(names(await updates.next()), ["web-node1"], "the snapshot is sent again");
  await stop();
  await srv.close();
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
