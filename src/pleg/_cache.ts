/**
 * The pod status cache (kubelet's `kubecontainer.Cache`): the latest runtime status per pod
 * UID plus a global timestamp that says "every pod's entry is at least this fresh". Pod workers
 * wait on it so they never act on a status older than their own last sync.
 */
import type { Clock } from "../util/clock.ts";
import type { PodStatusCache } from "./types.ts";
import type { RuntimePodStatus } from "../runtime/types.ts";

/** The cache as the PLEG sees it: it also advances the global timestamp after each relist. */
export interface RelistCache extends PodStatusCache {
  /**
   * Records that a relist which started at `timestamp` (ms) has updated every pod that changed,
   * and wakes the `getNewerThan` waiters that this satisfies. Never moves the timestamp back.
   */
  updateTime(timestamp: number): void;
}

interface Waiter {
  minTime: number;
  resolve: (s: RuntimePodStatus) => void;
}

/** A status for a UID the runtime knows nothing about (no sandboxes, no containers). */
export function emptyPodStatus(uid: string, timestamp: number): RuntimePodStatus {
  return { uid, name: "", namespace: "", sandboxes: [], containers: [], ips: [], timestamp };
}

class Cache implements RelistCache {
  #pods = new Map<string, RuntimePodStatus>();
  #waiters = new Map<string, Set<Waiter>>();
  #timestamp = 0;

  // The clock is part of the deps for symmetry with the other constructors; the cache itself
  // only compares timestamps its writers give it.
  constructor(readonly deps: { clock: Clock }) {}

  get globalTimestamp(): number {
    return this.#timestamp;
  }

  get(uid: string): RuntimePodStatus | undefined {
    return this.#pods.get(uid);
  }

  set(uid: string, status: RuntimePodStatus): void {
    this.#pods.set(uid, status);
    this.#notify(uid);
  }

  delete(uid: string): void {
    this.#pods.delete(uid);
  }

  updateTime(timestamp: number): void {
    if (timestamp < this.#timestamp) return;
    this.#timestamp = timestamp;
    for (const uid of [...this.#waiters.keys()]) this.#notify(uid);
  }

  getNewerThan(
    uid: string,
    minTime: number,
    opts?: { signal?: AbortSignal },
  ): Promise<RuntimePodStatus> {
    const signal = opts?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const ready = this.#lookup(uid, minTime);
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const set = this.#waiters.get(uid) ?? new Set<Waiter>();
      this.#waiters.set(uid, set);
      const onAbort = () => {
        this.#removeWaiter(uid, waiter);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        minTime,
        resolve: (s) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(s);
        },
      };
      set.add(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /**
   * Upstream's getIfNewerThan. Upstream compares with a strict "after" on nanosecond times; the
   * contract here is ">=" on milliseconds (see PodStatusCache.getNewerThan).
   */
  #lookup(uid: string, minTime: number): RuntimePodStatus | undefined {
    const cached = this.#pods.get(uid);
    const globalIsNewer = this.#timestamp > 0 && this.#timestamp >= minTime;
    if (cached && (cached.timestamp >= minTime || globalIsNewer)) return cached;
    if (!cached && globalIsNewer) return emptyPodStatus(uid, this.#timestamp);
    return undefined;
  }

  #notify(uid: string): void {
    const set = this.#waiters.get(uid);
    if (!set) return;
    for (const w of [...set]) {
      const status = this.#lookup(uid, w.minTime);
      if (!status) continue;
      this.#removeWaiter(uid, w);
      w.resolve(status);
    }
  }

  #removeWaiter(uid: string, w: Waiter): void {
    const set = this.#waiters.get(uid);
    if (!set) return;
    set.delete(w);
    if (set.size === 0) this.#waiters.delete(uid);
  }
}

/** Creates an empty cache; its global timestamp starts at 0 (no relist yet). */
export function createPodStatusCache(deps: { clock: Clock }): RelistCache {
  return new Cache(deps);
}
