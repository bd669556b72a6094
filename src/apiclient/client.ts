/**
 * A lean Kubernetes API client on Deno's fetch: JSON requests and watch streams over one TLS
 * identity (HTTP/2 when the server offers it, so watches share a connection), with client-go's
 * rate limiting and credential refresh. Each client has connections of its own (the heartbeat
 * client's are not the pods' and watches'), probes them when they go silent, and closes them
 * all on `closeConnections` (kubelet's closeAllConns after a failed heartbeat).
 * `@kubernetes/client-node` is used for its types only:
 * its KubeConfig alone costs about 74 MB of resident memory here, three times the API mode's
 * whole budget (tests/bench/RESULTS.md, API client candidates).
 */
import { decodeObject, decodeStatus, encodeEnvelope, PROTOBUF_CONTENT_TYPE } from "./protobuf.ts";
import { type Clock, deadlineSignal } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { errorMessage } from "../util/log.ts";
import { type Credentials, CredentialSource } from "./_credentials.ts";
import { IdleProbe } from "./_idle_probe.ts";
import type { Connection, ExecPlugin } from "./_kubeconfig.ts";
import { RateLimiter } from "./_rate_limiter.ts";
import { decodeWatchStream } from "./_watch_stream.ts";
import {
  type ApiClient,
  ApiError,
  type ApiRequest,
  ApiUnavailableError,
  type RequestOptions,
  type WatchEvent,
  type WatchOptions,
} from "./types.ts";

export interface ApiClientOptions {
  clock: Clock;
  logger: Logger;
  /** --kube-api-qps / --kube-api-burst (upstream 50 / 100); qps 0 (or less): no limit. */
  qps: number;
  burst: number;
  userAgent: string;
  /** Default per-request deadline; default 10 s. */
  timeoutMs?: number;
  /** Silent-connection probe: read-idle time before a ping, and the ping's deadline (30 s, 15 s). */
  readIdleMs?: number;
  pingTimeoutMs?: number;
  readFile?: (path: string) => Promise<string>;
  runPlugin?: (plugin: ExecPlugin, env: Record<string, string>) => Promise<string>;
  /**
   * Called once per request and once per watch as it ends, with what crossed the wire in
   * bodies (headers and TLS not counted): where the uplink's bytes go. Must be cheap.
   */
  observe?: (r: RequestRecord) => void;
}

/**
 * One request's account: `code` 0 when no answer came. A watch reports each chunk as it comes
 * (`partial`, only its bytes), then itself once when it ends.
 */
export interface RequestRecord {
  method: string;
  path: string;
  watch: boolean;
  code: number;
  sentBytes: number;
  receivedBytes: number;
  partial?: boolean;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** The answer as its metadata alone (the API server's transformation for `as=`). */
const PARTIAL_METADATA = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
const DECODER = new TextDecoder();

export function createApiClient(conn: Connection, opts: ApiClientOptions): ApiClient {
  return new FetchApiClient(conn, opts);
}

class FetchApiClient implements ApiClient {
  readonly server: string;
  readonly #conn: Connection;
  readonly #opts: ApiClientOptions;
  readonly #creds: CredentialSource;
  readonly #limiter: RateLimiter;
  /**
   * One HTTP client per TLS identity (its pool holds the connections), replaced when the client
   * certificate changes or the connections are closed; `closed` aborts whatever uses them.
   */
  #http?: { cert?: string; key?: string; client: Deno.HttpClient; closed: AbortController };
  readonly #probe: IdleProbe;
  #closed = false;

  constructor(conn: Connection, opts: ApiClientOptions) {
    this.server = conn.server;
    this.#conn = conn;
    this.#opts = opts;
    this.#creds = new CredentialSource(conn, {
      clock: opts.clock,
      readFile: opts.readFile,
      runPlugin: opts.runPlugin,
    });
    this.#limiter = new RateLimiter({ qps: opts.qps, burst: opts.burst, clock: opts.clock });
    this.#probe = new IdleProbe({
      clock: opts.clock,
      readIdleMs: opts.readIdleMs,
      pingTimeoutMs: opts.pingTimeoutMs,
      ping: (signal) => this.#ping(signal),
      onSilent: (reason) => {
        opts.logger.warn("The connection to the API server went silent; closing it", {
          server: conn.server,
          reason,
        });
        this.closeConnections(reason);
      },
    });
  }

  async request<T>(req: ApiRequest, opts: RequestOptions = {}): Promise<T> {
    const timeoutMs = opts.timeoutMs ?? this.#opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = deadlineSignal(this.#opts.clock, timeoutMs, {
      parent: opts.signal,
      reason: () =>
        new ApiUnavailableError(`${req.method} ${req.path}: no answer in ${timeoutMs} ms`),
    });
    const end = this.#probe.begin();
    const record = this.#record(req, false);
    try {
      const res = await this.#send(req, deadline.signal);
      record.code = res.status;
      const bytes = await res.bytes();
      record.receivedBytes = bytes.byteLength;
      if (req.protobuf && res.headers.get("content-type")?.startsWith(PROTOBUF_CONTENT_TYPE)) {
        if (!res.ok) throw protobufApiError(req, res.status, bytes);
        return decodeObject(req.protobuf, bytes) as T;
      }
      const text = DECODER.decode(bytes);
      if (!res.ok) throw apiError(req, res.status, text);
      return (text === "" ? undefined : JSON.parse(text)) as T;
    } catch (e) {
      throw this.#wrap(req, e, deadline.signal, opts.signal);
    } finally {
      end();
      deadline.cancel();
      this.#opts.observe?.(record);
    }
  }

  #record(req: ApiRequest, watch: boolean): RequestRecord {
    // The body is serialized again by #fetch; its length is what matters here, and a
    // request body is small (a patch, a lease).
    const sentBytes = req.body === undefined || !this.#opts.observe
      ? 0
      : req.protobuf && req.method !== "PATCH"
      ? encodeEnvelope(req.protobuf, req.body).byteLength
      : JSON.stringify(req.body).length;
    return { method: req.method, path: req.path, watch, code: 0, sentBytes, receivedBytes: 0 };
  }

  async *watch<T>(path: string, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const req: ApiRequest = { method: "GET", path, query: { ...opts.query, watch: true } };
    const end = this.#probe.begin();
    const record = this.#record(req, true);
    try {
      let res: Response;
      try {
        res = await this.#send(req, opts.signal);
        record.code = res.status;
        if (!res.ok) throw apiError(req, res.status, await res.text());
      } catch (e) {
        if (opts.signal.aborted) return;
        throw this.#wrap(req, e, opts.signal, opts.signal);
      }
      try {
        const observe = this.#opts.observe;
        const read = (n: number) => {
          observe?.({ ...record, sentBytes: 0, receivedBytes: n, partial: true });
          this.#probe.read();
        };
        for await (const event of decodeWatchStream<T>(res.body!, { onChunk: read })) yield event;
      } catch (e) {
        if (opts.signal.aborted) return;
        if (e instanceof ApiUnavailableError) throw e; // its connections were closed
        throw new ApiUnavailableError(`watch ${path} broke: ${errorMessage(e)}`, { cause: e });
      } finally {
        await res.body?.cancel().catch(() => undefined); // already closed or errored
      }
    } finally {
      end();
      this.#opts.observe?.(record);
    }
  }

  closeConnections(reason: string): void {
    const h = this.#http;
    if (!h) return;
    this.#http = undefined;
    this.#opts.logger.debug(2, "Closing the connections to the API server", {
      server: this.server,
      reason,
    });
    h.closed.abort(
      new ApiUnavailableError(`the connection to ${this.server} was closed: ${reason}`),
    );
    h.client.close();
  }

  close(): void {
    this.#closed = true;
    this.#probe.stop();
    const h = this.#http;
    this.#http = undefined;
    h?.closed.abort(new ApiUnavailableError("the API client is closed"));
    h?.client.close();
  }

  /**
   * Any answer to a small GET on the current connection shows it carries bytes. /livez answers
   * "ok" to anyone (system:public-info-viewer): on an idle node this runs twice a minute, and
   * its answer is a tenth of /version's (Deno's fetch cannot send HTTP/2 PING frames).
   */
  async #ping(signal: AbortSignal): Promise<void> {
    if (!this.#http) return; // nothing open: the next request dials anyway
    const creds = await this.#creds.get();
    const res = await this.#fetch({ method: "GET", path: "/livez" }, creds, signal);
    await res.body?.cancel();
  }

  /** Sends once; a 401 with refreshable credentials is retried once with fresh ones. */
  async #send(req: ApiRequest, signal: AbortSignal): Promise<Response> {
    if (this.#closed) throw new ApiUnavailableError("the API client is closed");
    await this.#limiter.acquire({ signal });
    let creds = await this.#creds.get();
    let res = await this.#fetch(req, creds, signal);
    if (res.status === 401 && this.#creds.refreshable) {
      await res.body?.cancel();
      this.#creds.invalidate();
      creds = await this.#creds.get();
      res = await this.#fetch(req, creds, signal);
    }
    return res;
  }

  async #fetch(req: ApiRequest, creds: Credentials, signal: AbortSignal): Promise<Response> {
    const url = new URL(this.server + req.path);
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers = new Headers({
      "Accept": req.metadataOnly
        ? `${PARTIAL_METADATA}, application/json`
        : req.protobuf
        ? `${PROTOBUF_CONTENT_TYPE}, application/json`
        : "application/json",
      "User-Agent": this.#opts.userAgent,
    });
    if (creds.authorization) headers.set("Authorization", creds.authorization);
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (req.body !== undefined && req.protobuf && req.method !== "PATCH") {
      body = encodeEnvelope(req.protobuf, req.body);
      headers.set("Content-Type", PROTOBUF_CONTENT_TYPE);
    } else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers.set(
        "Content-Type",
        req.method === "PATCH"
          ? (req.patchType ?? "application/merge-patch+json")
          : "application/json",
      );
    }
    const http = this.#httpClient(creds);
    const res = await fetch(url, {
      method: req.method,
      headers,
      body,
      signal: AbortSignal.any([signal, http.closed.signal]),
      client: http.client,
    });
    this.#probe.read();
    return res;
  }

  #httpClient(creds: Credentials): { client: Deno.HttpClient; closed: AbortController } {
    const h = this.#http;
    if (h && h.cert === creds.cert && h.key === creds.key) return h;
    // A rotated certificate: new connections use it; the old client goes once replaced.
    h?.client.close();
    const options: Deno.CreateHttpClientOptions = {};
    if (this.#conn.caCert) options.caCerts = [this.#conn.caCert];
    const client = creds.cert && creds.key
      ? Deno.createHttpClient({ ...options, cert: creds.cert, key: creds.key })
      : Deno.createHttpClient(options);
    this.#http = { cert: creds.cert, key: creds.key, client, closed: new AbortController() };
    return this.#http;
  }

  #wrap(req: ApiRequest, e: unknown, signal: AbortSignal, caller?: AbortSignal): unknown {
    if (e instanceof ApiError || e instanceof ApiUnavailableError) return e;
    if (caller?.aborted) return caller.reason;
    if (signal.aborted) return signal.reason;
    return new ApiUnavailableError(`${req.method} ${req.path} failed: ${errorMessage(e)}`, {
      cause: e,
    });
  }
}

/** A protobuf `Status` answer as an ApiError. */
function protobufApiError(req: ApiRequest, status: number, bytes: Uint8Array): ApiError {
  let reason = "";
  let message = "";
  try {
    ({ reason, message } = decodeStatus(bytes));
  } catch {
    message = "(an undecodable protobuf answer)";
  }
  return new ApiError(status, reason, `${req.method} ${req.path}: ${status} ${reason}: ${message}`);
}

/** The API server's `Status` body, if it sent one, as an ApiError. */
function apiError(req: ApiRequest, status: number, text: string): ApiError {
  let reason = "";
  let message = text.slice(0, 500);
  try {
    const s = JSON.parse(text) as { reason?: string; message?: string };
    reason = s.reason ?? "";
    message = s.message ?? message;
  } catch {
    // Not JSON (a proxy's page): the raw text, cut, is the message.
  }
  return new ApiError(status, reason, `${req.method} ${req.path}: ${status} ${reason}: ${message}`);
}
