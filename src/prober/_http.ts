/**
 * httpGet probes (upstream pkg/probe/http): GET with `kube-probe/<ver>` and `Accept: *\/*`,
 * 200–399 success, redirects followed on the same host only, a redirect to another host is a
 * success with a warning, at most 10 KiB of body read, no certificate verification, no proxy,
 * no keep-alive. node:http is used rather than fetch because fetch cannot override the Host
 * header, honours proxy variables, and has no per-request way to skip certificate checks.
 */
import http from "node:http";
import https from "node:https";
import type { ProbeOutput } from "./_prober.ts";

/** Upstream maxRespBodyLength. */
export const MAX_BODY_BYTES = 10 * 1024;
/** Go's http.Client default redirect limit, which the probe's redirect checker keeps. */
const MAX_REDIRECTS = 10;

export interface HttpProbeOptions {
  /** httpHeaders in spec order; repeated names are all sent. */
  headers: [string, string][];
  userAgent: string;
  timeoutMs: number;
  signal: AbortSignal;
}

interface Reply {
  status: number;
  location: string | undefined;
  body: string;
}

export async function httpProbe(url: URL, opts: HttpProbeOptions): Promise<ProbeOutput> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = AbortSignal.any([opts.signal, deadline]);
  const headers = requestHeaders(opts);
  const originalHost = url.hostname;
  let current = url;
  try {
    for (let hops = 0;; hops++) {
      const reply = await get(current, { headers, signal });
      const redirect = reply.status >= 300 && reply.status < 400 && reply.location !== undefined;
      if (redirect) {
        const next = new URL(reply.location!, current);
        if (next.hostname === originalHost) {
          if (hops + 1 >= MAX_REDIRECTS) {
            return { result: "failure", output: `Get "${next}": stopped after 10 redirects` };
          }
          // Go keeps a custom Host header only through relative redirects.
          if (/^[a-z][a-z0-9+.-]*:/i.test(reply.location!)) delete headers["host"];
          current = next;
          continue;
        }
      }
      return verdict(reply);
    }
  } catch (err) {
    if (opts.signal.aborted) throw opts.signal.reason;
    const why = deadline.aborted
      ? "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
      : err instanceof Error
      ? err.message
      : String(err);
    return { result: "failure", output: `Get "${current}": ${why}` };
  }
}

function verdict(reply: Reply): ProbeOutput {
  if (reply.status >= 200 && reply.status < 400) {
    if (reply.status >= 300) {
      return {
        result: "warning",
        output: `Probe terminated redirects, Response body: ${reply.body}`,
      };
    }
    return { result: "success", output: reply.body };
  }
  // Upstream keeps the body out of the failure message (it is user-facing in events).
  return { result: "failure", output: `HTTP probe failed with statuscode: ${reply.status}` };
}

/** Header names lower-cased; defaults added as upstream newProbeRequest does. */
function requestHeaders(opts: HttpProbeOptions): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of opts.headers) {
    const k = name.toLowerCase();
    const prev = out[k];
    out[k] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  if (out["user-agent"] === undefined) out["user-agent"] = opts.userAgent;
  if (out["accept"] === undefined) out["accept"] = "*/*";
  else if (out["accept"] === "") delete out["accept"];
  return out;
}

function get(
  url: URL,
  opts: { headers: Record<string, string | string[]>; signal: AbortSignal },
): Promise<Reply> {
  const { signal } = opts;
  if (signal.aborted) return Promise.reject(signal.reason);
  const secure = url.protocol === "https:";
  const mod = secure ? https : http;
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    const done = (err: unknown, reply?: Reply) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener("abort", onAbort);
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
      agent: false,
      rejectUnauthorized: false,
    }, (res) => {
      const chunks: Uint8Array[] = [];
      let size = 0;
      const finish = () => {
        res.removeAllListeners("data");
        const body = new TextDecoder().decode(concat(chunks, Math.min(size, MAX_BODY_BYTES)));
        done(undefined, { status: res.statusCode ?? 0, location: res.headers.location, body });
        // Stop reading: the rest of a large body is not needed (upstream truncates too).
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
      done(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
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
