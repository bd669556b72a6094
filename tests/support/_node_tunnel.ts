/**
 * The API server's way to nodes the host cannot route to (a VM behind qemu's NAT, whose
 * InternalIP only the guest has): its egress selector for `cluster` traffic (HTTP CONNECT over a
 * Unix socket, as a konnectivity proxy is reached) and the proxy behind it, which pipes each
 * CONNECT to where `route` says. Logs, exec, attach, port-forward and the node proxy all go
 * through it. Private to tests/support; `control_plane.ts` runs it.
 */
import { stringify } from "yaml";
import { DevSetupError } from "./_exec.ts";

/** Where a connection to a node's `host:port` goes; undefined refuses it (502). */
export type NodeRoute = (address: string) => Deno.ConnectOptions | undefined;

export interface NodeTunnel {
  /** The API server's --egress-selector-config-file. */
  readonly configFile: string;
  /** Stops listening and closes every open tunnel. Idempotent. */
  close(): Promise<void>;
}

const MAX_HEADER = 8 * 1024;

/** Listens on `<dir>/egress.sock` and writes the egress selector configuration beside it. */
export async function startNodeTunnel(
  dir: string,
  route: NodeRoute,
  log: (line: string) => void,
): Promise<NodeTunnel> {
  const configFile = `${dir}/egress-selector.yaml`;
  const socket = `${dir}/egress.sock`;
  await Deno.writeTextFile(
    configFile,
    stringify({
      apiVersion: "apiserver.k8s.io/v1beta1",
      kind: "EgressSelectorConfiguration",
      egressSelections: [{
        name: "cluster",
        connection: { proxyProtocol: "HTTPConnect", transport: { uds: { udsName: socket } } },
      }],
    }),
  );
  const listener = Deno.listen({ transport: "unix", path: socket });
  const open = new Set<Deno.Conn>();
  const tunnels = new Set<Promise<void>>();
  const serving = (async () => {
    for await (const conn of listener) {
      open.add(conn);
      const t = tunnel(conn, route, open)
        .catch((err) => log(`[node-tunnel] ${err instanceof Error ? err.message : err}`))
        .finally(() => tunnels.delete(t));
      tunnels.add(t);
    }
  })();
  let closed = false;
  return {
    configFile,
    async close() {
      if (closed) return;
      closed = true;
      listener.close();
      await serving.catch((err) => log(`[node-tunnel] accept loop: ${err}`));
      for (const c of open) closeQuietly(c);
      await Promise.all(tunnels);
    },
  };
}

/** One CONNECT: the request line, the route, `200`, then bytes both ways until either side ends. */
async function tunnel(client: Deno.Conn, route: NodeRoute, open: Set<Deno.Conn>): Promise<void> {
  let target: Deno.Conn | undefined;
  try {
    const { address, rest } = await readConnect(client);
    const to = route(address);
    if (!to) {
      await reply(client, "502 Bad Gateway");
      throw new DevSetupError(`Cannot tunnel to ${address}: no route to that node`);
    }
    try {
      target = await Deno.connect(to);
    } catch (err) {
      await reply(client, "502 Bad Gateway");
      throw new DevSetupError(`Cannot tunnel to ${address} via ${to.hostname}:${to.port}`, {
        cause: err,
      });
    }
    open.add(target);
    await reply(client, "200 Connection established");
    if (rest.length > 0) await writeAll(target, rest);
    // Either side closing or failing ends the tunnel (TLS needs no half-close); the other
    // direction's pipe then fails on its closed connection, which says nothing more.
    const pipe = (from: Deno.Conn, to: Deno.Conn) =>
      from.readable.pipeTo(to.writable, { preventClose: true }).then(
        () => undefined,
        (err: unknown) => err,
      );
    await Promise.race([pipe(client, target), pipe(target, client)]);
  } finally {
    for (const c of [client, target]) {
      if (!c) continue;
      open.delete(c);
      closeQuietly(c);
    }
  }
}

/** Reads `CONNECT host:port HTTP/1.1` and its headers; `rest` is whatever came after them. */
async function readConnect(conn: Deno.Conn): Promise<{ address: string; rest: Uint8Array }> {
  let buf = new Uint8Array(0);
  const chunk = new Uint8Array(1024);
  for (;;) {
    const end = indexOfBlankLine(buf);
    if (end >= 0) {
      const head = new TextDecoder().decode(buf.subarray(0, end));
      // `head` stops before the blank line: a request without headers ends at its version.
      const m = /^CONNECT (\S+) HTTP\/1\.[01](?:\r\n|$)/.exec(head);
      if (!m) {
        await reply(conn, "400 Bad Request");
        throw new DevSetupError(`Not a CONNECT request: ${JSON.stringify(head.slice(0, 80))}`);
      }
      return { address: m[1], rest: buf.subarray(end + 4) };
    }
    if (buf.length > MAX_HEADER) throw new DevSetupError("CONNECT request headers too long");
    const n = await conn.read(chunk);
    if (n === null) throw new DevSetupError("The API server closed before its CONNECT request");
    const next = new Uint8Array(buf.length + n);
    next.set(buf);
    next.set(chunk.subarray(0, n), buf.length);
    buf = next;
  }
}

function indexOfBlankLine(buf: Uint8Array): number {
  for (let i = 0; i + 3 < buf.length; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

async function reply(conn: Deno.Conn, status: string): Promise<void> {
  await writeAll(conn, new TextEncoder().encode(`HTTP/1.1 ${status}\r\n\r\n`));
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let off = 0; off < data.length;) off += await conn.write(data.subarray(off));
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch (err) {
    // Closed already (the other direction's pipe ended it): nothing is left to release.
    if (!(err instanceof Deno.errors.BadResource)) throw err;
  }
}
