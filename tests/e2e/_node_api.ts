/**
 * Clients for the node API end-to-end suites: HTTPS with the agent's generated serving CA and
 * an optional client certificate, and a minimal WebSocket client speaking the
 * `v4.channel.k8s.io` exec protocol (channel byte, then data) over TLS.
 */

export interface TlsIdentity {
  /** Where the node API listens (default 127.0.0.1). */
  host?: string;
  /** CAs to trust for the serving certificate. */
  caCerts: string[];
  /** A bearer token (`Authorization: Bearer ...`). */
  token?: string;
  /** Client certificate and key (PEM), for client-certificate authentication. */
  cert?: string;
  key?: string;
}

/** The CA of the agent's self-signed pair: the second certificate of `<certDir>/kubelet.crt`. */
export async function servingCA(certDir: string): Promise<string> {
  const pem = await Deno.readTextFile(`${certDir}/kubelet.crt`);
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----\n/g);
  if (!blocks || blocks.length < 2) {
    throw new Error(`${certDir}/kubelet.crt has no CA after the leaf`);
  }
  return blocks[1];
}

/** One HTTPS request to the node API; the caller reads the body. */
export async function nodeFetch(
  port: number,
  path: string,
  id: TlsIdentity,
  init: RequestInit = {},
): Promise<Response> {
  const client = Deno.createHttpClient({ caCerts: id.caCerts, cert: id.cert, key: id.key });
  try {
    const headers = new Headers(init.headers);
    if (id.token) headers.set("authorization", `Bearer ${id.token}`);
    const res = await fetch(`https://${id.host ?? "127.0.0.1"}:${port}${path}`, {
      ...init,
      headers,
      client,
    });
    // The body is read after the client is closed: buffer it first.
    const body = await res.arrayBuffer();
    return new Response(body, { status: res.status, headers: res.headers });
  } finally {
    client.close();
  }
}

/** Streams a response body until `until` holds for the text read so far (or `maxMs` passes). */
export async function readStreamUntil(
  port: number,
  path: string,
  id: TlsIdentity,
  until: (text: string) => boolean,
  maxMs: number,
): Promise<string> {
  const client = Deno.createHttpClient({ caCerts: id.caCerts, cert: id.cert, key: id.key });
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), maxMs);
  let text = "";
  try {
    const res = await fetch(`https://${id.host ?? "127.0.0.1"}:${port}${path}`, {
      client,
      signal: ac.signal,
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    try {
      while (!until(text)) {
        const { done, value } = await reader.read();
        if (done) break;
        text += value;
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    client.close();
  }
  return text;
}

export interface ChannelResult {
  /** The HTTP status of the upgrade answer (101 when it switched). */
  status: number;
  /** The answer's head when it did not switch, with its body. */
  refusal?: string;
  /** Data by channel number (1 stdout, 2 stderr, 3 the exec status). */
  channels: Record<number, string>;
}

/**
 * Runs one exec (or attach) over a WebSocket with the `v4.channel.k8s.io` subprotocol and
 * collects what each channel carried until the server closes. With `protocol: "binary.k8s.io"`
 * (the API server's log stream) frames carry no channel byte: all data lands in channel 0.
 */
export async function webSocketExec(
  port: number,
  path: string,
  id: TlsIdentity,
  opts: { timeoutMs?: number; protocol?: "v4.channel.k8s.io" | "binary.k8s.io" } = {},
): Promise<ChannelResult> {
  const protocol = opts.protocol ?? "v4.channel.k8s.io";
  const channelled = protocol === "v4.channel.k8s.io";
  const conn = await Deno.connectTls({
    hostname: id.host ?? "127.0.0.1",
    port,
    caCerts: id.caCerts,
    ...(id.cert ? { cert: id.cert, key: id.key } : {}),
  });
  const timer = setTimeout(() => conn.close(), opts.timeoutMs ?? 60_000);
  try {
    const key = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));
    await conn.write(new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\n` +
        `Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n` +
        `Sec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
    ));
    let buf = new Uint8Array(0);
    const more = async (): Promise<boolean> => {
      const chunk = new Uint8Array(65536);
      let n: number | null;
      try {
        n = await conn.read(chunk);
      } catch (err) {
        // Closed by the timer, or reset by the peer: no more data either way.
        if (err instanceof Deno.errors.BadResource || err instanceof Deno.errors.ConnectionReset) {
          return false;
        }
        throw err;
      }
      if (n === null) return false;
      const next = new Uint8Array(buf.length + n);
      next.set(buf);
      next.set(chunk.subarray(0, n), buf.length);
      buf = next;
      return true;
    };
    let headEnd = -1;
    while ((headEnd = indexOf(buf, "\r\n\r\n")) < 0) {
      if (!(await more())) throw new Error("connection closed before the upgrade answer");
    }
    const head = new TextDecoder().decode(buf.subarray(0, headEnd));
    const status = Number(head.split(" ")[1]);
    buf = buf.subarray(headEnd + 4);
    if (status !== 101) {
      while (await more());
      return { status, refusal: head + "\n\n" + new TextDecoder().decode(buf), channels: {} };
    }
    const channels: Record<number, string> = {};
    for (;;) {
      const frame = parseFrame(buf);
      if (frame === undefined) {
        if (!(await more())) break;
        continue;
      }
      buf = buf.subarray(frame.size);
      if (frame.opcode === 8) break;
      if (
        (frame.opcode === 2 || frame.opcode === 1 || frame.opcode === 0) && frame.payload.length > 0
      ) {
        const ch = channelled ? frame.payload[0] : 0;
        const data = channelled ? frame.payload.subarray(1) : frame.payload;
        channels[ch] = (channels[ch] ?? "") + new TextDecoder().decode(data);
      }
    }
    return { status, channels };
  } finally {
    clearTimeout(timer);
    closeQuietly(conn);
  }
}

function indexOf(buf: Uint8Array, s: string): number {
  const pat = new TextEncoder().encode(s);
  outer: for (let i = 0; i + pat.length <= buf.length; i++) {
    for (let j = 0; j < pat.length; j++) if (buf[i + j] !== pat[j]) continue outer;
    return i;
  }
  return -1;
}

/** One unmasked server frame, or undefined when `buf` does not hold all of it yet. */
function parseFrame(
  buf: Uint8Array,
): { opcode: number; payload: Uint8Array; size: number } | undefined {
  if (buf.length < 2) return undefined;
  const opcode = buf[0] & 0x0f;
  let len = buf[1] & 0x7f;
  let at = 2;
  if (len === 126) {
    if (buf.length < 4) return undefined;
    len = (buf[2] << 8) | buf[3];
    at = 4;
  } else if (len === 127) {
    if (buf.length < 10) return undefined;
    len = 0;
    for (let i = 2; i < 10; i++) len = len * 256 + buf[i];
    at = 10;
  }
  if (buf[1] & 0x80) at += 4; // a masked frame: servers do not send them
  if (buf.length < at + len) return undefined;
  return { opcode, payload: buf.subarray(at, at + len), size: at + len };
}

/** Closes `conn` unless the timer (or the peer) already did. */
function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch (err) {
    if (!(err instanceof Deno.errors.BadResource)) throw err;
  }
}

/**
 * Agent flags that open the authenticated port on loopback to anonymous requests (a standalone
 * agent has no API server for Webhook modes): for suites that read denolet's own paths (`/node`,
 * `/sources`), which the read-only port does not serve.
 */
export function nodeApiArgs(port: number): string[] {
  return [
    "--port",
    String(port),
    "--address",
    "127.0.0.1",
    "--anonymous-auth=true",
    "--authentication-token-webhook=false",
    "--authorization-mode=AlwaysAllow",
  ];
}

/** GET `path` on the authenticated port of an agent started with `nodeApiArgs(port)`. */
export async function nodeApiGet(
  agent: { rootDir: string },
  port: number,
  path: string,
): Promise<Response> {
  return await nodeFetch(port, path, { caCerts: [await servingCA(`${agent.rootDir}/pki`)] });
}

/**
 * A JSON page of an agent started with `nodeApiArgs(port)`: `/node` from the authenticated port
 * (the read-only one does not serve it), any other path from the read-only port; undefined
 * unless it answers 200.
 */
export async function agentJson<T>(
  agent: { rootDir: string; get(path: string): Promise<Response> },
  port: number,
  path: string,
): Promise<T | undefined> {
  const res = path === "/node" ? await nodeApiGet(agent, port, path) : await agent.get(path);
  if (res.status !== 200) {
    await res.body?.cancel();
    return undefined;
  }
  return await res.json() as T;
}
