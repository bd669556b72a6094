/**
 * Fakes for the cluster loops: an ApiClient whose answers a test scripts (and which records
 * every request), the `api` source's store fed by a hand-driven reflector, and a kubelet view.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type {
  ApiClient,
  ApiRequest,
  ReflectorOptions,
  WatchEvent,
} from "../../src/apiclient/mod.ts";
import type { PodWorkState } from "../../src/kubelet/mod.ts";
import { type ApiPodStore, createApiSource } from "../../src/sources/api_source.ts";
import type { PodSourceUpdate } from "../../src/sources/types.ts";
import type { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

/**
 * An answer: a value, an error to throw, a promise of a value (answers when it settles), or
 * "hang" (never answers until aborted).
 */
export type Answer = unknown | Error | "hang";

export class ScriptedApi implements ApiClient {
  readonly server = "https://fake";
  readonly requests: ApiRequest[] = [];
  /** Decides each answer; by default the request's body comes back (as for a write). */
  answer: (req: ApiRequest) => Answer = (req) => req.body;

  request<T>(req: ApiRequest, opts?: { signal?: AbortSignal }): Promise<T> {
    this.requests.push(structuredClone(req));
    const a = this.answer(req);
    if (a === "hang") {
      return new Promise((_, reject) => {
        opts?.signal?.addEventListener("abort", () => reject(opts.signal!.reason), { once: true });
      });
    }
    if (a instanceof Error) return Promise.reject(a);
    if (a instanceof Promise) return a.then((v) => structuredClone(v) as T);
    return Promise.resolve(structuredClone(a) as T);
  }

  // deno-lint-ignore require-yield
  async *watch<T>(): AsyncIterable<WatchEvent<T>> {
    throw new Error("the cluster tests drive the store directly");
  }

  close(): void {}

  calls(method: string): ApiRequest[] {
    return this.requests.filter((r) => r.method === method);
  }
}

/** The `api` source's store, listed and changed by hand; `updates` are its snapshots. */
export interface DrivenStore {
  store: ApiPodStore;
  updates: PodSourceUpdate[];
  list(pods: V1Pod[], rv?: string): void;
  event(type: "ADDED" | "MODIFIED" | "DELETED", pod: V1Pod): void;
  stop(): Promise<void>;
}

export function drivenStore(clock: FakeClock, nodeName = "node1"): DrivenStore {
  let reflector: ReflectorOptions<V1Pod> | undefined;
  const source = createApiSource({
    client: new ScriptedApi(),
    reflector: (opts, run) => {
      reflector = opts;
      return new Promise((resolve) => run.signal.addEventListener("abort", () => resolve()));
    },
    nodeName,
    clock,
    logger: nullLogger,
  });
  const updates: PodSourceUpdate[] = [];
  const ac = new AbortController();
  const done = source.run((u) => updates.push(u), { signal: ac.signal });
  return {
    store: source.store,
    updates,
    list: (pods, rv = "1") => reflector!.onList(structuredClone(pods), rv),
    event: (type, pod) => reflector!.onEvent(type, structuredClone(pod)),
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

/** The kubelet as the cluster loops read it. */
export class FakeKubelet {
  readonly pods = new Map<string, V1Pod>();
  readonly states = new Map<string, PodWorkState>();
  readonly podManager = {
    pods: () => [...this.pods.values()],
    get: (uid: string) => this.pods.get(uid),
  };

  podWorkState(uid: string): PodWorkState | undefined {
    return this.states.get(uid);
  }

  add(pod: V1Pod, state: PodWorkState = "syncing"): void {
    this.pods.set(pod.metadata!.uid!, pod);
    this.states.set(pod.metadata!.uid!, state);
  }
}

export async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}
