/**
 * Who may start among static pods that share a full name (upstream `allowStaticPodStart`). A
 * changed manifest gives the pod a new UID under the same name; host-network, hostPort and
 * hostPath pods (etcd-style) must never run twice, so the new UID waits until the old one has
 * fully terminated. Candidates start in the order they arrived.
 */
/** What the gate reads of a pod worker. */
export interface GateWorker {
  fullName: string;
  started: boolean;
  finished: boolean;
}

export class StaticPodStartGate {
  /** Full name → the UID that holds it (started and not yet finished). */
  readonly #started = new Map<string, string>();
  /** Full name → UIDs waiting for it, oldest first. */
  readonly #waiting = new Map<string, string[]>();

  /** Records a new candidate for `fullName` (a worker for a static pod was created). */
  enqueue(fullName: string, uid: string): void {
    const queue = this.#waiting.get(fullName) ?? [];
    if (!queue.includes(uid)) queue.push(uid);
    this.#waiting.set(fullName, queue);
  }

  /**
   * True when `uid` holds the name, or is next in line and the name is free (it then holds it).
   * `stillWaiting` tells candidates that were killed or finished before their turn, which are
   * skipped and dropped.
   */
  tryStart(fullName: string, uid: string, stillWaiting: (uid: string) => boolean): boolean {
    const holder = this.#started.get(fullName);
    if (holder !== undefined) return holder === uid;
    const queue = (this.#waiting.get(fullName) ?? []).filter((u) => u === uid || stillWaiting(u));
    const next = queue[0];
    if (next !== undefined && next !== uid) {
      this.#waiting.set(fullName, queue);
      return false;
    }
    const rest = queue.filter((u) => u !== uid);
    if (rest.length > 0) this.#waiting.set(fullName, rest);
    else this.#waiting.delete(fullName);
    this.#started.set(fullName, uid);
    return true;
  }

  /** `uid` finished (terminated, or never started and gone): the name is free again. */
  release(fullName: string, uid: string): void {
    if (this.#started.get(fullName) === uid) this.#started.delete(fullName);
    const queue = this.#waiting.get(fullName);
    if (!queue) return;
    const rest = queue.filter((u) => u !== uid);
    if (rest.length > 0) this.#waiting.set(fullName, rest);
    else this.#waiting.delete(fullName);
  }

  /**
   * No other worker of `w`'s name has started and not finished (a predecessor still stopping,
   * or an orphan being killed).
   */
  nameIsFree(w: GateWorker, workers: ReadonlyMap<string, GateWorker>): boolean {
    for (const other of workers.values()) {
      if (other !== w && other.fullName === w.fullName && !other.finished && other.started) {
        return false;
      }
    }
    return true;
  }

  /** The UID holding `fullName`, if any (for tests and diagnostics). */
  holder(fullName: string): string | undefined {
    return this.#started.get(fullName);
  }
}
