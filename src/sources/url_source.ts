import { concat } from "./_fs.ts";
import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import { DenoletError, InvalidManifestError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { type Problem, SnapshotEmitter } from "./_snapshot.ts";
import { manifestText, MAX_MANIFEST_BYTES, reasonOf, staticPodsFromBody } from "./manifest.ts";
import type { PodSource, PodSourceUpdate } from "./types.ts";
import { sha256Hex } from "../util/digest.ts";

export interface UrlSourceOptions {
  nodeName: string;
  /** --manifest-url-header: sent with every request, each value as its own header line. */
  headers: Record<string, string[]>;
  /** httpCheckFrequency: time between the end of one GET and the start of the next. */
  checkFrequencyMs: number;
  clock: Clock;
  logger: Logger;
  fetch?: typeof fetch;
  /** Per-request deadline; default 10 s as upstream's client. */
  timeoutMs?: number;
}

/**
 * The outcome of decoding one body, cached so an unchanged body is not decoded again. `empty`:
 * the body held nothing but white space.
 */
type Decoded = { pods: V1Pod[]; empty: boolean } | { problem: Problem };

/**
 * Static pods from `--manifest-url` (pkg/kubelet/config/http.go). Each GET's body is a single
 * Pod, a `v1` PodList, or empty (no pods). As upstream, a failed request, a non-200 status or an
 * unusable body keeps the pods from the last good body; here it is also reported as a problem
 * until a good response arrives. Nothing at all is sent until one response was usable: an
 * unreachable server at start must not read as "no pods", which would let housekeeping remove
 * the pods a restarted agent has just adopted.
 */
export function createUrlSource(url: string, opts: UrlSourceOptions): PodSource {
  return new UrlSource(url, opts);
}

class UrlSource implements PodSource {
  readonly name = "http" as const;
  readonly #logger: Logger;
  /** Undefined until a response was usable. */
  #lastPods: V1Pod[] | undefined;
  #cache: { digest: string; decoded: Decoded } | undefined;
  #failures = 0;

  constructor(readonly url: string, readonly opts: UrlSourceOptions) {
    this.#logger = opts.logger.child({ source: "http", url });
  }

  async run(onUpdate: (u: PodSourceUpdate) => void, opts: { signal: AbortSignal }): Promise<void> {
    const { signal } = opts;
    const { clock } = this.opts;
    const emitter = new SnapshotEmitter("http", { clock, logger: this.#logger, onUpdate });
    this.#logger.info("Reading static pods from URL");
    while (!signal.aborted) {
      await this.#pollAndOffer(emitter, signal);
      try {
        await clock.sleep(this.opts.checkFrequencyMs, { signal });
      } catch (e) {
        if (!signal.aborted) throw e;
      }
    }
  }

  /** One GET, offered to the emitter. Never throws: an unexpected error is logged. */
  async #pollAndOffer(emitter: SnapshotEmitter, signal: AbortSignal): Promise<void> {
    try {
      const problem = await this.#poll(signal);
      if (signal.aborted) return;
      // Before the first usable response, only why (#failed logged it too).
      if (this.#lastPods === undefined) {
        if (problem) emitter.offerUnread([problem]);
        return;
      }
      emitter.offer(this.#lastPods, problem ? [problem] : []);
    } catch (error) {
      if (signal.aborted) return;
      this.#logger.error("Reading pods from URL failed; trying again at the next check", {
        error,
      });
    }
  }

  /** One GET; updates the last good pods and returns the problem, if any. */
  async #poll(signal: AbortSignal): Promise<Problem | undefined> {
    let body: Uint8Array;
    try {
      body = await this.#get(signal);
    } catch (e) {
      if (signal.aborted) return undefined;
      return this.#failed(errorMessage(e));
    }
    const digest = await sha256Hex(body);
    if (this.#cache?.digest !== digest) this.#cache = { digest, decoded: this.#decode(body) };
    const decoded = this.#cache.decoded;
    if ("problem" in decoded) return this.#failed(decoded.problem.reason);
    this.#lastPods = decoded.pods;
    if (decoded.empty) {
      // Upstream also treats an empty body as "no pods" (and logs it as an error).
      this.#failed(`zero-length data received from ${this.url}`);
      return undefined;
    }
    if (this.#failures > 0) this.#logger.info("Successfully read pods from URL");
    this.#failures = 0;
    return undefined;
  }

  #decode(bytes: Uint8Array): Decoded {
    try {
      const body = manifestText(bytes, this.url);
      if (body.trim() === "") return { pods: [], empty: true };
      const pods = staticPodsFromBody(body, {
        path: this.url,
        source: "http",
        nodeName: this.opts.nodeName,
      });
      const names = new Set<string>();
      // Upstream's config merge drops a second pod with the same full name: keep the first.
      const unique = pods.filter((p) => {
        const key = `${p.metadata?.namespace}/${p.metadata?.name}`;
        if (names.has(key)) {
          this.#logger.warn("Dropping a pod with a duplicate name", { pod: key });
          return false;
        }
        names.add(key);
        return true;
      });
      return { pods: unique, empty: false };
    } catch (e) {
      if (!(e instanceof InvalidManifestError)) throw e;
      return { problem: { path: this.url, reason: reasonOf(e) } };
    }
  }

  /** Logs like upstream: three warnings, then quietly (verbosity 4) until it works again. */
  #failed(reason: string): Problem {
    const fields = { reason };
    if (this.#failures < 3) this.#logger.warn("Failed to read pods from URL", fields);
    else if (this.#failures === 3) {
      this.#logger.warn("Failed to read pods from URL; further failures logged at -v=4", fields);
    } else this.#logger.debug(4, "Failed to read pods from URL", fields);
    this.#failures++;
    return { path: this.url, reason };
  }

  async #get(signal: AbortSignal): Promise<Uint8Array> {
    const headers = new Headers();
    for (const [name, values] of Object.entries(this.opts.headers)) {
      for (const v of values) headers.append(name, v);
    }
    const timeoutMs = this.opts.timeoutMs ?? 10_000;
    const request = new AbortController();
    const onAbort = () => request.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const deadline = this.#deadline(timeoutMs, request);
    try {
      const res = await (this.opts.fetch ?? fetch)(this.url, {
        method: "GET",
        headers,
        signal: request.signal,
        redirect: "follow",
      });
      if (res.status !== 200) {
        await res.body?.cancel();
        throw new DenoletError(`${this.url}: ${res.status} ${res.statusText}`.trim());
      }
      return await readLimited(res, MAX_MANIFEST_BYTES);
    } catch (e) {
      if (request.signal.aborted && !signal.aborted) {
        throw new DenoletError(`GET ${this.url}: no response within ${timeoutMs} ms`, { cause: e });
      }
      if (e instanceof DenoletError) throw e;
      throw new DenoletError(`GET ${this.url} failed`, { cause: e });
    } finally {
      signal.removeEventListener("abort", onAbort);
      request.abort(); // also cancels the deadline timer
      await deadline;
    }
  }

  /** Aborts `request` after `ms` on the injected clock; settles once the request is aborted. */
  async #deadline(ms: number, request: AbortController): Promise<void> {
    try {
      await this.opts.clock.sleep(ms, { signal: request.signal });
    } catch (e) {
      if (request.signal.aborted) return; // the request finished or was cancelled first
      throw e;
    }
    request.abort(new DenoletError(`no response within ${ms} ms`));
  }
}

async function readLimited(res: Response, maxBytes: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > maxBytes) {
      await reader.cancel();
      throw new DenoletError(`response is larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return concat(chunks, total);
}
