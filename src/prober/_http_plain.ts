/**
 * One plain-HTTP/1.1 GET on a fresh TCP connection, read as far as a probe needs: the status, the
 * Location header and the first bytes of the body (issue 14). node:http's client costs several
 * times more CPU per request under the agent's V8 flags (its streams, agent and parser are all
 * JavaScript run by the interpreter); a probe every 10 s on 110 pods made that the largest part
 * of the agent's probe cost. HTTPS stays on node:https (its TLS options).
 */

/** What a GET gave back. */
export interface PlainReply {
  status: number;
  location: string | undefined;
  /** The first `maxBody` bytes of the (de-chunked) body. */
  body: Uint8Array;
}

const CRLF2 = "\r\n\r\n";
/** Larger heads are refused (Go's default MaxResponseHeaderBytes is 1 MiB; probes need little). */
const MAX_HEAD_BYTES = 1 << 20;
const bytes = new TextDecoder("latin1");
const encoder = new TextEncoder();

/**
 * GETs `url` (http: only) with `headers` (names lower-case; `host` replaces the URL's host) and
 * `Connection: close`. Rejects with the signal's reason when aborted (the connection is closed),
 * and with an Error for a refused connection or a response that is not HTTP/1.x.
 */
export async function plainGet(
  url: URL,
  opts: { headers: Record<string, string | string[]>; maxBody: number; signal?: AbortSignal },
): Promise<PlainReply> {
  const { signal } = opts;
  if (signal?.aborted) throw signal.reason;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const conn = await Deno.connect({ hostname, port: Number(url.port) || 80, signal });
  const onAbort = () => conn.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    await writeAll(conn, encoder.encode(requestHead(url, opts.headers)));
    return await readReply(conn, opts.maxBody);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw err;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!signal?.aborted) closeQuietly(conn);
  }
}

/** The request head: the Host first, then the probe's headers in order, as Go writes them. */
export function requestHead(url: URL, headers: Record<string, string | string[]>): string {
  const host = headers["host"];
  let head = `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${
    typeof host === "string" ? host : url.host
  }\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (name === "host" || name === "connection") continue;
    for (const v of Array.isArray(value) ? value : [value]) head += `${name}: ${v}\r\n`;
  }
  return head + "Connection: close\r\n\r\n";
}

async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  for (let off = 0; off < data.length;) off += await conn.write(data.subarray(off));
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch (err) {
    // Already closed by the peer's reset or by abort: nothing is left to release.
    if (!(err instanceof Deno.errors.BadResource)) throw err;
  }
}

/** Go's Transport reads at most this many informational heads before the final one. */
const MAX_INFORMATIONAL = 5;

/**
 * Reads the head, then the body up to `maxBody` bytes (or its end, whichever is first). 1xx
 * heads other than 101 (103 Early Hints, an unsolicited 100) are skipped as Go's client does:
 * the status that counts is the one after them.
 */
async function readReply(conn: Deno.Conn, maxBody: number): Promise<PlainReply> {
  const buf = new Uint8Array(16 * 1024);
  let rest: Uint8Array = new Uint8Array(0);
  let lines: string[];
  let status: number;
  for (let informational = 0;; informational++) {
    const read = await readHead(conn, buf, rest);
    rest = read.rest;
    lines = read.head.split("\r\n");
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
    if (!m) throw new Error(`malformed HTTP response ${JSON.stringify(lines[0].slice(0, 40))}`);
    status = Number(m[1]);
    if (status < 100 || status >= 200 || status === 101) break;
    if (informational === MAX_INFORMATIONAL) {
      throw new Error("too many 1xx informational responses");
    }
  }
  let location: string | undefined;
  let length: number | undefined;
  let chunked = false;
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i].indexOf(":");
    if (colon <= 0) continue;
    const name = lines[i].slice(0, colon).trim().toLowerCase();
    const value = lines[i].slice(colon + 1).trim();
    if (name === "location") location ??= value;
    else if (name === "content-length") length = Number(value);
    else if (name === "transfer-encoding") chunked = /chunked/i.test(value);
  }
  const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
  const body = noBody ? new Uint8Array(0) : await readBody(conn, rest, {
    chunked,
    length: chunked ? undefined : length,
    maxBody,
  });
  return { status, location, body };
}

/**
 * One response head (without its blank line) and the bytes read past it. `pending`: bytes already
 * read past an earlier head, looked at before reading more.
 */
async function readHead(
  conn: Deno.Conn,
  buf: Uint8Array,
  pending: Uint8Array,
): Promise<{ head: string; rest: Uint8Array }> {
  let head = pending.length > 0 ? bytes.decode(pending) : "";
  let end = head.indexOf(CRLF2);
  if (end >= 0) return { head: head.slice(0, end), rest: pending.subarray(end + 4) };
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) throw new Error("EOF before the end of the response head");
    const from = Math.max(0, head.length - 3);
    head += bytes.decode(buf.subarray(0, n));
    end = head.indexOf(CRLF2, from);
    // Bytes past the head already read belong to what follows it; latin1 keeps one char a byte.
    if (end >= 0) {
      return { head: head.slice(0, end), rest: buf.slice(n - (head.length - end - 4), n) };
    }
    if (head.length > MAX_HEAD_BYTES) throw new Error("response head too large");
  }
}

/** The body: de-chunked if chunked, else `length` bytes or up to EOF; at most `maxBody`. */
async function readBody(
  conn: Deno.Conn,
  first: Uint8Array,
  opts: { chunked: boolean; length: number | undefined; maxBody: number },
): Promise<Uint8Array> {
  const want = Math.min(opts.maxBody, opts.length ?? Infinity);
  // Raw bytes as read; de-chunked at the end (a probe body is at most 10 KiB).
  let raw = first;
  const buf = new Uint8Array(16 * 1024);
  for (;;) {
    if (opts.chunked) {
      const decoded = dechunk(raw, want);
      if (decoded.done || decoded.body.length >= want) return decoded.body.subarray(0, want);
    } else if (raw.length >= want) return raw.subarray(0, want);
    const n = await conn.read(buf);
    if (n === null) break;
    const next = new Uint8Array(raw.length + n);
    next.set(raw);
    next.set(buf.subarray(0, n), raw.length);
    raw = next;
  }
  if (opts.chunked) return dechunk(raw, want).body.subarray(0, want);
  return raw.subarray(0, want);
}

/** Chunked transfer coding → the body so far; `done` once the last chunk was seen. */
export function dechunk(raw: Uint8Array, limit: number): { body: Uint8Array; done: boolean } {
  const parts: Uint8Array[] = [];
  let size = 0;
  let pos = 0;
  const text = bytes.decode(raw);
  for (;;) {
    const eol = text.indexOf("\r\n", pos);
    if (eol < 0) break;
    const len = parseInt(text.slice(pos, eol).split(";")[0].trim(), 16);
    if (!Number.isFinite(len)) throw new Error("malformed chunked body");
    if (len === 0) return { body: join(parts, size), done: true };
    const start = eol + 2;
    const end = Math.min(start + len, raw.length);
    parts.push(raw.subarray(start, end));
    size += end - start;
    if (end < start + len || size >= limit) break;
    pos = start + len + 2;
  }
  return { body: join(parts, size), done: false };
}

function join(parts: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}
