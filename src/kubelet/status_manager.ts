/**
 * The latest API status computed for each pod, and the waiting reasons from the last sync
 * (the kubelet's status manager and reason cache). In standalone mode nothing is written back
 * anywhere; the node API reads from here. The API-server mode will add a writer on top.
 */
import type { V1PodStatus } from "@kubernetes/client-node";

export interface WaitingReason {
  reason: string;
  message: string;
}

export class StatusManager {
  readonly #status = new Map<string, V1PodStatus>();
  readonly #reasons = new Map<string, Map<string, WaitingReason>>();

  get(uid: string): V1PodStatus | undefined {
    return this.#status.get(uid);
  }

  set(uid: string, status: V1PodStatus): void {
    this.#status.set(uid, status);
  }

  /** Waiting reasons by container name from the last sync of the pod. */
  reasons(uid: string): Map<string, WaitingReason> {
    return this.#reasons.get(uid) ?? new Map();
  }

  setReasons(uid: string, reasons: Map<string, WaitingReason>): void {
    if (reasons.size === 0) this.#reasons.delete(uid);
    else this.#reasons.set(uid, reasons);
  }

  delete(uid: string): void {
    this.#status.delete(uid);
    this.#reasons.delete(uid);
  }
}
