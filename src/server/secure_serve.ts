/**
 * Serves the authenticated node API over HTTPS.
 *
 * Why node:https and not Deno.serve: Deno 2.9's own TLS server (Deno.serve, Deno.listenTls) has
 * no way to ask for or verify client certificates, and no raw connection upgrade for SPDY. Its
 * node:tls (rustls underneath) does both: `requestCert` with `ca` verifies the client's chain
 * (trusted CA, in date, usable for client authentication; intermediates sent by the client are
 * used) and reports the result per connection, and the `upgrade` event hands over the socket.
 * Its `ciphers` option is ignored, so --tls-cipher-suites is enforced right after the handshake:
 * a TLS 1.2 connection whose negotiated suite is not listed is closed before any request is
 * read. --tls-min-version maps to `minVersion` (TLS 1.2 is the stack's floor anyway). Measured
 * cost: ~2 MB RSS on top of the node: modules the agent already loads (grpc-js's node:http2).
 *
 * Each connection costs memory here (TLS state and JavaScript objects), so their number is
 * bounded (`maxConnections`, more are closed at accept), and a connection that holds a slot
 * without using it is closed: a handshake must finish within 10 s and the first request arrive
 * within 30 s of it (idle keep-alive connections close after the server's keep-alive timeout).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { ConnectionInfo, SecureHandler } from "./secure_handler.ts";
import type { UpgradedConnection } from "./types.ts";
import { peerOf, v1Warner } from "./_peer.ts";
import { readableOf, writableOf, writeFlushed } from "./_socket_streams.ts";

export interface ServingCertificate {
  /** PEM: the leaf, then intermediates. */
  cert: string;
  /** PEM private key. */
  key: string;
}

export interface SecureServeOptions {
  /** Interface to bind; port 0 picks a free one (tests). */
  address: string;
  port: number;
  certificate: ServingCertificate;
  /** PEM bundle client certificates are verified against; absent: none are asked for. */
  clientCA?: string;
  /** "TLSv1.2" (default) or "TLSv1.3". */
  minVersion?: "TLSv1.2" | "TLSv1.3";
  /** TLS 1.2 suites allowed (IANA/Go names); empty allows the stack's (all secure) set. */
  cipherSuites?: readonly string[];
  /** Connections open at once; more are closed at accept. Default `MAX_CONNECTIONS`. */
  maxConnections?: number;
  /** Times the deadline for a connection's first request. */
  clock: Clock;
  logger: Logger;
  /** Aborting stops accepting and closes open connections, then resolves `finished`. */
  signal: AbortSignal;
}

export interface SecureServer {
  port: number;
  finished: Promise<void>;
  /** Serves new connections with another certificate (rotation); open ones keep theirs. */
  setCertificate(c: ServingCertificate): void;
  /**
   * Verifies the client certificates of new connections against another CA bundle (the client
   * CA file replaced); open connections keep their verdict. Ignored by a server started
   * without a client CA (it asks for no certificates).
   */
  setClientCA(pem: string): void;
}

/**
 * The connections served at once. The API server opens one per log follow or exec session and
 * reuses a few for the rest; this leaves room for hundreds of those while a flood of idle
 * connections cannot take the agent's memory.
 */
export const MAX_CONNECTIONS = 512;
/** A TLS handshake takes milliseconds; Node's default of 120 s lets idle sockets hold slots. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** How long a connection may wait after its handshake before its first request. */
const FIRST_REQUEST_MS = 30_000;

/** Go's `VersionTLS1x` names to node's; below 1.2 means 1.2, the TLS stack's floor. */
export function nodeMinVersion(goName: string): "TLSv1.2" | "TLSv1.3" {
  return goName === "VersionTLS13" ? "TLSv1.3" : "TLSv1.2";
}

export async function serveSecureNodeApi(
  handler: SecureHandler,
  opts: SecureServeOptions,
): Promise<SecureServer> {
  // Loaded here, not at the top: a bundle evaluates every static node: import at start, and the
  // agent without --port never needs node:https.
  const { default: https } = await import("node:https");
  const log = opts.logger.child({ component: "node-api" });
  const where = opts.address.includes(":")
    ? `[${opts.address}]:${opts.port}`
    : `${opts.address}:${opts.port}`;
  // Every secure context is built here: a reload that left out minVersion served TLS 1.2 again.
  let certificate = opts.certificate;
  let clientCA = opts.clientCA;
  const context = () => ({
    key: certificate.key,
    cert: certificate.cert,
    minVersion: opts.minVersion ?? "TLSv1.2",
    ...(clientCA ? { ca: clientCA } : {}),
  });
  const server = https.createServer({
    ...context(),
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    ...(clientCA ? { requestCert: true, rejectUnauthorized: false } : { requestCert: false }),
  });
  server.maxConnections = opts.maxConnections ?? MAX_CONNECTIONS;
  const allowed = new Set(opts.cipherSuites ?? []);
  const open = new Set<Socket>();
  /** Connections still waiting for their first request, and the abort of their deadline. */
  const waiting = new Map<Socket, AbortController>();
  const served = (socket: Socket) => {
    waiting.get(socket)?.abort();
    waiting.delete(socket);
  };
  const warnV1 = v1Warner(log);
  server.on("secureConnection", (socket: TLSSocket) => {
    open.add(socket);
    if (clientCA !== undefined) warnV1(socket);
    const deadline = new AbortController();
    waiting.set(socket, deadline);
    socket.once("close", () => {
      open.delete(socket);
      served(socket);
    });
    opts.clock.sleep(FIRST_REQUEST_MS, { signal: deadline.signal }).then(() => {
      log.debug(3, "No request on a new connection; closing it", { remote: socket.remoteAddress });
      socket.destroy();
    }, (err) => {
      // Aborted: a request came, or the connection closed first.
      if (!deadline.signal.aborted) log.error("First-request deadline failed", { err });
    });
    const cipher = socket.getCipher();
    if (allowed.size > 0 && cipher.version === "TLSv1.2" && !allowed.has(cipher.standardName)) {
      log.debug(2, "TLS cipher suite not allowed; closing the connection", {
        suite: cipher.standardName,
        remote: socket.remoteAddress,
      });
      socket.destroy();
    }
  });
  server.on("tlsClientError", (err: Error, socket: TLSSocket) => {
    log.debug(3, "TLS handshake failed", { remote: socket.remoteAddress, err: err.message });
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    served(req.socket);
    serveRequest(handler, req, res, log).catch((err) => {
      log.error("node API response failed", { path: req.url, err });
      res.destroy();
    });
  });
  server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Uint8Array) => {
    served(socket);
    serveUpgrade(handler, req, socket, head, log).catch((err) => {
      log.error("node API upgrade failed", { path: req.url, err });
      socket.destroy();
    });
  });
  const finished = new Promise<void>((resolve) => {
    server.once("close", () => {
      log.info("node API stopped");
      resolve();
    });
  });
  const stop = () => {
    server.close();
    // Follows and exec sessions would keep the server open for as long as they last.
    for (const s of open) s.destroy();
  };
  return new Promise((resolve, reject) => {
    server.once("error", (err: Error) => {
      reject(
        new DenoletError(`Cannot serve the node API on ${where}: ${errorMessage(err)}`, {
          cause: err,
        }),
      );
    });
    server.listen(opts.port, opts.address, () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : opts.port;
      log.info("node API listening (HTTPS)", { address: where.replace(/:\d+$/, `:${port}`) });
      if (opts.signal.aborted) stop();
      else opts.signal.addEventListener("abort", stop, { once: true });
      resolve({
        port,
        finished,
        setCertificate(c) {
          certificate = c;
          server.setSecureContext(context());
        },
        setClientCA(pem) {
          if (clientCA === undefined) return;
          clientCA = pem;
          server.setSecureContext(context());
        },
      });
    });
  });
}

function toRequest(req: IncomingMessage, signal: AbortSignal, withBody: boolean): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  let url: URL;
  try {
    url = new URL(req.url ?? "/", `https://${req.headers.host ?? "localhost"}`);
  } catch {
    // A Host header that is no host name: the path is all routing needs.
    url = new URL(req.url ?? "/", "https://localhost");
  }
  const hasBody = withBody && req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers,
    signal,
    ...(hasBody ? { body: readableOf(req as unknown as Socket), duplex: "half" } : {}),
  } as RequestInit);
}

async function serveRequest(
  handler: SecureHandler,
  req: IncomingMessage,
  res: ServerResponse,
  log: Logger,
): Promise<void> {
  const gone = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) gone.abort(new DOMException("client went away", "AbortError"));
  });
  const request = toRequest(req, gone.signal, true);
  const response = await handler(request, { peer: peerOf(req.socket as TLSSocket) });
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => (headers[k] = v));
  res.writeHead(response.status, headers);
  if (response.body === null || req.method === "HEAD") {
    await response.body?.cancel();
    res.end();
    return;
  }
  // Every chunk goes out at once (a follow must not wait for a buffer to fill), and the end only
  // after the last one went (writeFlushed says why).
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      await writeFlushed(res, value);
      if (gone.signal.aborted) break;
    }
  } catch (err) {
    if (!gone.signal.aborted) log.debug(2, "node API response body failed", { path: req.url, err });
  } finally {
    await reader.cancel().catch((err) =>
      log.debug(5, "Cancelling a response body failed", { err })
    );
    res.end();
  }
}

async function serveUpgrade(
  handler: SecureHandler,
  req: IncomingMessage,
  socket: Socket,
  head: Uint8Array,
  log: Logger,
): Promise<void> {
  const gone = new AbortController();
  socket.once("close", () => gone.abort(new DOMException("client went away", "AbortError")));
  const rawHeaders: [string, string][] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    rawHeaders.push([req.rawHeaders[i], req.rawHeaders[i + 1]]);
  }
  const upgrade: UpgradedConnection = {
    rawHeaders,
    head: new Uint8Array(head),
    readable: readableOf(socket),
    writable: writableOf(socket),
  };
  const conn: ConnectionInfo = { peer: peerOf(socket as TLSSocket), upgrade };
  const response = await handler(toRequest(req, gone.signal, false), conn);
  if (response.status === 101) {
    // The route relayed the session; the socket is spent.
    socket.destroy();
    return;
  }
  // A plain answer on a connection that asked to upgrade: sent as it comes (a log may be
  // larger than memory), delimited by closing the connection.
  const lines = [`HTTP/1.1 ${response.status} ${statusText(response.status)}`];
  response.headers.forEach((v, k) => {
    if (k !== "connection" && k !== "transfer-encoding") lines.push(`${k}: ${v}`);
  });
  lines.push("connection: close", "", "");
  log.debug(4, "node API upgrade refused", { path: req.url, status: response.status });
  const out = writableOf(socket);
  const writer = out.getWriter();
  await writer.write(new TextEncoder().encode(lines.join("\r\n")));
  writer.releaseLock();
  if (response.body === null || req.method === "HEAD") {
    await response.body?.cancel();
    await out.close();
    return;
  }
  try {
    await response.body.pipeTo(out, { signal: gone.signal });
  } catch (err) {
    if (!gone.signal.aborted) log.debug(2, "node API response body failed", { path: req.url, err });
    socket.destroy();
  }
}

/** The reasons of what the node API answers (a value import of node:http would load it early). */
const REASONS: Record<number, string> = {
  200: "OK",
  301: "Moved Permanently",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

function statusText(status: number): string {
  return REASONS[status] ?? "Status";
}
