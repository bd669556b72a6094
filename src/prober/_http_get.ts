/**
 * The one HTTP GET behind `httpGet` probes and `httpGet` lifecycle hooks (upstream
 * pkg/probe/http, which pkg/kubelet/lifecycle uses as well): the request is built from the
 * `HTTPGetAction` as `NewRequestForHTTPGetAction` does, and sent with the rules of both upstream
 * clients: no certificate verification, no proxy, redirects followed to the same host only (a
 * redirect elsewhere ends the chain and its 3xx is the answer), at most 10 redirects, at most
 * 10 KiB of body read, a fresh connection each time.
 *
 * Not fetch: it cannot set the Host header, honours the proxy variables, and has no per-request
 * way to skip certificate checks. Plain HTTP goes over a bare TCP connection (`_http_plain.ts`,
 * several times cheaper than node:http), HTTPS through node:https.
 */
import type { V1Container, V1HTTPGetAction } from "@kubernetes/client-node";
import denoJson from "../../deno.json" with { type: "json" };
import { resolveContainerPort } from "./_port.ts";
import { plainGet } from "./_http_plain.ts";

/** Upstream maxRespBodyLength. */
export const MAX_BODY_BYTES = 10 * 1024;
/** Go's http.Client default, which upstream's RedirectChecker keeps. */
const MAX_REDIRECTS = 10;
/** The codes Go's client follows; any other 3xx is an answer, Location or not. */
const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

/** A GET ready to send: the target and the headers (names lower-cased, in spec order). */
export interface HttpGetRequest {
  url: URL;
  headers: Record<string, string | string[]>;
}

/**
 * What one GET came to. A transport problem (refused, reset, TLS, the deadline, too many
 * redirects) is a `failed` result with Go's `url.Error` text, not an exception.
 */
export type HttpGetResult =
  | {
    kind: "answered";
    status: number;
    /** The first MAX_BODY_BYTES of the body, decoded as UTF-8. */
    body: string;
  }
  | {
    kind: "failed";
    /** `Get "<url>": <why>`, as upstream shows it in probe output and hook errors. */
    message: string;
    /** An HTTPS request that a plain-HTTP server answered (hooks retry over HTTP). */
    plainHttpServer: boolean;
  };

/** `kube-<purpose>/<major>.<minor>`: upstream's User-Agent of probes and hooks. */
export function kubeUserAgent(purpose: "probe" | "lifecycle"): string {
  return `kube-${purpose}/${denoJson.version.split(".").slice(0, 2).join(".")}`;
}

/**
 * Upstream `NewRequestForHTTPGetAction`: `scheme://host:port` + `path` (which may carry a
 * query), the host defaulting to the pod IP and the port resolved by name or number as
 * `ResolveContainerPort` does (throws ProbeError when it cannot be); `httpHeaders` in order,
 * then `User-Agent` and `Accept: *\/*` unless given (an empty `Accept` sends none).
 */
export function httpGetRequest(
  action: V1HTTPGetAction,
  opts: {
    container: Pick<V1Container, "name" | "ports">;
    podIP: string;
    userAgent: string;
  },
): HttpGetRequest {
  const port = resolveContainerPort(action.port, opts.container);
  const url = httpGetURL(action.scheme, action.host || opts.podIP, { port, path: action.path });
  const headers: Record<string, string | string[]> = {};
  for (const { name, value } of action.httpHeaders ?? []) {
    const k = name.toLowerCase();
    const prev = headers[k];
    headers[k] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  if (headers["user-agent"] === undefined) headers["user-agent"] = opts.userAgent;
  if (headers["accept"] === undefined) headers["accept"] = "*/*";
  // Go sends neither an empty Accept nor an empty User-Agent, and one Host: the first.
  for (const k of ["accept", "user-agent", "host"]) {
    const v = headers[k];
    const first = Array.isArray(v) ? v[0] : v;
    if (first === "") delete headers[k];
    else if (k === "host" && first !== undefined) headers[k] = first;
  }
  return { url, headers };
}

/**
 * Upstream `formatURL`: the path is parsed on its own (an absolute URL or `//host` in it cannot
 * change the target), then scheme, host and port are set. IPv6 hosts get brackets.
 */
export function httpGetURL(
  scheme: string | undefined,
  host: string,
  opts: { port: number; path?: string },
): URL {
  const s = (scheme || "HTTP").toLowerCase();
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  const url = new URL(`${s}://${h}:${opts.port}`);
  const rel = new URL(opts.path ?? "", "http://path.invalid/");
  url.pathname = rel.pathname;
  url.search = rel.search;
  return url;
}

/**
 * Sends `req`. Resolves with the answer or a `failed` result; rejects only with the reason of
 * `signal` when it aborts (the request is destroyed). `timeoutMs` bounds the whole exchange
 * like Go's Client.Timeout and its expiry is a `failed` result; without it only `signal` ends
 * a request that never answers.
 */
export async function httpGet(
  req: HttpGetRequest,
  opts: { signal?: AbortSignal; timeoutMs?: number },
): Promise<HttpGetResult> {
  const outer = opts.signal;
  const deadline = opts.timeoutMs === undefined ? undefined : AbortSignal.timeout(opts.timeoutMs);
  const signals = [outer, deadline].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
  const headers = { ...req.headers };
  const originalHost = req.url.hostname;
  let current = req.url;
  try {
    for (let hops = 0;; hops++) {
      const reply = await getOnce(current, { headers, signal });
      if (!REDIRECT_CODES.has(reply.status) || reply.location === undefined) {
        return { kind: "answered", status: reply.status, body: reply.body };
      }
      const next = new URL(reply.location, current);
      // Upstream RedirectChecker: another host ends the chain with this response.
      if (next.hostname !== originalHost) {
        return { kind: "answered", status: reply.status, body: reply.body };
      }
      if (hops + 1 >= MAX_REDIRECTS) {
        return failed(next, "stopped after 10 redirects", false);
      }
      // Go keeps a custom Host header only through relative redirects.
      if (/^[a-z][a-z0-9+.-]*:/i.test(reply.location)) delete headers["host"];
      current = next;
    }
  } catch (err) {
    if (outer?.aborted) throw outer.reason;
    if (deadline?.aborted) {
      return failed(
        current,
        "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
        false,
      );
    }
    const code = (err as { code?: unknown })?.code;
    const why = err instanceof Error ? err.message : String(err);
    return failed(current, why, current.protocol === "https:" && code === WRONG_TLS_VERSION);
  }
}

/** What node:https reports when the bytes that came back are not TLS (Go: "server gave HTTP"). */
const WRONG_TLS_VERSION = "ERR_SSL_WRONG_VERSION_NUMBER";

function failed(url: URL, why: string, plainHttpServer: boolean): HttpGetResult {
  return { kind: "failed", message: `Get "${url}": ${why}`, plainHttpServer };
}

interface Reply {
  status: number;
  location: string | undefined;
  body: string;
}

async function getOnce(
  url: URL,
  opts: { headers: Record<string, string | string[]>; signal?: AbortSignal },
): Promise<Reply> {
  if (url.protocol === "https:") return await nodeGetOnce(url, opts);
  const r = await plainGet(url, { ...opts, maxBody: MAX_BODY_BYTES });
  return { status: r.status, location: r.location, body: decoder.decode(r.body) };
}

/** HTTPS through node:https, for its certificate options (no verification, as upstream). */
async function nodeGetOnce(
  url: URL,
  opts: { headers: Record<string, string | string[]>; signal?: AbortSignal },
): Promise<Reply> {
  const { signal } = opts;
  // Loaded on the first HTTPS probe: a bundle evaluates every static node: import at start.
  const { default: mod } = await import("node:https");
  signal?.throwIfAborted();
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    const done = (err: unknown, reply?: Reply) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      if (err === undefined) resolve(reply!);
      else reject(err);
    };
    const req = mod.request({
      method: "GET",
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port,
      path: url.pathname + url.search,
      headers: opts.headers,
      // A fresh connection each time (upstream probes disable keep-alive).
      agent: false,
      // Upstream has no CA to check pod certificates against: InsecureSkipVerify.
      rejectUnauthorized: false,
    }, (res) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const finish = () => {
        res.removeAllListeners("data");
        const body = decoder.decode(concat(chunks, Math.min(size, MAX_BODY_BYTES)));
        done(undefined, { status: res.statusCode ?? 0, location: res.headers.location, body });
        // The rest of a large body is not needed (upstream stops reading too).
        res.destroy();
      };
      res.on("data", (chunk: Uint8Array) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_BODY_BYTES) finish();
      });
      res.on("end", finish);
      res.on("error", (e) => done(e));
    });
    const onAbort = () => {
      req.destroy();
      done(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", (e) => done(e));
    req.end();
  });
}

function concat(chunks: Uint8Array[], limit: number): Uint8Array {
  const out = new Uint8Array(limit);
  let off = 0;
  for (const c of chunks) {
    if (off >= limit) break;
    const part = c.subarray(0, limit - off);
    out.set(part, off);
    off += part.length;
  }
  return out;
}

const decoder = new TextDecoder();
