/**
 * Proxies an upgraded node API connection to the runtime's streaming server, as upstream's
 * UpgradeAwareHandler does: the client's request goes to the stream URL (its path, the original
 * headers; the caller's credentials stay here), and from then on bytes are copied both ways
 * unchanged, whatever the protocol the two ends negotiate (SPDY/3.1 or WebSocket), including
 * the runtime's own answer (101, or an error status).
 */
import { BadRequestError } from "../_errors.ts";
import type { UpgradedConnection } from "../types.ts";

export interface Duplex {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
  close(): void;
}

/** Opens a TCP connection; the default is Deno.connect. */
export type Dial = (host: string, port: number) => Promise<Duplex>;

export const tcpDial: Dial = async (hostname, port) => {
  const conn = await Deno.connect({ hostname, port });
  return {
    readable: conn.readable,
    writable: conn.writable,
    close() {
      try {
        conn.close();
      } catch (err) {
        // Closing both stream ends already closed the connection.
        if (!(err instanceof Deno.errors.BadResource)) throw err;
      }
    },
  };
};

/** Headers not passed on: the caller's credentials are for this server, not the runtime's. */
const DROPPED = new Set(["authorization", "host"]);

/** A bearer token a WebSocket client sends as a subprotocol (browsers cannot set headers). */
export const WS_TOKEN_PROTOCOL_PREFIX = "base64url.bearer.authorization.k8s.io.";

/**
 * The request head sent to the stream server: method, target path, original header lines,
 * without credentials: no Authorization, and no bearer token among the WebSocket subprotocols
 * (upstream's protocol authenticator removes it from the request it passes on).
 */
export function requestHead(method: string, target: URL, rawHeaders: [string, string][]): string {
  const lines = [`${method} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`];
  for (const [name, value] of rawHeaders) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower)) continue;
    if (lower === "sec-websocket-protocol") {
      const kept = value.split(",").map((p) => p.trim())
        .filter((p) => p !== "" && !p.startsWith(WS_TOKEN_PROTOCOL_PREFIX));
      if (kept.length > 0) lines.push(`${name}: ${kept.join(", ")}`);
      continue;
    }
    lines.push(`${name}: ${value}`);
  }
  return lines.join("\r\n") + "\r\n\r\n";
}

/**
 * Connects to `target` and relays until one direction ends, then stops the other (`signal`
 * aborting stops both). Resolves with how each direction ended ("ended", "stopped", or
 * "failed: ..."), for the log. Throws BadRequestError for a URL it cannot use (not http://), and
 * the dial's error when the stream server cannot be reached.
 */
export async function proxyUpgrade(
  method: string,
  target: string,
  client: UpgradedConnection,
  opts: { dial?: Dial; signal?: AbortSignal } = {},
): Promise<{ up: string; down: string }> {
  const url = new URL(target);
  if (url.protocol !== "http:") {
    throw new BadRequestError(
      `Cannot proxy to the runtime's stream URL ${url.protocol}//...: only http is supported`,
    );
  }
  const port = url.port === "" ? 80 : Number(url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const backend = await (opts.dial ?? tcpDial)(host, port);
  // Either direction may end first (the client hangs up, the process exits); the other is then
  // stopped too, as upstream's handler does, so neither side waits forever.
  const stop = new AbortController();
  const onAbort = () => stop.abort(opts.signal?.reason);
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const writer = backend.writable.getWriter();
    await writer.write(new TextEncoder().encode(requestHead(method, url, client.rawHeaders)));
    if (client.head.length > 0) await writer.write(client.head);
    writer.releaseLock();
    const pipe = (from: ReadableStream<Uint8Array>, to: WritableStream<Uint8Array>) =>
      from.pipeTo(to, { signal: stop.signal }).then(
        () => "ended",
        (err) => (stop.signal.aborted ? "stopped" : `failed: ${err}`),
      );
    const up = pipe(client.readable, backend.writable);
    const down = pipe(backend.readable, client.writable);
    await Promise.race([up, down]);
    stop.abort();
    const [upEnd, downEnd] = await Promise.all([up, down]);
    return { up: upEnd, down: downEnd };
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    backend.close();
  }
}
