/**
 * An in-memory API server for the object managers: ConfigMaps and Secrets by namespace and name,
 * lists and watches with `fieldSelector=metadata.name=<name>` (all a kubelet may do), and
 * scripted TokenRequest answers. Every request is recorded.
 */
import type {
  ApiClient,
  ApiRequest,
  RequestOptions,
  WatchEvent,
  WatchOptions,
} from "../../src/apiclient/mod.ts";
import { ApiError, ApiUnavailableError } from "../../src/apiclient/mod.ts";

interface Obj {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  [k: string]: unknown;
}

interface Watcher {
  path: string;
  name: string;
  push(ev: WatchEvent<Obj>): void;
}

const COLLECTION = /^\/api\/v1\/namespaces\/([^/]+)\/(configmaps|secrets)$/;
const TOKEN = /^\/api\/v1\/namespaces\/([^/]+)\/serviceaccounts\/([^/]+)\/token$/;

export class FakeApi implements ApiClient {
  readonly server = "https://fake";
  readonly requests: ApiRequest[] = [];
  readonly #objects = new Map<string, Obj>();
  readonly #watchers = new Set<Watcher>();
  #rv = 100;
  /** Lists of these paths never answer (a slow or unreachable API server). */
  hangLists = false;
  /** Every request and watch is refused, as by a stopped API server. */
  down = false;
  /** Answers TokenRequests; default a token named after the count with the asked lifetime. */
  token?: (req: ApiRequest, n: number) => unknown;
  tokenCalls = 0;
  /** Set to make TokenRequests fail. */
  tokenError?: Error;
  /** The time TokenRequest answers count from (ms), e.g. a FakeClock's now. */
  now = () => Date.UTC(2026, 0, 1);

  /** Creates or replaces an object; watchers of its name see ADDED or MODIFIED. */
  put(resource: "configmaps" | "secrets", obj: Obj): void {
    const k = `${obj.metadata.namespace}/${resource}/${obj.metadata.name}`;
    const type = this.#objects.has(k) ? "MODIFIED" : "ADDED";
    const stored = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.#rv) } };
    this.#objects.set(k, stored);
    this.#notify(`/api/v1/namespaces/${obj.metadata.namespace}/${resource}`, {
      type,
      object: stored,
    });
  }

  remove(resource: "configmaps" | "secrets", namespace: string, name: string): void {
    const k = `${namespace}/${resource}/${name}`;
    const obj = this.#objects.get(k);
    if (!obj) return;
    this.#objects.delete(k);
    const gone = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(++this.#rv) } };
    this.#notify(`/api/v1/namespaces/${namespace}/${resource}`, { type: "DELETED", object: gone });
  }

  /** Open watches, as `path name`. */
  watches(): string[] {
    return [...this.#watchers].map((w) => `${w.path} ${w.name}`);
  }

  #notify(path: string, ev: WatchEvent<Obj>): void {
    for (const w of this.#watchers) {
      if (w.path === path && w.name === ev.object.metadata.name) w.push(ev);
    }
  }

  request<T>(req: ApiRequest, opts: RequestOptions = {}): Promise<T> {
    this.requests.push(req);
    if (this.down) {
      return Promise.reject(
        new ApiUnavailableError(`${req.method} ${req.path}: connection refused`),
      );
    }
    const token = TOKEN.exec(req.path);
    if (token && req.method === "POST") {
      this.tokenCalls++;
      if (this.tokenError) return Promise.reject(this.tokenError);
      const body = req.body as { spec: { expirationSeconds: number } };
      const answer = this.token?.(req, this.tokenCalls) ?? {
        spec: body.spec,
        status: {
          token: `token-${this.tokenCalls}`,
          expirationTimestamp: new Date(this.now() + body.spec.expirationSeconds * 1000)
            .toISOString(),
        },
      };
      return Promise.resolve(answer as T);
    }
    const m = COLLECTION.exec(req.path);
    if (!m || req.method !== "GET") {
      return Promise.reject(new ApiError(404, "NotFound", `no route ${req.method} ${req.path}`));
    }
    if (this.hangLists) {
      // Answers only the caller's abort, as a real request would.
      return new Promise<T>((_, reject) =>
        opts.signal?.addEventListener("abort", () => reject(opts.signal?.reason), { once: true })
      );
    }
    const name = String(req.query?.fieldSelector ?? "").replace(/^metadata\.name=/, "");
    const obj = this.#objects.get(`${m[1]}/${m[2]}/${name}`);
    return Promise.resolve({
      metadata: { resourceVersion: String(this.#rv) },
      items: obj ? [obj] : [],
    } as T);
  }

  async *watch<T>(path: string, opts: WatchOptions): AsyncIterable<WatchEvent<T>> {
    if (this.down) throw new ApiUnavailableError(`watch ${path}: connection refused`);
    const name = String(opts.query?.fieldSelector ?? "").replace(/^metadata\.name=/, "");
    const queue: WatchEvent<Obj>[] = [];
    let wake = () => {};
    const watcher: Watcher = {
      path,
      name,
      push(ev) {
        queue.push(ev);
        wake();
      },
    };
    this.#watchers.add(watcher);
    const onAbort = () => wake();
    opts.signal.addEventListener("abort", onAbort);
    try {
      while (!opts.signal.aborted) {
        const ev = queue.shift();
        if (ev) {
          yield ev as WatchEvent<T>;
          continue;
        }
        await new Promise<void>((resolve) => wake = resolve);
      }
    } finally {
      opts.signal.removeEventListener("abort", onAbort);
      this.#watchers.delete(watcher);
    }
  }

  close(): void {}
}

/** Lets queued promise callbacks run (the fake answers at once). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}
