import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  alwaysAllow,
  AuthorizationError,
  type Authorizer,
  createAuthenticator,
  ReviewBudgetError,
  tokenAuthenticator,
  x509Authenticator,
} from "../../src/server/auth/mod.ts";
import { createSecureNodeApiHandler, type SecureApiDeps } from "../../src/server/secure_handler.ts";
import type { Duplex } from "../../src/server/streaming/mod.ts";
import type { UpgradedConnection } from "../../src/server/types.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createMetricsRegistry } from "../../src/util/metrics.ts";
import { NotFoundError, RuntimeUnavailableError } from "../../src/util/errors.ts";
import { fakeDeps, runningPod, staticPod } from "./_fakes.ts";

const anonymousOnly = createAuthenticator({ methods: [x509Authenticator()], anonymous: true });
const noAnonymous = createAuthenticator({ methods: [x509Authenticator()], anonymous: false });

/** Allows exactly the subresources listed, for everyone. */
function allowing(...subresources: string[]): Authorizer & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    authorize(a) {
      asked.push(`${a.verb} ${a.subresource}`);
      return Promise.resolve({ allowed: subresources.includes(a.subresource) });
    },
  };
}

function podWith(status: Partial<NonNullable<V1Pod["status"]>> = {}): V1Pod {
  const p = staticPod();
  p.spec!.containers.push({ name: "shell", image: "busybox", tty: true });
  p.status = {
    ...p.status,
    containerStatuses: [{
      ...p.status!.containerStatuses![0],
      containerID: "containerd://c2",
      lastState: { terminated: { exitCode: 1, containerID: "containerd://c1" } },
    }, {
      name: "shell",
      image: "busybox",
      imageID: "x",
      ready: true,
      restartCount: 0,
      containerID: "containerd://c3",
      state: { running: {} },
    }],
    ...status,
  };
  return p;
}

interface Harness {
  handler: ReturnType<typeof createSecureNodeApiHandler>;
  calls: string[];
  dir: string;
}

async function harness(
  over: Partial<SecureApiDeps> = {},
  debugOver: Partial<NonNullable<SecureApiDeps["debugging"]>> = {},
): Promise<Harness> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-secure-" });
  await Deno.writeTextFile(
    `${dir}/current.log`,
    "2026-01-01T00:00:01Z stdout F now running\n",
  );
  await Deno.writeTextFile(`${dir}/previous.log`, "2026-01-01T00:00:00Z stderr F crashed\n");
  await Deno.mkdir(`${dir}/var-log/pods`, { recursive: true });
  await Deno.writeTextFile(`${dir}/var-log/syslog`, "kernel: hello\n");
  const calls: string[] = [];
  const base = fakeDeps({
    pods: () => [podWith()],
    runningPods: () => Promise.resolve([runningPod()]),
  });
  const handler = createSecureNodeApiHandler({
    ...base,
    authenticate: anonymousOnly,
    authorizer: alwaysAllow,
    debugging: {
      clock: new FakeClock(),
      logDir: `${dir}/var-log`,
      runtime: {
        containerStatus: (id) => {
          calls.push(`containerStatus ${id}`);
          if (id === "c2") {
            return Promise.resolve(
              { logPath: `${dir}/current.log`, state: "CONTAINER_RUNNING" } as never,
            );
          }
          if (id === "c1") {
            return Promise.resolve(
              { logPath: `${dir}/previous.log`, state: "CONTAINER_EXITED" } as never,
            );
          }
          return Promise.reject(new NotFoundError(`no container ${id}`));
        },
        execSync: (id, cmd) => {
          calls.push(`execSync ${id} ${JSON.stringify(cmd)}`);
          return Promise.resolve({
            stdout: new TextEncoder().encode("out\n"),
            stderr: new TextEncoder().encode("err\n"),
            exitCode: 0,
          });
        },
      },
      streaming: {
        exec: (id, cmd, f) => {
          calls.push(`exec ${id} ${JSON.stringify(cmd)} ${JSON.stringify(f)}`);
          return Promise.resolve("http://127.0.0.1:4321/exec/tok1");
        },
        attach: (id, f) => {
          calls.push(`attach ${id} ${JSON.stringify(f)}`);
          return Promise.resolve("http://127.0.0.1:4321/attach/tok2");
        },
        portForward: (id, ports) => {
          calls.push(`portForward ${id} ${JSON.stringify(ports)}`);
          return Promise.resolve("http://127.0.0.1:4321/portforward/tok3");
        },
      },
      runningPods: () => Promise.resolve([runningPod()]),
      ...debugOver,
    },
    ...over,
  });
  return { handler, calls, dir };
}

const req = (path: string, init: RequestInit = {}) =>
  new Request(`https://node-a:10250${path}`, init);

Deno.test("secure API: no credentials with anonymous off is 401 Unauthorized", async () => {
  const { handler } = await harness({ authenticate: noAnonymous });
  const res = await handler(req("/pods"));
  assert.equal(res.status, 401);
  assert.equal(await res.text(), "Unauthorized");
});

Deno.test("secure API: a denied request is 403 with upstream's message listing the subresources tried", async () => {
  const authz = allowing();
  const { handler } = await harness({ authorizer: authz });
  const res = await handler(req("/pods"));
  assert.equal(res.status, 403);
  assert.equal(
    await res.text(),
    "Forbidden (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[pods proxy])",
  );
  assert.deepEqual(authz.asked, ["get pods", "get proxy"]);
  const exec = await handler(
    req("/exec/default/web-node-a/web?command=ls&output=1", { method: "POST" }),
  );
  assert.equal(exec.status, 403);
  assert.equal(
    await exec.text(),
    "Forbidden (user=system:anonymous, verb=create, resource=nodes, subresource(s)=[proxy])",
  );
});

Deno.test("secure API: nodes/stats opens /stats but not /exec; nodes/pods opens /pods", async () => {
  const { handler } = await harness({ authorizer: allowing("stats", "pods") });
  assert.notEqual((await handler(req("/stats/summary"))).status, 403);
  assert.equal((await handler(req("/pods"))).status, 200);
  assert.equal(
    (await handler(req("/exec/default/web-node-a/web?output=1", { method: "POST" }))).status,
    403,
  );
});

Deno.test("secure API: get on nodes/proxy does not open exec, attach or port-forward over WebSocket", async () => {
  const asked: string[] = [];
  const getOnly: Authorizer = {
    authorize(a) {
      asked.push(`${a.verb} ${a.subresource}`);
      return Promise.resolve({ allowed: a.verb === "get" });
    },
  };
  const { handler, calls } = await harness({ authorizer: getOnly });
  const ws = { connection: "Upgrade", upgrade: "websocket" };
  for (
    const path of [
      "/exec/default/web-node-a/web?command=id&output=1",
      "/attach/default/web-node-a/web?output=1",
      "/portForward/default/web-node-a?port=80",
    ]
  ) {
    const res = await handler(req(path, { headers: ws }));
    assert.equal(res.status, 403, path);
    assert.match(await res.text(), /verb=create, resource=nodes, subresource\(s\)=\[proxy\]/);
  }
  assert.deepEqual(asked, ["create proxy", "create proxy", "create proxy"]);
  assert.deepEqual(calls, [], "nothing reached the runtime");
  // What monitoring reads with get stays open.
  assert.equal((await handler(req("/pods"))).status, 200);
});

Deno.test("secure API: an authorizer failure is 500 Authorization error", async () => {
  const { handler } = await harness({
    authorizer: {
      authorize: () =>
        Promise.reject(
          new AuthorizationError("down"),
        ),
    },
  });
  const res = await handler(req("/metrics"));
  assert.equal(res.status, 500);
  assert.equal(
    await res.text(),
    "Authorization error (user=system:anonymous, verb=get, resource=nodes, subresource(s)=[metrics])",
  );
});

Deno.test("secure API: a review refused by its budget is 429, to be retried", async () => {
  const { handler } = await harness({
    authorizer: {
      authorize: () =>
        Promise.reject(
          new AuthorizationError("review", { cause: new ReviewBudgetError("budget spent") }),
        ),
    },
  });
  const res = await handler(req("/metrics"));
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "1");
  await res.body?.cancel();
});

Deno.test("secure API: a bearer token user is authorized as that user", async () => {
  const authenticate = createAuthenticator({
    methods: [tokenAuthenticator({
      review: () =>
        Promise.resolve({ authenticated: true, user: { username: "carol", groups: [] } }),
      cacheTTLMs: 0,
    })],
    anonymous: false,
  });
  const authz = allowing();
  const { handler } = await harness({ authenticate, authorizer: authz });
  const res = await handler(req("/metrics/resource", { headers: { authorization: "Bearer x" } }));
  assert.equal(
    await res.text(),
    "Forbidden (user=carol, verb=get, resource=nodes, subresource(s)=[metrics])",
  );
});

Deno.test("secure API: /containerLogs reads the running instance, or the previous one, and explains when it cannot", async () => {
  const { handler } = await harness();
  const cur = await handler(req("/containerLogs/default/web-node-a/web"));
  assert.equal(cur.status, 200);
  assert.equal(await cur.text(), "now running\n");
  const prev = await handler(
    req("/containerLogs/default/web-node-a/web?previous=true&timestamps=1"),
  );
  assert.equal(await prev.text(), "2026-01-01T00:00:00Z crashed\n");
  const noPrev = await handler(req("/containerLogs/default/web-node-a/shell?previous=true"));
  assert.equal(noPrev.status, 400);
  assert.equal(
    await noPrev.text(),
    'previous terminated container "shell" in pod "web-node-a" not found',
  );
  const missingPod = await handler(req("/containerLogs/default/nope/web"));
  assert.equal(missingPod.status, 404);
  assert.match(await missingPod.text(), /pod "nope" does not exist/);
  const missingContainer = await handler(req("/containerLogs/default/web-node-a/db"));
  assert.equal(missingContainer.status, 404);
  assert.match(await missingContainer.text(), /container "db" not found in pod "web-node-a"/);
  const bad = await handler(req("/containerLogs/default/web-node-a/web?tailLines=ten"));
  assert.equal(bad.status, 400);
  assert.equal(await bad.text(), '{"message":"Unable to decode query."}');
  const invalid = await handler(
    req("/containerLogs/default/web-node-a/web?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z"),
  );
  assert.equal(invalid.status, 422);
});

Deno.test("secure API: a waiting container has no logs yet, with upstream's reason", async () => {
  const pod = podWith({
    containerStatuses: [{
      name: "web",
      image: "x",
      imageID: "",
      ready: false,
      restartCount: 0,
      state: { waiting: { reason: "ErrImagePull" } },
    }],
  });
  const { handler } = await harness({ pods: () => [pod] });
  const res = await handler(req("/containerLogs/default/web-node-a/web"));
  assert.equal(res.status, 400);
  assert.equal(
    await res.text(),
    `container "web" in pod "web-node-a" is waiting to start: image can't be pulled`,
  );
});

/** An in-memory stream server: records what the proxy sends, answers with `reply`, echoes the rest. */
function fakeStreamServer(reply: string) {
  const seen: { host?: string; port?: number; bytes: string } = { bytes: "" };
  const dial = (host: string, port: number): Promise<Duplex> => {
    seen.host = host;
    seen.port = port;
    // Buffered like a socket: the proxy writes the whole request before it reads the answer.
    const toClient = new TransformStream<Uint8Array, Uint8Array>(undefined, { highWaterMark: 64 }, {
      highWaterMark: 64,
    });
    const w = toClient.writable.getWriter();
    let headSent = false;
    const writable = new WritableStream<Uint8Array>({
      async write(chunk) {
        seen.bytes += new TextDecoder().decode(chunk);
        if (!headSent && seen.bytes.includes("\r\n\r\n")) {
          headSent = true;
          await w.write(new TextEncoder().encode(reply));
          const after = seen.bytes.split("\r\n\r\n")[1];
          if (after) await w.write(new TextEncoder().encode(`echo:${after}`));
        } else if (headSent) {
          await w.write(new TextEncoder().encode(`echo:${new TextDecoder().decode(chunk)}`));
        }
      },
      async close() {
        await w.close();
      },
    });
    return Promise.resolve({ readable: toClient.readable, writable, close: () => {} });
  };
  return { seen, dial };
}

function clientConn(rawHeaders: [string, string][], sends: string[], head = "") {
  const got: string[] = [];
  const conn: UpgradedConnection = {
    rawHeaders,
    head: new TextEncoder().encode(head),
    readable: ReadableStream.from(sends.map((s) => new TextEncoder().encode(s))),
    writable: new WritableStream({
      write(chunk) {
        got.push(new TextDecoder().decode(chunk));
      },
    }),
  };
  return { conn, got };
}

Deno.test("secure API: exec asks the runtime for a URL and relays the upgraded connection byte for byte", async () => {
  const server = fakeStreamServer("HTTP/1.1 101 Switching Protocols\r\nUpgrade: SPDY/3.1\r\n\r\n");
  const calls: string[] = [];
  const rawHeaders: [string, string][] = [
    ["Host", "node-a:10250"],
    ["Authorization", "Bearer secret"],
    ["Connection", "Upgrade"],
    ["Upgrade", "SPDY/3.1"],
    ["X-Stream-Protocol-Version", "v4.channel.k8s.io"],
    ["X-Stream-Protocol-Version", "v3.channel.k8s.io"],
  ];
  const { conn, got } = clientConn(rawHeaders, ["\x80\x03frame-1"], "early");
  const handler = createSecureNodeApiHandler({
    ...fakeDeps({ pods: () => [podWith()] }),
    authenticate: anonymousOnly,
    authorizer: alwaysAllow,
    debugging: {
      clock: new FakeClock(),
      runtime: {
        containerStatus: () => Promise.reject(new Error("unused")),
        execSync: () => Promise.reject(new Error("unused")),
      },
      streaming: {
        exec: (id, cmd, f) => {
          calls.push(`exec ${id} ${JSON.stringify(cmd)} ${JSON.stringify(f)}`);
          return Promise.resolve("http://127.0.0.1:4321/exec/tok1");
        },
        attach: () => Promise.reject(new Error("unused")),
        portForward: () => Promise.reject(new Error("unused")),
      },
      runningPods: () => Promise.resolve([]),
      dial: server.dial,
    },
  });
  const res = await handler(
    req(
      "/exec/default/web-node-a/web?command=sh&command=-c&command=echo%20hi&input=1&output=1&error=1",
      {
        method: "POST",
        headers: { connection: "Upgrade", upgrade: "SPDY/3.1" },
      },
    ),
    { upgrade: conn },
  );
  assert.equal(res.status, 101);
  assert.deepEqual(calls, [
    `exec c2 ["sh","-c","echo hi"] {"stdin":true,"stdout":true,"stderr":true,"tty":false}`,
  ]);
  assert.equal(server.seen.host, "127.0.0.1");
  assert.equal(server.seen.port, 4321);
  assert.equal(
    server.seen.bytes,
    "POST /exec/tok1 HTTP/1.1\r\nHost: 127.0.0.1:4321\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n" +
      "X-Stream-Protocol-Version: v4.channel.k8s.io\r\nX-Stream-Protocol-Version: v3.channel.k8s.io\r\n\r\n" +
      "early\x80\x03frame-1",
  );
  assert.equal(
    got.join(""),
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: SPDY/3.1\r\n\r\necho:earlyecho:\x80\x03frame-1",
  );
});

Deno.test("secure API: a bearer token sent as a WebSocket subprotocol is not passed on to the runtime", async () => {
  const server = fakeStreamServer("HTTP/1.1 101 Switching Protocols\r\n\r\n");
  const token = "secret-token";
  const tokenProtocol = `base64url.bearer.authorization.k8s.io.${
    btoa(token).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_")
  }`;
  const reviewed: string[] = [];
  const authenticate = createAuthenticator({
    methods: [tokenAuthenticator({
      review: (t) => {
        reviewed.push(t);
        return Promise.resolve({ authenticated: true, user: { username: "carol", groups: [] } });
      },
      cacheTTLMs: 0,
    })],
    anonymous: false,
  });
  const headers: [string, string][] = [
    ["Host", "node-a:10250"],
    ["Connection", "Upgrade"],
    ["Upgrade", "websocket"],
    ["Sec-WebSocket-Version", "13"],
    ["Sec-WebSocket-Protocol", `v5.channel.k8s.io, ${tokenProtocol}, v4.channel.k8s.io`],
    ["Sec-WebSocket-Protocol", tokenProtocol],
  ];
  const { conn } = clientConn(headers, [], "");
  const { handler } = await harness({
    authenticate,
    debugging: {
      clock: new FakeClock(),
      runtime: {
        containerStatus: () => Promise.reject(new Error("unused")),
        execSync: () => Promise.reject(new Error("unused")),
      },
      streaming: {
        exec: () => Promise.resolve("http://127.0.0.1:4321/exec/tok1"),
        attach: () => Promise.reject(new Error("unused")),
        portForward: () => Promise.reject(new Error("unused")),
      },
      runningPods: () => Promise.resolve([]),
      dial: server.dial,
    },
  });
  const res = await handler(
    req("/exec/default/web-node-a/web?command=id&output=1", {
      headers: new Headers(headers.filter(([n]) => n !== "Host")),
    }),
    { upgrade: conn },
  );
  assert.equal(res.status, 101);
  assert.deepEqual(reviewed, [token]);
  assert.doesNotMatch(server.seen.bytes, /bearer|secret/i);
  assert.match(
    server.seen.bytes,
    /\r\nSec-WebSocket-Protocol: v5\.channel\.k8s\.io, v4\.channel\.k8s\.io\r\n/,
  );
  assert.equal(server.seen.bytes.match(/Sec-WebSocket-Protocol/g)?.length, 1);
});

Deno.test("secure API: streaming endpoints refuse what they cannot serve, naming it", async () => {
  const { handler, calls } = await harness();
  const noUpgrade = await handler(
    req("/exec/default/web-node-a/web?command=ls&output=1", { method: "POST" }),
  );
  assert.equal(noUpgrade.status, 400);
  assert.match(await noUpgrade.text(), /Upgrade request required/);
  const noStreams = await handler(
    req("/exec/default/web-node-a/web?command=ls", { method: "POST" }),
  );
  assert.equal(noStreams.status, 400);
  assert.match(await noStreams.text(), /at least 1 of stdin, stdout, stderr/);
  const unknown = await handler(
    req("/exec/default/web-node-a/db?command=ls&output=1", { method: "POST" }),
  );
  assert.equal(unknown.status, 404);
  assert.match(await unknown.text(), /container "db" not found in pod "web-node-a"/);
  const noPod = await handler(req("/attach/default/ghost/web?output=1", { method: "POST" }));
  assert.equal(noPod.status, 404);
  assert.match(await noPod.text(), /pod "ghost" does not exist/);
  const wrongUid = await handler(
    req("/portForward/default/web-node-a/other-uid", { method: "POST" }),
  );
  assert.equal(wrongUid.status, 404);
  const wsNoPort = await handler(
    req("/portForward/default/web-node-a", {
      headers: { connection: "Upgrade", upgrade: "websocket" },
    }),
  );
  assert.equal(wsNoPort.status, 400);
  assert.match(await wsNoPort.text(), /query parameter "port" is required/);
  assert.deepEqual(calls, [], "nothing reached the runtime");
  const get = await handler(req("/run/default/web-node-a/web?cmd=ls"));
  assert.equal(get.status, 405);
});

Deno.test("secure API: attach takes the TTY from the container spec", async () => {
  const server = fakeStreamServer("HTTP/1.1 101 Switching Protocols\r\n\r\n");
  const calls: string[] = [];
  const handler = createSecureNodeApiHandler({
    ...fakeDeps({ pods: () => [podWith()] }),
    authenticate: anonymousOnly,
    authorizer: alwaysAllow,
    debugging: {
      clock: new FakeClock(),
      runtime: {
        containerStatus: () => Promise.reject(new Error("unused")),
        execSync: () => Promise.reject(new Error("unused")),
      },
      streaming: {
        exec: () => Promise.reject(new Error("unused")),
        attach: (id, f) => {
          calls.push(`attach ${id} ${JSON.stringify(f)}`);
          return Promise.resolve("http://127.0.0.1:1/attach/x");
        },
        portForward: (id, ports) => {
          calls.push(`portForward ${id} ${JSON.stringify(ports)}`);
          return Promise.resolve("http://127.0.0.1:1/portforward/y");
        },
      },
      runningPods: () => Promise.resolve([runningPod()]),
      dial: server.dial,
    },
  });
  const up = () => clientConn([["Connection", "Upgrade"], ["Upgrade", "SPDY/3.1"]], []).conn;
  assert.equal(
    (await handler(
      req("/attach/default/web-node-a/shell?input=1&output=1&error=1", { method: "POST" }),
      { upgrade: up() },
    ))
      .status,
    101,
  );
  assert.equal(
    (await handler(req("/portForward/default/web-node-a/u-1", { method: "POST" }), {
      upgrade: up(),
    })).status,
    101,
  );
  assert.deepEqual(calls, [
    `attach c3 {"stdin":true,"stdout":true,"stderr":false,"tty":true}`,
    `portForward s1 []`,
  ]);
});

Deno.test("secure API: /run answers stdout then stderr of ExecSync", async () => {
  const { handler, calls } = await harness();
  const res = await handler(
    req("/run/default/web-node-a/web?cmd=cat%20/etc/hostname", { method: "POST" }),
  );
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "out\nerr\n");
  assert.deepEqual(calls, [`execSync c2 ["cat","/etc/hostname"]`]);
});

Deno.test("secure API: /logs/ serves the log directory, lists it, and never leaves it", async () => {
  const { handler } = await harness();
  const file = await handler(req("/logs/syslog"));
  assert.equal(file.status, 200);
  assert.equal(await file.text(), "kernel: hello\n");
  const list = await handler(req("/logs/"));
  assert.match(await list.text(), /<a href="pods\/">pods\/<\/a>\n<a href="syslog">syslog<\/a>/);
  const redirect = await handler(req("/logs/pods"));
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get("location"), "/logs/pods/");
  const escape = await handler(req("/logs/%2E%2E%2F%2E%2E%2Fcurrent.log"));
  assert.equal(escape.status, 404);
});

Deno.test("secure API: /logs/?query= is the node log query with enableSystemLogQuery, authorized as nodes/log", async () => {
  const authorizer = allowing("log");
  const { handler } = await harness({ authorizer }, { logQuery: { journalctl: "/nonexistent" } });
  const file = await handler(req("/logs/?query=pods/../syslog"));
  assert.equal(file.status, 200);
  assert.equal(await file.text(), "kernel: hello\n");
  // No journal here: a service name falls back to /var/log/<name>.
  assert.equal(await (await handler(req("/logs/?query=syslog"))).text(), "kernel: hello\n");
  const refused = await handler(req("/logs/?query=/syslog"));
  assert.equal(refused.status, 406);
  assert.equal(
    await refused.text(),
    'query: Invalid value: ["/syslog"]: statat /syslog: path escapes from parent\n',
  );
  const bad = await handler(req("/logs/?query=a&boot=x"));
  assert.equal(bad.status, 400);
  assert.equal(
    await bad.text(),
    'boot: Invalid value: "x": strconv.Atoi: parsing "x": invalid syntax\n',
  );
  assert.ok(authorizer.asked.every((a) => a === "get log"), authorizer.asked.join());
  // Without enableSystemLogQuery the query string is not looked at: /logs/ is the directory.
  const off = await harness();
  assert.match(await (await off.handler(req("/logs/?query=/syslog"))).text(), /syslog<\/a>/);
});

Deno.test("secure API: /runningpods/ lists what the runtime runs; a runtime that is down is 503", async () => {
  let signal: AbortSignal | undefined;
  const { handler } = await harness({
    runningPods: (opts) => {
      signal = opts.signal;
      return Promise.resolve([runningPod()]);
    },
  });
  const res = await handler(req("/runningpods/"));
  assert.equal(res.status, 200);
  assert.ok(signal instanceof AbortSignal, "the request's signal is passed to the runtime");
  assert.deepEqual(await res.json(), {
    kind: "PodList",
    apiVersion: "v1",
    metadata: {},
    items: [{
      metadata: { name: "web-node-a", namespace: "default", uid: "u-1" },
      spec: { containers: [{ name: "web", resources: {} }] },
      status: {},
    }],
  });
  const down = await harness({
    runningPods: () =>
      Promise.reject(
        new Error("list failed", { cause: new RuntimeUnavailableError("containerd is down") }),
      ),
  });
  const res2 = await down.handler(req("/runningpods"));
  assert.equal(res2.status, 503);
  assert.match(await res2.text(), /containerd is down/);
});

Deno.test("secure API: debugging endpoints answer 405 when disabled", async () => {
  const { handler } = await harness({ debugging: undefined });
  for (
    const path of [
      "/containerLogs/a/b/c",
      "/exec/a/b/c",
      "/logs/",
      "/portForward/a/b",
      "/runningpods/",
    ]
  ) {
    const res = await handler(req(path));
    assert.equal(res.status, 405, path);
    assert.equal(await res.text(), "Debug endpoints are disabled.\n");
  }
});

Deno.test("secure API: /metrics/probes serves only the prober's series; /configz the configuration", async () => {
  const registry = createMetricsRegistry();
  registry.counter({ name: "kubelet_started_pods_total", help: "Pods started." }).inc();
  registry.counterVec({ name: "prober_probe_total", help: "Probes.", labelNames: ["probe_type"] })
    .labels("Liveness").inc();
  const { handler } = await harness({ metrics: registry, configz: () => ({ port: 10250 }) });
  const probes = await (await handler(req("/metrics/probes"))).text();
  assert.match(probes, /prober_probe_total\{probe_type="Liveness"\} 1/);
  assert.doesNotMatch(probes, /kubelet_started_pods_total/);
  assert.deepEqual(await (await handler(req("/configz"))).json(), {
    kubeletconfig: { port: 10250 },
  });
});
