/**
 * The latest API status computed for each pod, and the waiting reasons from the last sync
 * (the kubelet's status manager and reason cache). In standalone mode nothing is written back
 * anywhere; the node API reads from here. The API-server mode will add a writer on top.
 */
import type { V1PodStatus } from "@kubernetes/client-node";

const DISRUPTION_TARGET = "DisruptionTarget";

function isTerminal(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

export interface WaitingReason {
  reason: string;
  message: string;
}

export class StatusManager {
  readonly #status = new Map<string, V1PodStatus>();
  readonly #reasons = new Map<string, Map<string, WaitingReason>>();
  readonly #onChange?: (uid: string, status: V1PodStatus) => void;

  /** `onChange` hears every status that differs from the last one (the API writer's feed). */
  constructor(opts: { onChange?: (uid: string, status: V1PodStatus) => void } = {}) {
    this.#onChange = opts.onChange;
  }

  get(uid: string): V1PodStatus | undefined {
    return this.#status.get(uid);
  }

  /**
   * Records the pod's status, with the two rules upstream's status manager keeps: a terminal
   * phase never changes (with its reason and message: an evicted pod stays Failed/Evicted after
   * its containers stop), and a DisruptionTarget condition, the record of a one-time decision
   * such as an eviction, is kept once set.
   */
  set(uid: string, status: V1PodStatus): void {
    const old = this.#status.get(uid);
    let next = status;
    if (old && isTerminal(old.phase) && next.phase !== old.phase) {
      next = { ...next, phase: old.phase, reason: old.reason, message: old.message };
    }
    const disruption = old?.conditions?.find((c) => c.type === DISRUPTION_TARGET);
    if (disruption && !next.conditions?.some((c) => c.type === DISRUPTION_TARGET)) {
      next = { ...next, conditions: [...(next.conditions ?? []), disruption] };
    }
    this.#status.set(uid, next);
    if (this.#onChange && (!old || JSON.stringify(old) !== JSON.stringify(next))) {
      this.#onChange(uid, next);
    }
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
