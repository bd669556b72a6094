/**
 * A watch-based cache of single objects (pkg/kubelet/util/manager/watch_based_manager.go): while
 * at least one pod references `<namespace>/<name>`, a reflector lists and watches the
 * collection with `fieldSelector=metadata.name=<name>` (all the Node authorizer allows a
 * kubelet) and keeps the object, or its absence, in memory. Reads never call the API server;
 * the first read after registration waits for the first list. A change is reported with the
 * pods using the object, so their volumes are rewritten within seconds. Immutable objects are
 * not watched once read, as upstream.
 */
import type { ApiClient } from "../apiclient/mod.ts";
import { runReflector } from "../apiclient/mod.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import { ObjectNotFoundError } from "./types.ts";

/** The objects this manager caches: ConfigMaps and Secrets carry these fields. */
export interface WatchedObject {
  metadata?: { name?: string; resourceVersion?: string };
  immutable?: boolean;
}

export interface WatchManagerDeps {
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  /** Upstream's word for messages: "configmap" gives `configmap "x" not found`. */
  kind: string;
  /** The collection under a namespace, e.g. "configmaps". */
  resource: string;
  /** An object changed (created, updated, deleted) after its first list: the pods using it. */
  onChange?: (podUids: string[]) => void;
  /** How long a first read waits for the first list; default 5 s. */
  syncTimeoutMs?: number;
  /** Reflector back-off, for tests; default the reflector's. */
  backoffMs?: number;
}

interface Item<T> {
  namespace: string;
  name: string;
  pods: Set<string>;
  stop: AbortController;
  synced: boolean;
  whenSynced: Promise<void>;
  markSynced: () => void;
  object?: T;
}

const DEFAULT_SYNC_TIMEOUT_MS = 5000;

export class WatchManager<T extends WatchedObject> {
  readonly #deps: WatchManagerDeps;
  readonly #items = new Map<string, Item<T>>();
  /** Per pod UID, the keys it references. */
  readonly #pods = new Map<string, Set<string>>();
  /** Every reflector still running (stopped ones finish in the background). */
  readonly #running = new Set<Promise<void>>();
  #closed = false;

  constructor(deps: WatchManagerDeps) {
    this.#deps = deps;
  }

  /**
   * Sets the objects pod `uid` references in `namespace` (replacing what it referenced before):
   * watches start for newly referenced objects and stop for ones no pod references any more.
   * Never blocks. Ignored after close.
   */
  registerPod(uid: string, namespace: string, names: Iterable<string>): void {
    if (this.#closed) return;
    const keys = new Set<string>();
    const before = this.#pods.get(uid) ?? new Set<string>();
    for (const name of names) {
      const k = key(namespace, name);
      keys.add(k);
      if (before.has(k)) continue;
      const item = this.#items.get(k) ?? this.#start(namespace, name);
      item.pods.add(uid);
    }
    for (const k of before) if (!keys.has(k)) this.#release(k, uid);
    if (keys.size) this.#pods.set(uid, keys);
    else this.#pods.delete(uid);
  }

  /** Drops every reference of pod `uid`. Idempotent. */
  unregisterPod(uid: string): void {
    for (const k of this.#pods.get(uid) ?? []) this.#release(k, uid);
    this.#pods.delete(uid);
  }

  /** Whether pod `uid` has references registered. */
  hasPod(uid: string): boolean {
    return this.#pods.has(uid);
  }

  /** Pod UIDs with references registered. */
  pods(): string[] {
    return [...this.#pods.keys()];
  }

  /**
   * The object from the cache. Waits (at most the sync timeout) for the first list of a newly
   * registered object. Throws ObjectNotFoundError when it does not exist, and a DenoletError
   * when it is not registered or its first list did not come in time.
   */
  async get(namespace: string, name: string, opts: { signal?: AbortSignal } = {}): Promise<T> {
    const item = this.#items.get(key(namespace, name));
    if (!item) {
      throw new DenoletError(
        `object ${JSON.stringify(namespace)}/${JSON.stringify(name)} not registered`,
      );
    }
    if (!item.synced) await this.#waitSynced(item, opts.signal);
    if (!item.object) throw new ObjectNotFoundError(this.#deps.kind, namespace, name);
    return item.object;
  }

  /** Stops every watch and waits for them to end. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const items = [...this.#items.values()];
    this.#items.clear();
    this.#pods.clear();
    for (const item of items) item.stop.abort();
    await Promise.all([...this.#running]);
  }

  async #waitSynced(item: Item<T>, signal?: AbortSignal): Promise<void> {
    const timeoutMs = this.#deps.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
    const timer = new AbortController();
    const wake = signal ? AbortSignal.any([timer.signal, signal]) : timer.signal;
    const timedOut = this.#deps.clock.sleep(timeoutMs, { signal: wake }).then(
      () => true,
      () => false, // woken: synced first, or the caller aborted (checked below)
    );
    const outcome = await Promise.race([item.whenSynced.then(() => false), timedOut]);
    timer.abort();
    signal?.throwIfAborted();
    if (outcome && !item.synced) {
      throw new DenoletError(
        `failed to sync ${this.#deps.kind} cache: timed out waiting for the condition`,
      );
    }
  }

  #start(namespace: string, name: string): Item<T> {
    let markSynced = () => {};
    const whenSynced = new Promise<void>((resolve) => markSynced = resolve);
    const item: Item<T> = {
      namespace,
      name,
      pods: new Set(),
      stop: new AbortController(),
      synced: false,
      whenSynced,
      markSynced,
    };
    this.#items.set(key(namespace, name), item);
    const log = this.#deps.logger.child({ [this.#deps.kind]: `${namespace}/${name}` });
    const done = runReflector<T>({
      client: this.#deps.client,
      path: `/api/v1/namespaces/${encodeURIComponent(namespace)}/${this.#deps.resource}`,
      fieldSelector: `metadata.name=${name}`,
      clock: this.#deps.clock,
      logger: log,
      backoffMs: this.#deps.backoffMs,
      onList: (items) => this.#update(item, items.find((o) => o.metadata?.name === name)),
      onEvent: (type, obj) => {
        if (obj.metadata?.name !== name) return;
        this.#update(item, type === "DELETED" ? undefined : obj);
      },
    }, { signal: item.stop.signal }).finally(() => this.#running.delete(done));
    this.#running.add(done);
    return item;
  }

  #update(item: Item<T>, obj: T | undefined): void {
    const before = item.object;
    item.object = obj;
    const wasSynced = item.synced;
    item.synced = true;
    item.markSynced();
    const changed = wasSynced &&
      (before?.metadata?.resourceVersion !== obj?.metadata?.resourceVersion ||
        (before === undefined) !== (obj === undefined));
    if (obj?.immutable === true) {
      // An immutable object never changes again (it can only be deleted and re-created,
      // which a new pod sees): no reason to keep a watch open for it.
      item.stop.abort();
    }
    if (changed && item.pods.size) this.#deps.onChange?.([...item.pods]);
  }

  #release(k: string, uid: string): void {
    const item = this.#items.get(k);
    if (!item) return;
    item.pods.delete(uid);
    if (item.pods.size) return;
    item.stop.abort();
    this.#items.delete(k);
  }
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
