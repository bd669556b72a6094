/**
 * The API server's pods bound to this node, as the `api` source last saw them: a list replaces
 * the set, watch events and the answers to this agent's own writes update it. The answers may
 * run ahead of the watch, so an older version of a pod never replaces a newer one.
 */
import type { V1Pod } from "@kubernetes/client-node";

/** The API server's pods bound to this node, as last seen (watch events and write answers). */
export interface ApiPodStore {
  /** True once a list succeeded: the store then holds every pod bound to the node. */
  readonly synced: boolean;
  get(namespace: string, name: string): V1Pod | undefined;
  byUid(uid: string): V1Pod | undefined;
  pods(): V1Pod[];
  /**
   * Takes in an object the API server returned for a write, which may be newer than what the
   * watch has shown so far. A version older than the one held is ignored.
   */
  observe(pod: V1Pod): void;
  /** This agent deleted the pod (with a UID precondition): drop that incarnation. */
  forget(namespace: string, name: string, uid: string): void;
  /**
   * `fn` hears the name of every pod that changed, or nothing after a complete list (any pod
   * may have changed). Returns the unsubscribe. Never blocks.
   */
  subscribe(fn: (changed?: PodName) => void): () => void;
}

export interface PodName {
  namespace: string;
  name: string;
}

export const keyOf = (namespace: string | undefined, name: string | undefined) =>
  `${namespace ?? ""}/${name ?? ""}`;
export const podKey = (p: V1Pod) => keyOf(p.metadata?.namespace, p.metadata?.name);

/** etcd revisions are numbers; compare them when both are, else the latest arrival wins. */
function isOlder(pod: V1Pod, than: V1Pod): boolean {
  if (pod.metadata?.uid !== than.metadata?.uid) return false;
  const a = Number(pod.metadata?.resourceVersion);
  const b = Number(than.metadata?.resourceVersion);
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) && a < b;
}

export class Store implements ApiPodStore {
  synced = false;
  readonly #pods = new Map<string, V1Pod>();
  readonly #listeners = new Set<(changed?: PodName) => void>();

  get(namespace: string, name: string): V1Pod | undefined {
    return this.#pods.get(keyOf(namespace, name));
  }

  byUid(uid: string): V1Pod | undefined {
    for (const p of this.#pods.values()) if (p.metadata?.uid === uid) return p;
    return undefined;
  }

  pods(): V1Pod[] {
    return [...this.#pods.values()];
  }

  observe(pod: V1Pod): void {
    const key = podKey(pod);
    const held = this.#pods.get(key);
    if (held && isOlder(pod, held)) return;
    this.#pods.set(key, pod);
    this.#notify(pod);
  }

  forget(namespace: string, name: string, uid: string): void {
    const key = keyOf(namespace, name);
    if (this.#pods.get(key)?.metadata?.uid !== uid) return;
    this.#pods.delete(key);
    this.#notifyKey(namespace, name);
  }

  /** A watch deletion: the incarnation it names is gone. */
  deleted(pod: V1Pod): void {
    this.forget(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "", pod.metadata?.uid ?? "");
  }

  /**
   * A complete list at `rv`. Objects this agent wrote after that version (newer versions, or
   * pods it created since) are kept; the watch from `rv` brings them again anyway.
   */
  replace(items: V1Pod[], rv: string): void {
    const listed = new Map(items.map((p) => [podKey(p), p]));
    const listRv = Number(rv);
    const before = new Map(this.#pods);
    this.#pods.clear();
    for (const [key, p] of listed) {
      const held = before.get(key);
      this.#pods.set(key, held && isOlder(p, held) ? held : p);
    }
    for (const [key, held] of before) {
      if (listed.has(key)) continue;
      const heldRv = Number(held.metadata?.resourceVersion);
      if (Number.isSafeInteger(listRv) && Number.isSafeInteger(heldRv) && heldRv > listRv) {
        this.#pods.set(key, held);
      }
    }
    this.synced = true;
    for (const fn of this.#listeners) fn();
  }

  subscribe(fn: (changed?: PodName) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #notify(pod: V1Pod): void {
    this.#notifyKey(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
  }

  #notifyKey(namespace: string, name: string): void {
    for (const fn of this.#listeners) fn({ namespace, name });
  }
}
