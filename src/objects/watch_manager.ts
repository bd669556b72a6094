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
import type { CheckpointSlot, ObjectsCheckpoint } from "../checkpoint/types.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";
import { ObjectNotFoundError } from "./types.ts";

/** The objects this manager caches: ConfigMaps and Secrets carry these fields. */
export interface WatchedObject {
  metadata?: { name?: string; namespace?: string; resourceVersion?: string };
  immutable?: boolean;
}

export interface WatchManagerDeps<T = WatchedObject> {
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
  /** The objects as last seen: saved after every change, served while unlisted. */
  checkpoint?: CheckpointSlot<ObjectsCheckpoint<T>>;
}

interface Item<T> {
  namespace: string;
  name: string;
  pods: Set<string>;
  stop: AbortController;
  synced: boolean;
  whenSynced: Promise<void>;
  markSynced: () => void;
  /** Resolves at the first failed list (or the first list), whichever comes first. */
  whenAnswered: Promise<void>;
  markAnswered: () => void;
  object?: T;
  /** The checkpoint's version handed out before the first list. */
  served?: T;
}

const DEFAULT_SYNC_TIMEOUT_MS = 5000;

export class WatchManager<T extends WatchedObject> {
  readonly #deps: WatchManagerDeps<T>;
  readonly #items = new Map<string, Item<T>>();
  /** The last version seen of each registered object (from the checkpoint at first). */
  readonly #lastSeen = new Map<string, T>();
  /** What the checkpoint keeps once closed. */
  #final?: T[];
  /** Per pod UID, the keys it references. */
  readonly #pods = new Map<string, Set<string>>();
  /** Every reflector still running (stopped ones finish in the background). */
  readonly #running = new Set<Promise<void>>();
  #closed = false;

  constructor(deps: WatchManagerDeps<T>) {
    this.#deps = deps;
    for (const o of deps.checkpoint?.take()?.objects ?? []) {
      this.#lastSeen.set(key(o.metadata?.namespace ?? "", o.metadata?.name ?? ""), o);
    }
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
   * registered object; with a checkpoint of it, only until that list fails, and then serves the
   * checkpoint's version. Throws ObjectNotFoundError when it does not exist, and a DenoletError
   * when it is not registered or its first list did not come in time.
   */
  async get(namespace: string, name: string, opts: { signal?: AbortSignal } = {}): Promise<T> {
    const k = key(namespace, name);
    const item = this.#items.get(k);
    if (!item) {
      throw new DenoletError(
        `object ${JSON.stringify(namespace)}/${JSON.stringify(name)} not registered`,
      );
    }
    if (!item.synced) {
      const saved = this.#deps.checkpoint ? this.#lastSeen.get(k) : undefined;
      const synced = await this.#waitSynced(item, {
        signal: opts.signal,
        orAnswered: saved !== undefined,
      });
      if (!synced && saved) return this.#serveSaved(item, saved);
      if (!synced) {
        throw new DenoletError(
          `failed to sync ${this.#deps.kind} cache: timed out waiting for the condition`,
        );
      }
    }
    if (!item.object) throw new ObjectNotFoundError(this.#deps.kind, namespace, name);
    return item.object;
  }

  /** Stops every watch and waits for them to end. Idempotent. */
  async close(): Promise<void> {
    // A write still pending saves the objects as they were, not the emptied cache.
    this.#final ??= this.#current();
    this.#closed = true;
    const items = [...this.#items.values()];
    this.#items.clear();
    this.#pods.clear();
    for (const item of items) item.stop.abort();
    await Promise.all([...this.#running]);
  }

  /**
   * Waits for the item's first list, at most the sync timeout (or, `orAnswered`, until a list
   * failed). Returns whether it is synced; throws only when the caller aborts.
   */
  async #waitSynced(
    item: Item<T>,
    opts: { signal?: AbortSignal; orAnswered: boolean },
  ): Promise<boolean> {
    const { signal } = opts;
    const timeoutMs = this.#deps.syncTimeoutMs ?? DEFAULT_SYNC_TIMEOUT_MS;
    const timer = new AbortController();
    const wake = signal ? AbortSignal.any([timer.signal, signal]) : timer.signal;
    const timedOut = this.#deps.clock.sleep(timeoutMs, { signal: wake }).then(
      () => undefined,
      () => undefined, // woken: synced or answered first, or the caller aborted (checked below)
    );
    await Promise.race([
      item.whenSynced,
      timedOut,
      ...(opts.orAnswered ? [item.whenAnswered] : []),
    ]);
    timer.abort();
    signal?.throwIfAborted();
    return item.synced;
  }

  #serveSaved(item: Item<T>, saved: T): T {
    if (item.served === undefined) {
      this.#deps.logger.child({ [this.#deps.kind]: `${item.namespace}/${item.name}` }).info(
        "The API server cannot be reached; using the checkpoint's copy",
        { resourceVersion: saved.metadata?.resourceVersion },
      );
    }
    item.served = saved;
    return saved;
  }

  /** Saves the registered objects as last seen (debounced). */
  #save(): void {
    this.#deps.checkpoint?.schedule(() => ({ objects: this.#final ?? this.#current() }));
  }

  #current(): T[] {
    const objects: T[] = [];
    for (const [k, item] of [...this.#items].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const o = item.synced ? item.object : this.#lastSeen.get(k);
      if (o) objects.push(o);
    }
    return objects;
  }

  #start(namespace: string, name: string): Item<T> {
    let markSynced = () => {};
    const whenSynced = new Promise<void>((resolve) => markSynced = resolve);
    let markAnswered = () => {};
    const whenAnswered = new Promise<void>((resolve) => markAnswered = resolve);
    const item: Item<T> = {
      namespace,
      name,
      pods: new Set(),
      stop: new AbortController(),
      synced: false,
      whenSynced,
      markSynced,
      whenAnswered,
      markAnswered,
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
      onListError: () => item.markAnswered(),
    }, { signal: item.stop.signal }).finally(() => this.#running.delete(done));
    this.#running.add(done);
    return item;
  }

  #update(item: Item<T>, obj: T | undefined): void {
    const wasSynced = item.synced;
    // Before the first list, what the pods got is the checkpoint's copy, if anything.
    const before = wasSynced ? item.object : item.served;
    const compared = wasSynced || item.served !== undefined;
    item.object = obj;
    item.served = undefined;
    item.synced = true;
    item.markSynced();
    item.markAnswered();
    const k = key(item.namespace, item.name);
    if (obj) this.#lastSeen.set(k, obj);
    else this.#lastSeen.delete(k);
    this.#save();
    const changed = compared &&
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
    this.#lastSeen.delete(k);
    this.#save();
  }
}

function key(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
