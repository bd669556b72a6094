/**
 * PersistentVolumeClaims and PersistentVolumes for the node's pods, read as the upstream
 * kubelet's volume manager reads them (desired_state_of_world_populator getPVCExtractPV /
 * getPVSpec): one GET of each object when a pod's volumes are first processed. A watch is not
 * an option: the Node authorizer lets a kubelet only `get` these kinds, one object at a time
 * ("can only get individual resources of this type"). What was read last is kept per object
 * while a pod uses it, and checkpointed (edge autonomy): when the API server cannot be reached
 * the saved copy is served, so a pod with a claim comes back after an offline reboot.
 */
import type { V1PersistentVolume, V1PersistentVolumeClaim } from "@kubernetes/client-node";
import { type ApiClient, ApiError, ApiUnavailableError } from "../apiclient/mod.ts";
import type { CheckpointSlot, ObjectsCheckpoint } from "../checkpoint/types.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { ObjectNotFoundError } from "./types.ts";

export interface ClaimCacheDeps {
  client: ApiClient;
  logger: Logger;
  /** The claims and volumes as last read: saved after every change, served while offline. */
  checkpoint?: {
    claims?: CheckpointSlot<ObjectsCheckpoint<V1PersistentVolumeClaim>>;
    volumes?: CheckpointSlot<ObjectsCheckpoint<V1PersistentVolume>>;
  };
}

interface Kept<T> {
  object: T;
  pods: Set<string>;
}

type Meta = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };

/** One kind's objects by key, the pods reading each, and its checkpoint slot. */
class Shelf<T extends Meta> {
  readonly #kept = new Map<string, Kept<T>>();
  /** Saved by an earlier run, until read again or no pod uses them. */
  readonly #saved = new Map<string, T>();
  readonly #slot?: CheckpointSlot<ObjectsCheckpoint<T>>;
  /** Keys already served from the checkpoint (logged once each). */
  readonly #served = new Set<string>();

  constructor(readonly resource: string, slot?: CheckpointSlot<ObjectsCheckpoint<T>>) {
    this.#slot = slot;
    for (const o of slot?.take()?.objects ?? []) this.#saved.set(keyOf(o), o);
  }

  keep(key: string, uid: string, object: T): void {
    const before = this.#kept.get(key);
    const pods = before?.pods ?? new Set<string>();
    pods.add(uid);
    this.#kept.set(key, { object, pods });
    this.#saved.delete(key);
    this.#served.delete(key);
    if (before?.object.metadata?.resourceVersion !== object.metadata?.resourceVersion) this.#save();
  }

  /** The copy last read or saved, for pod `uid` (kept for it from now on). */
  fallback(key: string, uid: string): { object: T; firstTime: boolean } | undefined {
    const kept = this.#kept.get(key);
    const object = kept?.object ?? this.#saved.get(key);
    if (!object) return undefined;
    if (kept) kept.pods.add(uid);
    else this.#kept.set(key, { object, pods: new Set([uid]) });
    this.#saved.delete(key);
    const firstTime = !this.#served.has(key);
    this.#served.add(key);
    return { object, firstTime };
  }

  /** Drops what only pod `uid` used, and the saved copies no pod asked for (`pruneSaved`). */
  forget(uid: string, pruneSaved: boolean): void {
    let changed = false;
    for (const [k, kept] of this.#kept) {
      if (!kept.pods.delete(uid) || kept.pods.size) continue;
      this.#kept.delete(k);
      changed = true;
    }
    if (pruneSaved && this.#saved.size) {
      this.#saved.clear();
      changed = true;
    }
    if (changed) this.#save();
  }

  #save(): void {
    this.#slot?.schedule(() => ({
      objects: [...this.#kept.values()].map((k) => k.object).concat([...this.#saved.values()]),
    }));
  }
}

function keyOf(o: Meta): string {
  return `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;
}

/**
 * The claims and volumes the node's pods use. Each read asks the API server (one GET); when it
 * cannot be reached, the copy last read (this run or, from the checkpoint, an earlier one) is
 * served; a copy is kept while a pod that read it is on the node.
 */
export class ClaimCache {
  readonly #deps: ClaimCacheDeps;
  readonly #claims: Shelf<V1PersistentVolumeClaim>;
  readonly #volumes: Shelf<V1PersistentVolume>;
  #pruned = false;

  constructor(deps: ClaimCacheDeps) {
    this.#deps = deps;
    this.#claims = new Shelf("persistentvolumeclaims", deps.checkpoint?.claims);
    this.#volumes = new Shelf("persistentvolumes", deps.checkpoint?.volumes);
  }

  /**
   * The claim `namespace/name` for pod `uid`. Throws ObjectNotFoundError (`persistentvolumeclaims
   * "c" not found`) when it does not exist, the API error when refused, ApiUnavailableError when
   * the server cannot be reached and no copy is kept.
   */
  claim(
    uid: string,
    ref: { namespace: string; name: string },
    opts: { signal?: AbortSignal } = {},
  ): Promise<V1PersistentVolumeClaim> {
    const path = `/api/v1/namespaces/${encodeURIComponent(ref.namespace)}/persistentvolumeclaims/${
      encodeURIComponent(ref.name)
    }`;
    return this.#read(this.#claims, { uid, ...ref, path }, opts);
  }

  /** The PersistentVolume `name` for pod `uid`; throws as `claim`. */
  volume(
    uid: string,
    name: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<V1PersistentVolume> {
    const path = `/api/v1/persistentvolumes/${encodeURIComponent(name)}`;
    return this.#read(this.#volumes, { uid, namespace: "", name, path }, opts);
  }

  /**
   * Pod `uid` is gone: what only it used is dropped (and from the checkpoint). The first call
   * also drops the checkpoint's copies no pod has asked for since the start.
   */
  forgetPod(uid: string): void {
    const prune = !this.#pruned;
    this.#pruned = true;
    this.#claims.forget(uid, prune);
    this.#volumes.forget(uid, prune);
  }

  async #read<T extends Meta>(
    shelf: Shelf<T>,
    ref: { uid: string; namespace: string; name: string; path: string },
    opts: { signal?: AbortSignal },
  ): Promise<T> {
    const key = `${ref.namespace}/${ref.name}`;
    try {
      const object = await this.#deps.client.request<T>(
        { method: "GET", path: ref.path },
        { signal: opts.signal },
      );
      shelf.keep(key, ref.uid, object);
      return object;
    } catch (err) {
      opts.signal?.throwIfAborted();
      if (err instanceof ApiError && err.status === 404) {
        // The API server's own words are the message upstream shows; the request adds nothing.
        throw new ObjectNotFoundError(shelf.resource, ref.namespace, ref.name);
      }
      // Offline (a refused connection, a timeout, a server that answers 5xx): the last copy.
      const offline = err instanceof ApiUnavailableError ||
        (err instanceof ApiError && err.status >= 500);
      const saved = offline ? shelf.fallback(key, ref.uid) : undefined;
      if (!saved) throw err;
      if (saved.firstTime) {
        this.#deps.logger.info("The API server cannot be reached; using the checkpoint's copy", {
          [shelf.resource]: key,
          resourceVersion: saved.object.metadata?.resourceVersion,
          err: errorMessage(err),
        });
      }
      return saved.object;
    }
  }
}
