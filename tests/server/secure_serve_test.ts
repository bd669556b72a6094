/**
 * The HTTPS server on real sockets: the serving certificate, client certificate verification
 * against the client CA, the TLS version floor, the cipher suite list, certificate rotation and
 * the raw relay of an upgraded connection.
 */
import assert from "node:assert/strict";
import { alwaysAllow, createAuthenticator, x509Authenticator } from "../../src/server/auth/mod.ts";
import {
  type ConnectionInfo,
  createSecureNodeApiHandler,
  type SecureHandler,
} from "../../src/server/secure_handler.ts";
import { serveSecureNodeApi } from "../../src/server/secure_serve.ts";
import { selfSignedKeyKind } from "../../src/server/node_api.ts";
import { generateSelfSignedPair } from "../../src/server/tls/mod.ts";
import { type Clock, FakeClock, realClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { opensslCA, testCA } from "./_certs.ts";
import { startCertOnlyNodeApi } from "./_x509_server.ts";
import { fakeDeps, staticPod } from "./_fakes.ts";

const logger = createLogger({ verbosity: 0, write: () => {} });

async function start(
  handler: SecureHandler,
  opts: {
    clientCA?: string;
    minVersion?: "TLSv1.2" | "TLSv1.3";
    cipherSuites?: string[];
    maxConnections?: number;
    clock?: Clock;
    keyKind?: "rsa" | "ecdsa";
  } = {},
) {
  const pair = await generateSelfSignedPair("node-a", {
    ips: ["127.0.0.1"],
    nowMs: Date.now(),
    keyKind: opts.keyKind,
  });
  const ac = new AbortController();
  const server = await serveSecureNodeApi(handler, {
    address: "127.0.0.1",
    port: 0,
    certificate: { cert: pair.certPem, key: pair.keyPem },
    logger,
    signal: ac.signal,
    clock: realClock,
    ...opts,
  });
  // The CA is the second certificate of the file, as upstream writes it.
  const servingCA = pair.certPem.slice(pair.certPem.indexOf("-----END CERTIFICATE-----") + 26);
  return {
    server,
    servingCA,
    url: `https://127.0.0.1:${server.port}`,
    async stop() {
      ac.abort();
      await server.finished;
    },
  };
}

const echoPeer: SecureHandler = (req: Request, conn?: ConnectionInfo) =>
  Promise.resolve(Response.json({ path: new URL(req.url).pathname, peer: conn?.peer ?? null }));

async function get(url: string, client: Deno.HttpClient): Promise<Response> {
  try {
    return await fetch(url, { client });
  } finally {
    client.close();
  }
}

Deno.test("TLS: the generated serving certificate verifies against its own CA, for the node's IP", async () => {
  const s = await start(echoPeer);
  try {
    const res = await get(`${s.url}/healthz`, Deno.createHttpClient({ caCerts: [s.servingCA] }));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { path: "/healthz", peer: null });
    // Without that CA the certificate is not trusted.
    await assert.rejects(get(`${s.url}/healthz`, Deno.createHttpClient({})));
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: the generated serving pair has ECDSA P-256 keys, leaf and CA", async () => {
  // As the kubelet's certificate manager makes its keys: RSA 2048 took 0.1-1.5 s of a fresh
  // node's start here, before the node API listened and the Node could be registered (issue 31).
  const { X509Certificate, createPrivateKey } = await import("node:crypto");
  const pair = await generateSelfSignedPair("node-a", { ips: ["127.0.0.1"], nowMs: Date.now() });
  const key = createPrivateKey(pair.keyPem);
  assert.equal(key.asymmetricKeyType, "ec");
  assert.equal(key.asymmetricKeyDetails?.namedCurve, "prime256v1");
  const certs = pair.certPem.split(/(?<=-----END CERTIFICATE-----\n)/).filter((p) => p.trim());
  assert.equal(certs.length, 2);
  for (const pem of certs) {
    assert.equal(new X509Certificate(pem).publicKey.asymmetricKeyType, "ec");
  }
  // RSA where the configured TLS 1.2 suites could serve nothing else.
  const rsaOnly = ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_GCM_SHA256"];
  assert.equal(selfSignedKeyKind({ tlsMinVersion: "", tlsCipherSuites: [] }), "ecdsa");
  assert.equal(selfSignedKeyKind({ tlsMinVersion: "", tlsCipherSuites: rsaOnly }), "rsa");
  assert.equal(
    selfSignedKeyKind({ tlsMinVersion: "VersionTLS13", tlsCipherSuites: rsaOnly }),
    "ecdsa",
  );
  assert.equal(
    selfSignedKeyKind({
      tlsMinVersion: "VersionTLS12",
      tlsCipherSuites: [...rsaOnly, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"],
    }),
    "ecdsa",
  );
});

Deno.test("TLS: client certificates are verified against the client CA; only trusted ones authenticate", async () => {
  const ca = await testCA("clients");
  const other = await testCA("someone-else");
  const alice = await ca.issue({
    commonName: "alice",
    organizations: ["devs", "ops"],
    usages: ["clientAuth"],
  });
  const mallory = await other.issue({ commonName: "mallory", usages: ["clientAuth"] });
  const serverOnly = await ca.issue({ commonName: "web", usages: ["serverAuth"] });
  const expired = await ca.issue({
    commonName: "old",
    usages: ["clientAuth"],
    notAfterMs: Date.now() - 60_000,
  });
  const s = await start(echoPeer, { clientCA: ca.certPem });
  const as = (c: { certPem: string; keyPem: string }) =>
    Deno.createHttpClient({ caCerts: [s.servingCA], cert: c.certPem, key: c.keyPem });
  try {
    const ok = await (await get(`${s.url}/pods`, as(alice))).json();
    assert.deepEqual(ok.peer, {
      verified: true,
      commonName: "alice",
      organizations: ["devs", "ops"],
    });
    for (const bad of [mallory, serverOnly, expired]) {
      const seen = await (await get(`${s.url}/pods`, as(bad))).json();
      assert.equal(seen.peer.verified, false, JSON.stringify(seen.peer));
    }
    const none =
      await (await get(`${s.url}/pods`, Deno.createHttpClient({ caCerts: [s.servingCA] })))
        .json();
    assert.equal(none.peer, null);
  } finally {
    await s.stop();
  }

  // Through the real gate: trusted 200, untrusted 401 even with anonymous requests allowed.
  const handler = createSecureNodeApiHandler({
    ...fakeDeps({ pods: () => [staticPod()] }),
    authenticate: createAuthenticator({ methods: [x509Authenticator()], anonymous: true }),
    authorizer: alwaysAllow,
  });
  const gated = await start(handler, { clientCA: ca.certPem });
  try {
    const client = (c: { certPem: string; keyPem: string }) =>
      Deno.createHttpClient({ caCerts: [gated.servingCA], cert: c.certPem, key: c.keyPem });
    const res = await get(`${gated.url}/pods`, client(alice));
    assert.equal(res.status, 200);
    assert.equal((await res.json()).items.length, 1);
    const refused = await get(`${gated.url}/pods`, client(mallory));
    assert.equal(refused.status, 401);
    assert.equal(await refused.text(), "Unauthorized");
  } finally {
    await gated.stop();
  }
});

Deno.test("TLS: a client certificate with several CNs is the user of the last, as Go and the API server read it", async () => {
  const ca = await opensslCA();
  const several = await ca.issue("/CN=first/O=g1/CN=second/O=g2", {
    extensions: "extendedKeyUsage=clientAuth\n",
  });
  const s = await start(echoPeer, { clientCA: ca.certPem });
  try {
    const client = Deno.createHttpClient({
      caCerts: [s.servingCA],
      cert: several.certPem,
      key: several.keyPem,
    });
    const seen = await (await get(`${s.url}/pods`, client)).json();
    assert.deepEqual(seen.peer, {
      verified: true,
      commonName: "second",
      organizations: ["g1", "g2"],
    });
  } finally {
    await s.stop();
  }
});

/** One TLS handshake with the openssl client; resolves its output. */
async function opensslConnect(port: number, args: string[]): Promise<string> {
  const out = await new Deno.Command("openssl", {
    // -ign_eof: keep reading the answer after our request (stdin) has ended.
    args: ["s_client", "-ign_eof", "-connect", `127.0.0.1:${port}`, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = out.stdin.getWriter();
  await w.write(
    new TextEncoder().encode("GET /x HTTP/1.1\r\nHost: n\r\nConnection: close\r\n\r\n"),
  );
  await w.close();
  const r = await out.output();
  return new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
}

Deno.test("TLS: a client below --tls-min-version is refused", async () => {
  const s = await start(echoPeer, { minVersion: "TLSv1.3" });
  try {
    const tls12 = await opensslConnect(s.server.port, ["-tls1_2"]);
    assert.match(tls12, /alert protocol version|no protocols available|wrong version/i);
    assert.doesNotMatch(tls12, /"path":"\/x"/);
    const tls13 = await opensslConnect(s.server.port, ["-tls1_3"]);
    assert.match(tls13, /"path":"\/x"/);
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: --tls-min-version still holds after the certificate is reloaded or renewed", async () => {
  const s = await start(echoPeer, { minVersion: "TLSv1.3" });
  try {
    const next = await generateSelfSignedPair("node-a", { ips: ["127.0.0.1"], nowMs: Date.now() });
    s.server.setCertificate({ cert: next.certPem, key: next.keyPem });
    const tls12 = await opensslConnect(s.server.port, ["-tls1_2"]);
    assert.doesNotMatch(tls12, /"path":"\/x"/);
    assert.match(tls12, /alert protocol version|no protocols available|wrong version/i);
    assert.match(await opensslConnect(s.server.port, ["-tls1_3"]), /"path":"\/x"/);
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: a TLS 1.2 suite not in --tls-cipher-suites gets no answer", async () => {
  // RSA suites alone: the self-signed pair is then RSA (selfSignedKeyKind).
  const s = await start(echoPeer, {
    cipherSuites: ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"],
    keyKind: "rsa",
  });
  try {
    const listed = await opensslConnect(s.server.port, [
      "-tls1_2",
      "-cipher",
      "ECDHE-RSA-AES128-GCM-SHA256",
    ]);
    assert.match(listed, /"path":"\/x"/);
    const other = await opensslConnect(s.server.port, [
      "-tls1_2",
      "-cipher",
      "ECDHE-RSA-AES256-GCM-SHA384",
    ]);
    assert.doesNotMatch(other, /"path":"\/x"/);
    // TLS 1.3 suites are not configurable, as upstream.
    assert.match(await opensslConnect(s.server.port, ["-tls1_3"]), /"path":"\/x"/);
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: a rotated certificate serves new connections", async () => {
  const s = await start(echoPeer);
  try {
    const next = await generateSelfSignedPair("node-a", { ips: ["127.0.0.1"], nowMs: Date.now() });
    s.server.setCertificate({ cert: next.certPem, key: next.keyPem });
    const nextCA = next.certPem.slice(next.certPem.indexOf("-----END CERTIFICATE-----") + 26);
    const res = await get(`${s.url}/after`, Deno.createHttpClient({ caCerts: [nextCA] }));
    assert.equal(res.status, 200);
    await res.body?.cancel();
    await assert.rejects(get(`${s.url}/after`, Deno.createHttpClient({ caCerts: [s.servingCA] })));
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: an upgraded connection is handed over raw and relayed both ways", async () => {
  // A stand-in for the runtime's stream server: answers 101, then echoes in upper case.
  const backend = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    const conn = await backend.accept();
    const buf = new Uint8Array(4096);
    let got = "";
    while (!got.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      got += new TextDecoder().decode(buf.subarray(0, n));
    }
    await conn.write(new TextEncoder().encode("HTTP/1.1 101 Switching Protocols\r\n\r\n"));
    const rest = got.split("\r\n\r\n")[1];
    if (rest) await conn.write(new TextEncoder().encode(rest.toUpperCase()));
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      await conn.write(
        new TextEncoder().encode(new TextDecoder().decode(buf.subarray(0, n)).toUpperCase()),
      );
    }
    conn.close();
    return got;
  })();
  const handler = createSecureNodeApiHandler({
    ...fakeDeps({
      pods: () => {
        const p = staticPod();
        p.status!.containerStatuses![0].containerID = "containerd://c2";
        return [p];
      },
    }),
    authenticate: createAuthenticator({ methods: [], anonymous: true }),
    authorizer: alwaysAllow,
    debugging: {
      clock: {
        now: Date.now,
        monotonic: Date.now,
        sleep: () => Promise.resolve(),
        every: () => () => {},
      },
      runtime: {
        containerStatus: () => Promise.reject(new Error("unused")),
        execSync: () => Promise.reject(new Error("unused")),
      },
      streaming: {
        exec: () =>
          Promise.resolve(`http://127.0.0.1:${(backend.addr as Deno.NetAddr).port}/exec/t`),
        attach: () => Promise.reject(new Error("unused")),
        portForward: () => Promise.reject(new Error("unused")),
      },
      runningPods: () => Promise.resolve([]),
    },
  });
  const s = await start(handler);
  try {
    const conn = await Deno.connectTls({
      hostname: "127.0.0.1",
      port: s.server.port,
      caCerts: [s.servingCA],
    });
    await conn.write(new TextEncoder().encode(
      "POST /exec/default/web-node-a/web?command=sh&input=1&output=1 HTTP/1.1\r\nHost: node-a\r\n" +
        "Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n\r\nhello",
    ));
    const buf = new Uint8Array(4096);
    let got = "";
    while (!got.includes("HELLO")) {
      const n = await conn.read(buf);
      if (n === null) break;
      got += new TextDecoder().decode(buf.subarray(0, n));
    }
    await conn.write(new TextEncoder().encode("more"));
    while (!got.includes("MORE")) {
      const n = await conn.read(buf);
      if (n === null) break;
      got += new TextDecoder().decode(buf.subarray(0, n));
    }
    assert.equal(got, "HTTP/1.1 101 Switching Protocols\r\n\r\nHELLOMORE");
    conn.close();
    const head = await served;
    assert.match(
      head,
      /^POST \/exec\/t HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nConnection: Upgrade\r\n/,
    );
    assert.match(head, /X-Stream-Protocol-Version: v4\.channel\.k8s\.io\r\n\r\nhello$/);
  } finally {
    backend.close();
    await s.stop();
  }
});

Deno.test("TLS: a request with Connection: Upgrade that a route answers plainly gets its body streamed", async () => {
  // A body that never ends (a log being followed, or a file larger than memory): a server that
  // buffered it before answering would never send a byte.
  let cancelled = false;
  const endless: SecureHandler = () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            c.enqueue(chunk);
          },
          cancel() {
            cancelled = true;
          },
        }, { highWaterMark: 0 }),
        { headers: { "content-type": "text/plain" } },
      ),
    );
  };
  const s = await start(endless);
  try {
    const conn = await Deno.connectTls({
      hostname: "127.0.0.1",
      port: s.server.port,
      caCerts: [s.servingCA],
    });
    await conn.write(new TextEncoder().encode(
      "GET /logs/big.log HTTP/1.1\r\nHost: node-a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
    ));
    // The guard only turns a hang into a failure; nothing here measures time.
    const guard = AbortSignal.timeout(20_000);
    const buf = new Uint8Array(64 * 1024);
    let got = "";
    let bytes = 0;
    while (bytes < 1024 * 1024 && !guard.aborted) {
      const n = await Promise.race([
        conn.read(buf),
        new Promise<null>((resolve) => guard.addEventListener("abort", () => resolve(null))),
      ]);
      if (n === null) break;
      if (got.length < 200) got += new TextDecoder().decode(buf.subarray(0, n));
      bytes += n;
    }
    assert.ok(bytes >= 1024 * 1024, `only ${bytes} bytes arrived`);
    assert.match(got, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(got, /\r\nconnection: close\r\n/i);
    conn.close();
    for (let i = 0; i < 100 && !cancelled; i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(cancelled, "the body was not cancelled once the client went away");
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: a streamed body with empty chunks arrives whole and properly ended", async () => {
  // journalctl's empty stderr is yielded as an empty chunk after its output; writing it as a
  // chunk of its own cut the response (curl: transfer closed with outstanding read data).
  const enc = new TextEncoder();
  const parts = ["line 1\n", "", "line 2\n", "", "end\n", ""];
  const s = await start(() =>
    Promise.resolve(new Response(ReadableStream.from(parts.map((p) => enc.encode(p)))))
  );
  try {
    // The guard only turns a hang into a failure; nothing here measures time.
    const client = Deno.createHttpClient({ caCerts: [s.servingCA] });
    const res = await fetch(`${s.url}/logs/`, { client, signal: AbortSignal.timeout(20_000) });
    assert.equal(await res.text(), "line 1\nline 2\nend\n");
    client.close();
  } finally {
    await s.stop();
  }
});

/** An open TLS connection to `port`, and a promise that resolves when the server closes it. */
async function hold(port: number, ca: string) {
  const conn = await Deno.connectTls({ hostname: "127.0.0.1", port, caCerts: [ca] });
  const closed = (async () => {
    const buf = new Uint8Array(1024);
    try {
      while ((await conn.read(buf)) !== null);
    } catch (err) {
      // Reset, or closed by us (a pending read is interrupted): closed either way.
      const gone = [
        Deno.errors.BadResource,
        Deno.errors.ConnectionReset,
        Deno.errors.Interrupted,
        Deno.errors.UnexpectedEof,
      ];
      if (!gone.some((kind) => err instanceof kind)) throw err;
    }
  })();
  return { conn, closed };
}

async function answers(url: string, ca: string): Promise<boolean> {
  try {
    const res = await get(`${url}/x`, Deno.createHttpClient({ caCerts: [ca] }));
    await res.body?.cancel();
    return res.ok;
  } catch (err) {
    if (err instanceof TypeError) return false;
    throw err;
  }
}

Deno.test("TLS: connections beyond the limit are closed at accept; a closed one frees its slot", async () => {
  const s = await start(echoPeer, { maxConnections: 2 });
  const held: Awaited<ReturnType<typeof hold>>[] = [];
  try {
    held.push(await hold(s.server.port, s.servingCA), await hold(s.server.port, s.servingCA));
    // The handshake of each finished: both hold a slot now.
    for (const h of held) await h.conn.handshake();
    assert.equal(await answers(s.url, s.servingCA), false, "a third connection is refused");
    held.shift()!.conn.close();
    let ok = false;
    for (let i = 0; i < 50 && !ok; i++) ok = await answers(s.url, s.servingCA);
    assert.ok(ok, "a slot freed by a closed connection is served");
  } finally {
    for (const h of held) h.conn.close();
    await s.stop();
  }
});

Deno.test("TLS: a connection that sends no request is closed after the first-request deadline", async () => {
  const clock = new FakeClock(Date.now());
  const s = await start(echoPeer, { clock });
  try {
    const idle = await hold(s.server.port, s.servingCA);
    await idle.conn.handshake();
    let closed = false;
    const watching = idle.closed.then(() => (closed = true));
    for (let i = 0; i < 100 && !closed; i++) {
      await clock.advance(1_000);
      await Promise.race([watching, new Promise((r) => setTimeout(r, 5))]);
    }
    assert.ok(closed, "the idle connection was not closed");
    // A connection that asks in time is served and not cut off by the deadline.
    assert.equal(await answers(s.url, s.servingCA), true);
    idle.conn.close();
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: a replaced client CA verifies the client certificates of new connections", async () => {
  const before = await testCA("clients-2025");
  const after = await testCA("clients-2026");
  const alice = await after.issue({ commonName: "alice", usages: ["clientAuth"] });
  const s = await start(echoPeer, { clientCA: before.certPem });
  const as = () =>
    Deno.createHttpClient({ caCerts: [s.servingCA], cert: alice.certPem, key: alice.keyPem });
  try {
    assert.equal((await (await get(`${s.url}/pods`, as())).json()).peer.verified, false);
    s.server.setClientCA(after.certPem);
    assert.equal((await (await get(`${s.url}/pods`, as())).json()).peer.verified, true);
  } finally {
    await s.stop();
  }
});

Deno.test("TLS: an X.509 v1 client certificate is refused with a reason, and the operator told once", async () => {
  const ca = await opensslCA();
  // What `openssl x509 -req` makes without extensions, as hand-made clusters give their API
  // server: v1. Deno's TLS stack skips the handshake signature check for such a certificate, so
  // accepting it would let anyone holding the public certificate in.
  const v1 = await ca.issue("/O=system:masters/CN=kube-apiserver");
  assert.match(v1.certPem, /^-----BEGIN CERTIFICATE-----/);
  const server = await startCertOnlyNodeApi(ca.certPem);
  const { lines, servingCA } = server;
  try {
    // The openssl client presents a v1 certificate (Deno's own client cannot).
    for (let i = 0; i < 2; i++) {
      const out = await opensslConnect(server.port, [
        "-cert",
        await tempFile(v1.certPem),
        "-key",
        await tempFile(v1.keyPem),
        "-CAfile",
        await tempFile(servingCA),
      ]);
      assert.match(out, /HTTP\/1\.1 401/);
    }
    const warnings = lines.filter((l) => l.includes("X.509 v1"));
    assert.equal(warnings.length, 1, lines.join("\n"));
    assert.match(warnings[0], /user=kube-apiserver/);
  } finally {
    await server.stop();
  }
  // The reason reaches the authenticator, which logs it with the 401.
  const echo = await start(echoPeer, { clientCA: ca.certPem });
  try {
    const out = await opensslConnect(echo.server.port, [
      "-cert",
      await tempFile(v1.certPem),
      "-key",
      await tempFile(v1.keyPem),
    ]);
    assert.match(out, /"verified":false/);
    assert.match(out, /X\.509 v1 certificates are not accepted/);
  } finally {
    await echo.stop();
  }
});

async function tempFile(text: string): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "denolet-tls-" });
  await Deno.writeTextFile(path, text);
  return path;
}
