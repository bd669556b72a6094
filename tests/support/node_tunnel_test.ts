/**
 * The API server's egress proxy to nodes it cannot route to (./_node_tunnel.ts), driven as the
 * API server drives it: an HTTP CONNECT over the Unix socket its egress selector names.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { type NodeRoute, startNodeTunnel } from "./_node_tunnel.ts";

const NODE = "10.0.2.15:10250";

/** A TCP server on loopback that echoes what it reads; `close` waits for its connections. */
function echoServer() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns: Promise<void>[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      conns.push(conn.readable.pipeTo(conn.writable).catch(() => undefined));
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    async close() {
      listener.close();
      await serving.catch(() => undefined);
      await Promise.all(conns);
    },
  };
}

async function withTunnel(
  route: NodeRoute,
  fn: (socket: string, configFile: string, logs: string[]) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-tunnel-" });
  const logs: string[] = [];
  const tunnel = await startNodeTunnel(dir, route, (l) => logs.push(l));
  try {
    await fn(`${dir}/egress.sock`, tunnel.configFile, logs);
  } finally {
    await tunnel.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Reads until `n` bytes came or the other side closed. */
async function readBytes(conn: Deno.Conn, n: number): Promise<string> {
  const out: number[] = [];
  const buf = new Uint8Array(256);
  while (out.length < n) {
    const got = await conn.read(buf);
    if (got === null) break;
    out.push(...buf.subarray(0, got));
  }
  return new TextDecoder().decode(new Uint8Array(out));
}

const write = (conn: Deno.Conn, s: string) => conn.write(new TextEncoder().encode(s));

Deno.test("node tunnel: the egress selector sends cluster traffic to its socket by HTTP CONNECT", async () => {
  await withTunnel(() => undefined, async (socket, configFile) => {
    const config = parse(await Deno.readTextFile(configFile)) as Record<string, unknown>;
    assert.deepEqual(config, {
      apiVersion: "apiserver.k8s.io/v1beta1",
      kind: "EgressSelectorConfiguration",
      egressSelections: [{
        name: "cluster",
        connection: { proxyProtocol: "HTTPConnect", transport: { uds: { udsName: socket } } },
      }],
    });
  });
});

Deno.test("node tunnel: a CONNECT to a routed node pipes bytes both ways, early bytes included", async () => {
  const echo = echoServer();
  try {
    await withTunnel(
      (address) => address === NODE ? { hostname: "127.0.0.1", port: echo.port } : undefined,
      async (socket) => {
        const conn = await Deno.connect({ transport: "unix", path: socket });
        try {
          // The bytes after the headers in the same write go on to the node.
          await write(conn, `CONNECT ${NODE} HTTP/1.1\r\nHost: ${NODE}\r\n\r\nearly`);
          const head = "HTTP/1.1 200 Connection established\r\n\r\n";
          assert.equal(await readBytes(conn, head.length + 5), `${head}early`);
          await write(conn, "later");
          assert.equal(await readBytes(conn, 5), "later");
        } finally {
          conn.close();
        }
      },
    );
  } finally {
    await echo.close();
  }
});

Deno.test("node tunnel: a node without a route is refused with 502 and logged", async () => {
  await withTunnel(() => undefined, async (socket, _config, logs) => {
    const conn = await Deno.connect({ transport: "unix", path: socket });
    try {
      await write(conn, `CONNECT 10.9.9.9:10250 HTTP/1.1\r\n\r\n`);
      assert.equal(await readBytes(conn, 1024), "HTTP/1.1 502 Bad Gateway\r\n\r\n");
    } finally {
      conn.close();
    }
    assert.deepEqual(logs, [
      "[node-tunnel] Cannot tunnel to 10.9.9.9:10250: no route to that node",
    ]);
  });
});

Deno.test("node tunnel: what is not a CONNECT is refused with 400", async () => {
  await withTunnel(() => undefined, async (socket, _config, logs) => {
    const conn = await Deno.connect({ transport: "unix", path: socket });
    try {
      await write(conn, "GET / HTTP/1.1\r\n\r\n");
      assert.equal(await readBytes(conn, 1024), "HTTP/1.1 400 Bad Request\r\n\r\n");
    } finally {
      conn.close();
    }
    assert.match(logs.join("\n"), /Not a CONNECT request: "GET \/ HTTP\/1\.1"/);
  });
});

Deno.test("node tunnel: close ends the tunnels still open", async () => {
  const echo = echoServer();
  try {
    const dir = await Deno.makeTempDir({ prefix: "denolet-tunnel-" });
    const tunnel = await startNodeTunnel(
      dir,
      () => ({ hostname: "127.0.0.1", port: echo.port }),
      () => {},
    );
    const conn = await Deno.connect({ transport: "unix", path: `${dir}/egress.sock` });
    await write(conn, `CONNECT ${NODE} HTTP/1.1\r\n\r\n`);
    await readBytes(conn, "HTTP/1.1 200 Connection established\r\n\r\n".length);
    await tunnel.close();
    // The proxy's side is gone: the client reads the end of the stream.
    assert.equal(await readBytes(conn, 1), "");
    conn.close();
    await tunnel.close();
    await Deno.remove(dir, { recursive: true });
  } finally {
    await echo.close();
  }
});
