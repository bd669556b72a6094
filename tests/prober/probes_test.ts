/** httpGet, tcpSocket and grpc probes against real local sockets. */
import assert from "node:assert/strict";
import * as grpc from "@grpc/grpc-js";
import type { V1Container, V1Probe } from "@kubernetes/client-node";
import { createProber, type ProbeTarget } from "../../src/prober/_prober.ts";
import { healthService } from "../../src/prober/_grpc.ts";
import { FakeExec } from "./_fakes.ts";

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

Deno.test("httpGet: same-host redirects are followed, other hosts are a warning", async () => {
  await withServer((req) => {
    const path = new URL(req.url).pathname;
    if (path === "/same") return Response.redirect(new URL("/bad", req.url), 302);
    if (path === "/bad") return new Response("no", { status: 500 });
    if (path === "/loop") {
      return new Response(null, { status: 302, headers: { location: "/loop" } });
    }
    return Response.redirect("http://other.invalid/x", 301);
  }, async (port) => {
    assert.equal((await run({ httpGet: { port, path: "/same" } })).result, "failure");
    const other = await run({ httpGet: { port, path: "/other" } });
    assert.equal(other.result, "warning");
    assert.match(other.output, /^Probe terminated redirects/);
    const loop = await run({ httpGet: { port, path: "/loop" } });
    assert.equal(loop.result, "failure");
    assert.match(loop.output, /stopped after 10 redirects/);
  });
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
  const cmd = new Deno.Command("openssl", {
    args: [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=probe",
      "-keyout",
      "/dev/stdout",
      "-out",
      "/dev/stdout",
    ],
    stdout: "piped",
    stderr: "null",
  });
  const pem = new TextDecoder().decode((await cmd.output()).stdout);
  const key = pem.match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/)![0];
  const cert = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0];
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", cert, key, onListen() {} },
    () => new Response("secure"),
  );
  try {
    const r = await run({ httpGet: { port: server.addr.port, scheme: "HTTPS" } });
    assert.deepEqual(r, { result: "success", output: "secure" });
  } finally {
    await server.shutdown();
  }
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
  server.addService(healthService() as unknown as grpc.ServiceDefinition, {
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
