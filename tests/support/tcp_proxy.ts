/**
 * A TCP proxy on loopback that can black-hole traffic, to play a NAT entry timing out or an
 * uplink going away under an agent: bytes stop flowing and nothing closes, no FIN, no RST, as
 * on a real link. TLS passes through untouched, so a kubeconfig pointed at the proxy keeps
 * verifying the API server's certificate (it names 127.0.0.1).
 */

export interface TcpProxy {
  /** The loopback port clients connect to. */
  readonly port: number;
  /**
   * Black-holes every connection open now (a NAT entry lost): they stay open and carry nothing,
   * either way. New connections work unless `outage` is on.
   */
  dropExisting(): void;
  /**
   * A link outage: while on, new connections are accepted but carry nothing either, and those
   * open are black-holed. Off again: new connections work; those made before stay dead.
   */
  outage(on: boolean): void;
  /** Connections accepted so far (a reconnect shows as a new one). */
  readonly accepted: number;
  /** Bytes passed on so far, TLS records included: client → server, and server → client. */
  readonly bytes: { readonly up: number; readonly down: number };
  /** Closes the listener and every connection. Idempotent. */
  close(): Promise<void>;
}

interface Link {
  client: Deno.Conn;
  upstream?: Deno.Conn;
  dead: boolean;
}

export function startTcpProxy(target: { hostname: string; port: number }): TcpProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const links = new Set<Link>();
  let outage = false;
  let accepted = 0;
  let closed = false;
  const bytes = { up: 0, down: 0 };

  const pump = async (from: Deno.Conn, to: Deno.Conn, link: Link, dir: "up" | "down") => {
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await from.read(buf);
      if (n === null) break;
      // A black hole swallows what is sent: the sender's writes succeed, nothing arrives.
      if (link.dead) continue;
      bytes[dir] += n;
      let off = 0;
      while (off < n) off += await to.write(buf.subarray(off, n));
    }
    if (!link.dead) await to.closeWrite();
  };

  const serve = async (client: Deno.Conn) => {
    accepted++;
    const link: Link = { client, dead: outage };
    links.add(link);
    let upstream: Deno.Conn | undefined;
    try {
      upstream = await Deno.connect({ hostname: target.hostname, port: target.port });
      link.upstream = upstream;
      await Promise.all([
        pump(client, upstream, link, "up"),
        pump(upstream, client, link, "down"),
      ]);
    } catch {
      // A reset or a close from either side (or ours) ends the link; nothing to report.
    } finally {
      links.delete(link);
      try {
        client.close();
      } catch { /* already closed */ }
      try {
        upstream?.close();
      } catch { /* already closed */ }
    }
  };

  const pending = new Set<Promise<void>>();
  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return; // the listener was closed
      }
      const link = serve(conn);
      // Kept so close() can wait for every link to wind down.
      pending.add(link);
      link.finally(() => pending.delete(link));
    }
  })();

  return {
    port: (listener.addr as Deno.NetAddr).port,
    dropExisting() {
      for (const l of links) l.dead = true;
    },
    outage(on) {
      outage = on;
      if (on) { for (const l of links) l.dead = true; }
    },
    get accepted() {
      return accepted;
    },
    bytes,
    async close() {
      if (closed) return;
      closed = true;
      listener.close();
      for (const l of links) {
        try {
          l.client.close();
        } catch { /* already closed */ }
        try {
          l.upstream?.close();
        } catch { /* already closed */ }
      }
      await accepting;
      await Promise.all([...pending]);
    },
  };
}
