/**
 * The API client against a local HTTPS server (a CA made with openssl): TLS verification with the
 * kubeconfig's CA, bearer tokens, Status errors, watch streams, rate limiting, exec plugins.
 */
import assert from "node:assert/strict";
import {
  ApiError,
  ApiUnavailableError,
  createApiClient,
  loadKubeconfig,
  resolveKubeconfig,
  type WatchEvent,
} from "../../src/apiclient/mod.ts";
import { RateLimiter } from "../../src/apiclient/_rate_limiter.ts";
import { decodeWatchStream } from "../../src/apiclient/_watch_stream.ts";
import { CredentialSource } from "../../src/apiclient/_credentials.ts";
import { FakeClock, realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { kubeconfig, makePki } from "./_pki.ts";

Deno.test("resolveKubeconfig takes the current context, decodes data and resolves file paths", () => {
  const text = kubeconfig("https://10.0.0.1:6443/", "CA PEM", {
    "client-certificate": "certs/node.crt",
    "client-key": "/abs/node.key",
  });
  const { connection, files } = resolveKubeconfig(text, { path: "/etc/kubernetes/kubelet.conf" });
  assert.equal(connection.server, "https://10.0.0.1:6443");
  assert.equal(connection.caCert, "CA PEM");
  assert.equal(connection.clientCertFile, "/etc/kubernetes/certs/node.crt");
  assert.equal(connection.clientKeyFile, "/abs/node.key");
  assert.equal(connection.namespace, "ns1");
  assert.equal(files.ca, undefined);
});

Deno.test("resolveKubeconfig names the field at fault", () => {
  const bad = (text: string, re: RegExp) =>
    assert.throws(() => resolveKubeconfig(text, { path: "/k.conf" }), re);
  bad("[1, 2]", /\/k\.conf: \(root\): expected a kubeconfig object/);
  bad("apiVersion: v1\n", /current-context: is not set/);
  bad(
    "current-context: x\ncontexts: []\n",
    /contexts: no entry named "x"/,
  );
  const noServer = JSON.parse(kubeconfig("https://a", "", {}));
  delete noServer.clusters[0].cluster.server;
  bad(JSON.stringify(noServer), /clusters\[k\]\.server: is not set/);
  const insecure = JSON.parse(kubeconfig("https://a", "", {}));
  insecure.clusters[0].cluster["insecure-skip-tls-verify"] = true;
  bad(JSON.stringify(insecure), /insecure-skip-tls-verify: is not supported/);
});

Deno.test("loadKubeconfig refuses a missing certificate file at load time", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/kubeconfig`;
    await Deno.writeTextFile(
      path,
      kubeconfig("https://a", "ca", { "client-certificate": "nope.crt", "client-key": "nope.key" }),
    );
    await assert.rejects(loadKubeconfig(path), /client-certificate: cannot read .*nope\.crt/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the client verifies the server with the kubeconfig's CA and sends the token", async () => {
  const pki = await makePki();
  const seen: {
    auth: string | null;
    ua: string | null;
    accept: string | null;
    url: string;
    body: string;
  }[] = [];
  const ac = new AbortController();
  const server = Deno.serve(
    {
      port: 0,
      hostname: "127.0.0.1",
      cert: pki.cert,
      key: pki.key,
      signal: ac.signal,
      onListen() {},
    },
    async (req) => {
      seen.push({
        auth: req.headers.get("authorization"),
        ua: req.headers.get("user-agent"),
        accept: req.headers.get("accept"),
        url: req.url,
        body: await req.text(),
      });
      if (req.url.includes("/missing")) {
        return Response.json(
          { kind: "Status", reason: "NotFound", message: 'pods "missing" not found', code: 404 },
          { status: 404 },
        );
      }
      return Response.json({ kind: "Pod", metadata: { name: "p" } });
    },
  );
  try {
    const path = `${pki.dir}/kubeconfig`;
    await Deno.writeTextFile(
      path,
      kubeconfig(`https://127.0.0.1:${server.addr.port}`, pki.ca, { token: "s3cret" }),
    );
    const client = createApiClient(await loadKubeconfig(path), {
      clock: realClock,
      logger: nullLogger,
      qps: 0,
      burst: 0,
      userAgent: "denolet/test",
    });
    const pod = await client.request<{ metadata: { name: string } }>({
      method: "PATCH",
      path: "/api/v1/namespaces/default/pods/p/status",
      query: { fieldManager: "denolet", skip: undefined },
      body: { status: { phase: "Running" } },
    });
    assert.equal(pod.metadata.name, "p");
    assert.equal(seen[0].auth, "Bearer s3cret");
    assert.equal(seen[0].ua, "denolet/test");
    assert.match(seen[0].url, /\/status\?fieldManager=denolet$/);
    assert.equal(seen[0].body, '{"status":{"phase":"Running"}}');
    assert.equal(seen[0].accept, "application/json");
    // A write whose answer is read no further than its metadata asks for that alone.
    await client.request({
      method: "PATCH",
      path: "/api/v1/nodes/n/status",
      body: { status: {} },
      metadataOnly: true,
    });
    assert.equal(
      seen[1].accept,
      "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json",
    );
    const err = await client.request({ method: "GET", path: "/api/v1/missing" }).catch((e) => e);
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.status, 404);
    assert.equal(err.reason, "NotFound");
    client.close();

    // Without the CA, the server's certificate is refused: unreachable, not a wrong answer.
    const untrusted = JSON.parse(kubeconfig(`https://127.0.0.1:${server.addr.port}`, "", {}));
    delete untrusted.clusters[0].cluster["certificate-authority-data"];
    await Deno.writeTextFile(path, JSON.stringify(untrusted));
    const other = createApiClient(await loadKubeconfig(path), {
      clock: realClock,
      logger: nullLogger,
      qps: 0,
      burst: 0,
      userAgent: "denolet/test",
    });
    const tlsErr = await other.request({ method: "GET", path: "/api/v1/x" }).catch((e) => e);
    assert.ok(tlsErr instanceof ApiUnavailableError, String(tlsErr));
    other.close();
  } finally {
    ac.abort();
    await server.finished;
    await Deno.remove(pki.dir, { recursive: true });
  }
});

Deno.test("the client streams watch events as they arrive and stops on abort", async () => {
  const pki = await makePki();
  const ac = new AbortController();
  let push: ((s: string) => void) | undefined;
  const server = Deno.serve(
    {
      port: 0,
      hostname: "127.0.0.1",
      cert: pki.cert,
      key: pki.key,
      signal: ac.signal,
      onListen() {},
    },
    (req) => {
      assert.match(req.url, /watch=true/);
      assert.match(req.url, /resourceVersion=7/);
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          push = (s) => c.enqueue(new TextEncoder().encode(s));
        },
      });
      return new Response(body, { headers: { "content-type": "application/json" } });
    },
  );
  try {
    const conn = resolveKubeconfig(
      kubeconfig(`https://127.0.0.1:${server.addr.port}`, pki.ca, { token: "t" }),
      { path: "/k" },
    ).connection;
    const client = createApiClient(conn, {
      clock: realClock,
      logger: nullLogger,
      qps: 0,
      burst: 0,
      userAgent: "t",
    });
    const stop = new AbortController();
    const events: WatchEvent[] = [];
    const done = (async () => {
      for await (
        const e of client.watch("/api/v1/pods", {
          query: { resourceVersion: 7 },
          signal: stop.signal,
        })
      ) {
        events.push(e);
        if (events.length === 1) {
          // The second event arrives split over two writes.
          push!('{"type":"MODIFIED","object":{"n":');
          push!('2}}\n{"type":"BOOKMARK","object":{"n":3}}\n');
        }
        if (events.length === 3) stop.abort();
      }
    })();
    while (!push) await new Promise((r) => setTimeout(r, 10));
    push('{"type":"ADDED","object":{"n":1}}\n');
    await done;
    assert.deepEqual(events.map((e) => [e.type, (e.object as { n: number }).n]), [
      ["ADDED", 1],
      ["MODIFIED", 2],
      ["BOOKMARK", 3],
    ]);
    client.close();
  } finally {
    ac.abort();
    await server.finished;
    await Deno.remove(pki.dir, { recursive: true });
  }
});

Deno.test("decodeWatchStream decodes events split anywhere, the last without a newline", async () => {
  const text = '{"type":"ADDED","object":1}\n{"type":"DELETED","object":2}';
  const chunks = [text.slice(0, 5), text.slice(5, 31), text.slice(31)];
  const body = ReadableStream.from(chunks.map((c) => new TextEncoder().encode(c)));
  const out: WatchEvent[] = [];
  for await (const e of decodeWatchStream(body)) out.push(e);
  assert.deepEqual(out, [{ type: "ADDED", object: 1 }, { type: "DELETED", object: 2 }]);
});

Deno.test("the rate limiter lets a burst through, then paces at qps", async () => {
  const clock = new FakeClock();
  const limiter = new RateLimiter({ qps: 2, burst: 3, clock });
  const granted: number[] = [];
  const t0 = clock.now();
  const all = Array.from(
    { length: 5 },
    () => limiter.acquire().then(() => granted.push(clock.now() - t0)),
  );
  await clock.advance(0);
  assert.deepEqual(granted, [0, 0, 0]);
  await clock.advance(500);
  assert.deepEqual(granted, [0, 0, 0, 500]);
  await clock.advance(500);
  await Promise.all(all);
  assert.deepEqual(granted, [0, 0, 0, 500, 1000]);
});

Deno.test("exec plugin credentials are cached until they expire; token files are re-read", async () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  let runs = 0;
  const source = new CredentialSource({
    server: "https://x",
    namespace: "default",
    exec: { apiVersion: "client.authentication.k8s.io/v1", command: "plugin", args: [], env: {} },
  }, {
    clock,
    runPlugin: (_p, env) => {
      runs++;
      assert.match(env.KUBERNETES_EXEC_INFO, /"kind":"ExecCredential"/);
      return Promise.resolve(JSON.stringify({
        status: {
          token: `t${runs}`,
          expirationTimestamp: new Date(clock.now() + 60_000).toISOString(),
        },
      }));
    },
  });
  assert.equal((await source.get()).authorization, "Bearer t1");
  await clock.advance(30_000);
  assert.equal((await source.get()).authorization, "Bearer t1");
  await clock.advance(31_000);
  assert.equal((await source.get()).authorization, "Bearer t2");

  let token = "first";
  const files = new CredentialSource({ server: "https://x", namespace: "d", tokenFile: "/t" }, {
    clock,
    readFile: () => Promise.resolve(`${token}\n`),
  });
  assert.equal((await files.get()).authorization, "Bearer first");
  token = "second";
  assert.equal((await files.get()).authorization, "Bearer first");
  await clock.advance(60_000);
  assert.equal((await files.get()).authorization, "Bearer second");
});
