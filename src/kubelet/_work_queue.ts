/** Pods due for a resync at a given time (the kubelet's workQueue). Latest enqueue wins. */
export class WorkQueue {
  readonly #due = new Map<string, number>();

  enqueue(uid: string, at: number): void {
    this.#due.set(uid, at);
  }

  /** Removes and returns the UIDs due at `now`. */
  takeDue(now: number): string[] {
    const out: string[] = [];
    for (const [uid, at] of this.#due) {
      if (at <= now) {
        out.push(uid);
        this.#due.delete(uid);
      }
    }
    return out;
  }

  delete(uid: string): void {
    this.#due.delete(uid);
  }
}
