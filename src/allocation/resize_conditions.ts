/**
 * The PodResizePending and PodResizeInProgress conditions of each pod (upstream's status manager
 * podResizeConditions): set by the allocation (a resize allocated, deferred or infeasible) and
 * by the pod's sync (actuated, or failed), shown in the pod status until cleared.
 */
import type { V1Pod, V1PodCondition } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";

export const POD_RESIZE_PENDING = "PodResizePending";
export const POD_RESIZE_IN_PROGRESS = "PodResizeInProgress";
export const REASON_DEFERRED = "Deferred";
export const REASON_INFEASIBLE = "Infeasible";
export const REASON_ERROR = "Error";

interface Pair {
  pending?: V1PodCondition;
  inProgress?: V1PodCondition;
}

export class ResizeConditions {
  readonly #byUid = new Map<string, Pair>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The pod's resize conditions: PodResizePending first, then PodResizeInProgress. */
  list(uid: string): V1PodCondition[] {
    const p = this.#byUid.get(uid);
    return [p?.pending, p?.inProgress].filter((c) => c !== undefined).map((c) => ({ ...c }));
  }

  pending(uid: string): V1PodCondition | undefined {
    return this.#byUid.get(uid)?.pending;
  }

  isDeferred(uid: string): boolean {
    return this.pending(uid)?.reason === REASON_DEFERRED;
  }

  isInfeasible(uid: string): boolean {
    return this.pending(uid)?.reason === REASON_INFEASIBLE;
  }

  /**
   * Sets PodResizePending; every reason but Infeasible is shown as Deferred (an admission
   * refusal says why in the message). True when the reason or generation changed.
   */
  setPending(uid: string, reason: string, message: string, generation: number): boolean {
    const p = this.#pair(uid);
    const previous = p.pending;
    const shown = reason === REASON_INFEASIBLE ? REASON_INFEASIBLE : REASON_DEFERRED;
    p.pending = this.#condition(POD_RESIZE_PENDING, previous, {
      reason: shown,
      message,
      generation,
    });
    return !previous || previous.reason !== shown ||
      (previous.observedGeneration ?? 0) !== generation;
  }

  /**
   * Sets PodResizeInProgress. An existing condition keeps its generation (clear it first to
   * change that) and, when none are given, its reason and message. Returns the condition's
   * generation and whether its reason or message changed.
   */
  setInProgress(
    uid: string,
    reason: string,
    message: string,
    generation: number,
  ): { generation: number; changed: boolean } {
    const p = this.#pair(uid);
    const previous = p.inProgress;
    if (previous) {
      if (reason === "" && message === "") {
        reason = previous.reason ?? "";
        message = previous.message ?? "";
      }
      generation = previous.observedGeneration ?? 0;
    }
    p.inProgress = this.#condition(POD_RESIZE_IN_PROGRESS, previous, {
      reason,
      message,
      generation,
    });
    const changed = !previous || (previous.reason ?? "") !== reason ||
      (previous.message ?? "") !== message;
    return { generation, changed };
  }

  clearPending(uid: string): void {
    const p = this.#byUid.get(uid);
    if (p) p.pending = undefined;
  }

  /** Clears PodResizeInProgress; returns the generation it had when there was one. */
  clearInProgress(uid: string): { generation: number; cleared: boolean } {
    const p = this.#byUid.get(uid);
    const c = p?.inProgress;
    if (!p || !c) return { generation: 0, cleared: false };
    p.inProgress = undefined;
    return { generation: c.observedGeneration ?? 0, cleared: true };
  }

  /** BackfillPodResizeConditions: takes up what the pod's status already shows (a restart). */
  backfill(pod: V1Pod): void {
    const uid = pod.metadata?.uid ?? "";
    for (const c of pod.status?.conditions ?? []) {
      if (c.type !== POD_RESIZE_PENDING && c.type !== POD_RESIZE_IN_PROGRESS) continue;
      const made = this.#condition(c.type, undefined, {
        reason: c.reason ?? "",
        message: c.message ?? "",
        generation: c.observedGeneration ?? 0,
      });
      if (c.type === POD_RESIZE_PENDING) this.#pair(uid).pending = made;
      else this.#pair(uid).inProgress = made;
    }
  }

  delete(uid: string): void {
    this.#byUid.delete(uid);
  }

  #pair(uid: string): Pair {
    let p = this.#byUid.get(uid);
    if (!p) this.#byUid.set(uid, p = {});
    return p;
  }

  /** updatedPodResizeCondition: the transition time moves only when the reason changes. */
  #condition(
    type: string,
    old: V1PodCondition | undefined,
    c: { reason: string; message: string; generation: number },
  ): V1PodCondition {
    const now = new Date(Math.floor(this.#clock.now() / 1000) * 1000);
    const out: V1PodCondition = {
      type,
      status: "True",
      lastProbeTime: now,
      lastTransitionTime: old && (old.reason ?? "") === c.reason ? old.lastTransitionTime : now,
    };
    if (c.generation) out.observedGeneration = c.generation;
    if (c.reason) out.reason = c.reason;
    if (c.message) out.message = c.message;
    return out;
  }
}
