/** httpGet, tcpSocket and grpc probes against real local sockets. */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import type { V1Container, V1HTTPGetAction, V1Probe } from "@kubernetes/client-node";
import { createProber, type ProbeTarget } from "../../src/prober/_prober.ts";
import { healthService } from "../../src/prober/_grpc.ts";
import { httpGetRequest } from "../../src/prober/mod.ts";
import { FakeExec } from "./_fakes.ts";
import { fetchControl, runWithDeadProxy, startServers } from "./_http_fixtures.ts";

const prober = createProber({ runtime: new FakeExec(), userAgent: "kube-probe/1.0" });
const container: V1Container = { name: "app", ports: [{ name: "http", containerPort: 1 }] };

function target(port?: number): ProbeTarget {
  const c = port ? { ...container, ports: [{ name: "http", containerPort: port }] } : container;
  return {
    pod: { metadata: { name: "web" } },
    container: c,
    containerId: "c1",
    podIp: "127.0.0.1",
  };
}

function run(spec: V1Probe, port?: number) {
  return prober.probe(spec, target(port), { signal: new AbortController().signal });
}

async function withServer(
  handler: (req: Request) => Response | Promise<Response>,
  fn: (port: number) => Promise<void>,
): Promise<void> {
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, handler);
  try {
    await fn(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

Deno.test("httpGet: 2xx succeed, 400+ fail with the status code", async () => {
  await withServer((req) => {
    const code = Number(new URL(req.url).pathname.slice(1));
    return new Response(code === 204 ? null : "body", { status: code });
  }, async (port) => {
    for (const code of [200, 204]) {
      const r = await run({ httpGet: { port, path: `/${code}` } });
      assert.equal(r.result, "success", `status ${code}`);
    }
    // A 3xx that is not followed (here: no Location) is a success with a warning upstream.
    assert.equal((await run({ httpGet: { port, path: "/399" } })).result, "warning");
    for (const code of [400, 404, 500, 503]) {
      const r = await run({ httpGet: { port, path: `/${code}` } });
      assert.deepEqual(r, {
        result: "failure",
        output: `HTTP probe failed with statuscode: ${code}`,
      });
    }
  });
});

Deno.test("httpGet: sends kube-probe user agent, Accept, custom headers and Host override", async () => {
  let seen: Headers | undefined;
  let url = "";
  await withServer((req) => {
    seen = req.headers;
    url = req.url;
    return new Response("ok");
  }, async (port) => {
    const r = await run({
      httpGet: {
        port: "http",
        path: "/healthz?x=1",
        httpHeaders: [{ name: "X-Custom", value: "a" }, { name: "Host", value: "example.test" }],
      },
    }, port);
    assert.deepEqual(r, { result: "success", output: "ok" });
    assert.equal(seen?.get("user-agent"), "kube-probe/1.0");
    assert.equal(seen?.get("accept"), "*/*");
    assert.equal(seen?.get("x-custom"), "a");
    assert.equal(seen?.get("host"), "example.test");
    assert.match(url, /\/healthz\?x=1$/);
    await run({ httpGet: { port, httpHeaders: [{ name: "User-Agent", value: "mine" }] } });
    assert.equal(seen?.get("user-agent"), "mine");
  });
});

Deno.test("httpGet: same-host redirects are followed; another host is not, and is a warning", async () => {
  const srv = await startServers();
  try {
    for (const [port, scheme] of [[srv.httpPort, "HTTP"], [srv.httpsPort, "HTTPS"]] as const) {
      srv.hits.length = 0;
      const same = await run({ httpGet: { port, scheme, path: "/same" } });
      assert.deepEqual(same, { result: "success", output: "ok" }, scheme);
      const abs = await run({ httpGet: { port, scheme, path: "/same-abs" } });
      assert.deepEqual(abs, { result: "success", output: "ok" }, scheme);
      assert.deepEqual(srv.hits.map((h) => h.path), [
        "/same",
        "/ok?via=same",
        "/same-abs",
        "/ok?via=abs",
      ]);
      const away = await run({ httpGet: { port, scheme, path: "/away" } });
      assert.equal(away.result, "warning", scheme);
      assert.match(away.output, /^Probe terminated redirects/);
      const loop = await run({ httpGet: { port, scheme, path: "/loop" } });
      assert.equal(loop.result, "failure");
      assert.match(loop.output, /stopped after 10 redirects/);
    }
    assert.deepEqual(srv.stolen, [], "a redirect to another host is never followed");
  } finally {
    await srv.close();
  }
});

Deno.test("httpGet: a slow server times out as a failure; body kept to 10 KiB", async () => {
  const never = Promise.withResolvers<void>();
  await withServer(async (req) => {
    if (new URL(req.url).pathname === "/big") return new Response("a".repeat(50_000));
    await never.promise;
    return new Response("late");
  }, async (port) => {
    const big = await run({ httpGet: { port, path: "/big" } });
    assert.equal(big.output.length, 10 * 1024);
    const slow = await run({ httpGet: { port, path: "/slow" }, timeoutSeconds: 1 });
    assert.equal(slow.result, "failure");
    assert.match(slow.output, /context deadline exceeded/);
    never.resolve();
  });
});

Deno.test("httpGet: a refused connection fails; an unknown named port is a prober error", async () => {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  const r = await run({ httpGet: { port } });
  assert.equal(r.result, "failure");
  await assert.rejects(() => run({ httpGet: { port: "nope" } }), /no port of that name/);
});

Deno.test("httpGet: HTTPS does not verify the certificate", async () => {
  const srv = await startServers();
  try {
    const r = await run({ httpGet: { port: srv.httpsPort, scheme: "HTTPS", path: "/ok" } });
    assert.deepEqual(r, { result: "success", output: "ok" });
    assert.equal(srv.hits[0].tls, true);
  } finally {
    await srv.close();
  }
});

Deno.test("httpGet: proxy variables are ignored (they point at a dead port)", async () => {
  const srv = await startServers();
  try {
    const prober = new URL("../../src/prober/_prober.ts", import.meta.url).href;
    const out = await runWithDeadProxy(`
      import { createProber } from ${JSON.stringify(prober)};
      const p = createProber({ runtime: {}, userAgent: "kube-probe/1.0" });
      const target = { pod: {}, container: { name: "app", ports: [{ name: "web", containerPort: ${srv.httpPort} }] }, containerId: "c", podIp: "127.0.0.1" };
      const signal = new AbortController().signal;
      for (const spec of [
        { httpGet: { port: "web", path: "/ok" } },
        { httpGet: { port: ${srv.httpsPort}, scheme: "HTTPS", path: "/ok" } },
      ]) console.log((await p.probe(spec, target, { signal })).result);
      ${fetchControl(`http://127.0.0.1:${srv.httpPort}/ok`)}
    `);
    assert.deepEqual(out.trim().split("\n"), ["success", "success", "fetch-blocked"]);
  } finally {
    await srv.close();
  }
});

Deno.test("httpGet request: URL from scheme, host or pod IP, named or numeric port and path", () => {
  const container = { name: "app", ports: [{ name: "http", containerPort: 8080 }] };
  const url = (action: V1HTTPGetAction, podIP = "10.0.0.5") =>
    httpGetRequest(action, { container, podIP, userAgent: "ua" }).url.href;
  assert.equal(url({ port: "http", path: "/hook?x=1" }), "http://10.0.0.5:8080/hook?x=1");
  assert.equal(
    url({ port: 8443, path: "stop", scheme: "HTTPS" }, "fd00::5"),
    "https://[fd00::5]:8443/stop",
  );
  assert.equal(url({ port: "90" }), "http://10.0.0.5:90/");
  assert.equal(url({ port: 80, host: "example.test", path: "/x" }), "http://example.test/x");
  // The path cannot change the target, as upstream formatURL: its host part is dropped.
  assert.equal(url({ port: 81, path: "//evil.test/p" }), "http://10.0.0.5:81/p");
  assert.equal(url({ port: 81, path: "http://evil.test/p?q" }), "http://10.0.0.5:81/p?q");
  assert.throws(() => url({ port: "nope" }), /no port of that name/);
  assert.throws(() => url({ port: 70000 }), /not a valid port number/);

  const headers = (h: { name: string; value: string }[]) =>
    httpGetRequest({ port: 80, httpHeaders: h }, { container, podIP: "h", userAgent: "ua" })
      .headers;
  assert.deepEqual(headers([]), { "user-agent": "ua", accept: "*/*" });
  assert.deepEqual(
    headers([{ name: "Accept", value: "" }, { name: "X-A", value: "1" }, {
      name: "x-a",
      value: "2",
    }]),
    { "user-agent": "ua", "x-a": ["1", "2"] },
  );
  assert.deepEqual(headers([{ name: "Host", value: "a" }, { name: "host", value: "b" }]), {
    host: "a",
    "user-agent": "ua",
    accept: "*/*",
  });
});

Deno.test("tcpSocket: an open port succeeds, a closed one fails", async () => {
  const l = Deno.listen({ port: 0, hostname: "127.0.0.1" });
  const port = (l.addr as Deno.NetAddr).port;
  const accepted = (async () => {
    for await (const c of l) c.close();
  })();
  assert.deepEqual(await run({ tcpSocket: { port } }), { result: "success", output: "" });
  l.close();
  await accepted;
  const closed = await run({ tcpSocket: { port } });
  assert.equal(closed.result, "failure");
  assert.match(closed.output, /^dial tcp 127\.0\.0\.1:\d+: /);
});

Deno.test("grpc: SERVING succeeds; other statuses, unknown services and no server fail", async () => {
  const server = new grpc.Server();
  const statuses: Record<string, string> = { "": "SERVING", "db": "NOT_SERVING" };
  let agent = "";
  server.addService(healthService(), {
    check(
      call: grpc.ServerUnaryCall<{ service: string }, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) {
      agent = String(call.metadata.get("user-agent")[0] ?? "");
      const s = statuses[call.request.service];
      if (s === undefined) cb({ code: grpc.status.NOT_FOUND, details: "unknown service" });
      else cb(null, { status: s });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      "127.0.0.1:0",
      grpc.ServerCredentials.createInsecure(),
      (e, p) => e ? reject(e) : resolve(p),
    )
  );
  try {
    assert.deepEqual(await run({ grpc: { port } }), {
      result: "success",
      output: "service healthy",
    });
    assert.match(agent, /^kube-probe\/1\.0/);
    assert.deepEqual(await run({ grpc: { port, service: "db" } }), {
      result: "failure",
      output: 'service unhealthy (responded with "NOT_SERVING")',
    });
    const missing = await run({ grpc: { port, service: "x" } });
    assert.equal(missing.result, "failure");
    assert.match(missing.output, /^error: health rpc probe failed: .*unknown service/);
  } finally {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  }
  const down = await run({ grpc: { port }, timeoutSeconds: 1 });
  assert.equal(down.result, "failure");
});
