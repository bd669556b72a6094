/**
 * The allocation manager (upstream pkg/kubelet/allocation): which resources each admitted pod
 * was given. A pod is admitted against what the others were given, not what their specs ask
 * now; a resize (the spec's cpu or memory changed) is allocated only once it fits, otherwise it
 * stays pending: Infeasible when it never can, Deferred when it may later, retried when room
 * may have appeared (a pod removed or finished, every 3 minutes) in upstream's order.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type EventRecorder, podObjectRef } from "../events/mod.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { qosClass } from "../util/qos.ts";
import { cpuMemoryChanged, podFromAllocation, resourceInfoForPod } from "./_resources.ts";
import { resizeEventMessage } from "./resize_admission.ts";
import {
  POD_RESIZE_PENDING,
  REASON_INFEASIBLE,
  type ResizeConditions,
} from "./resize_conditions.ts";
import type { PodResourceState } from "./state.ts";

/** An admission verdict (kubelet lifecycle.PodAdmitResult). */
export interface AdmitVerdict {
  admit: boolean;
  reason?: string;
  message?: string;
}

/** Why a pending resize is looked at again (upstream's trigger reasons). */
export type RetryTrigger =
  | "pod_resized"
  | "pod_updated"
  | "pods_added"
  | "pods_removed"
  | "pod_terminated"
  | "periodic_retry";

/** upstream initialRetryDelay and retryDelay. */
export const INITIAL_RETRY_MS = 30_000;
export const RETRY_MS = 180_000;

export interface AllocationManagerDeps {
  /** What each pod was allocated (`allocated_pods_state`). */
  state: PodResourceState;
  conditions: ResizeConditions;
  /**
   * The node's admission of `pod` beside `others` (the eviction manager, then the predicates:
   * resources, ports, affinity); a refused resize is Deferred with its message.
   */
  admit: (pod: V1Pod, others: V1Pod[]) => AdmitVerdict;
  /** Why a resize of `desired` from `allocated` can never be had; undefined when it can. */
  infeasible: (desired: V1Pod, allocated: V1Pod) => string | undefined;
  /** The pods admitted and not finished (their desired specs). */
  activePods: () => V1Pod[];
  podByUid: (uid: string) => V1Pod | undefined;
  /** Every source has delivered its first snapshot. */
  sourcesReady: () => boolean;
  /** Asks for a sync of the pod (its allocation or resize conditions changed). */
  syncPod: (pod: V1Pod) => void;
  /** The pod's cpu (millicores) and memory (bytes) requests, as admission sums them. */
  podRequests: (pod: V1Pod) => { cpuMilli: number; memoryBytes: number };
  /** InPlacePodLevelResourcesVerticalScaling: spec.resources are allocated and resized too. */
  podLevel: boolean;
  events?: EventRecorder;
  clock: Clock;
  logger: Logger;
}

export class AllocationManager {
  readonly #deps: AllocationManagerDeps;
  /** Pods with a pending resize, in the order they are retried. */
  #pending: string[] = [];
  /** When (monotonic ms) pending resizes are retried next. */
  #retryAt: number;

  constructor(deps: AllocationManagerDeps) {
    this.#deps = deps;
    this.#retryAt = deps.clock.monotonic() + INITIAL_RETRY_MS;
  }

  /** The pod with its allocated resources in place of the spec's, and whether they differ. */
  fromAllocation(pod: V1Pod): { pod: V1Pod; updated: boolean } {
    const info = this.#deps.state.get(pod.metadata?.uid ?? "");
    return podFromAllocation(pod, info, { podLevel: this.#deps.podLevel });
  }

  hasAllocation(uid: string): boolean {
    return this.#deps.state.has(uid);
  }

  /** Of `pods`, those allocated, with their allocated resources. */
  allocatedPods(pods: readonly V1Pod[]): V1Pod[] {
    return pods.filter((p) => this.hasAllocation(p.metadata?.uid ?? ""))
      .map((p) => this.fromAllocation(p).pod);
  }

  /**
   * AddPod: admits a new pod (with its allocation, if it had one before a restart) beside
   * the others' allocations, and records what it is given.
   */
  addPod(pod: V1Pod, active: readonly V1Pod[]): AdmitVerdict {
    const uid = pod.metadata?.uid ?? "";
    const allocated = this.fromAllocation(pod).pod;
    const others = this.allocatedPods(active).filter((p) => p.metadata?.uid !== uid);
    const verdict = this.#deps.admit(allocated, others);
    if (verdict.admit) {
      this.#deps.state.set(uid, resourceInfoForPod(allocated, { podLevel: this.#deps.podLevel }));
    }
    return verdict;
  }

  /**
   * After pods were added: takes up the resize conditions their statuses show, and queues the
   * resizes a restart left pending (spec and allocation differ).
   */
  podsAdded(pods: readonly V1Pod[]): void {
    for (const pod of pods) this.#deps.conditions.backfill(pod);
    let any = false;
    for (const pod of pods) {
      const uid = pod.metadata?.uid ?? "";
      if (this.hasAllocation(uid) && this.fromAllocation(pod).updated) {
        this.#push(uid);
        any = true;
      }
    }
    if (any) this.retryPendingResizes("pods_added");
  }

  /** HandlePodUpdates: a change of the pod's cpu or memory is a resize to allocate. */
  podUpdated(old: V1Pod | undefined, pod: V1Pod): void {
    const uid = pod.metadata?.uid ?? "";
    if (!this.hasAllocation(uid) || !resized(old, pod, this.#deps.podLevel)) return;
    if (this.fromAllocation(pod).updated) {
      this.#push(uid);
      this.retryPendingResizes("pod_updated");
    } else {
      // Back to what it was given: the pending resize was reverted.
      this.#deps.conditions.clearPending(uid);
    }
  }

  /** The pod left its source: its allocation is freed, which may make room for others. */
  removePod(uid: string): void {
    this.#deps.state.remove(uid);
    this.#deps.conditions.delete(uid);
    this.retryPendingResizes("pods_removed");
  }

  /** The pod finished: what it was given is free again (HandlePodReconcile). */
  podTerminated(): void {
    if (this.#pending.length > 0) this.retryPendingResizes("pod_terminated");
  }

  /** Forgets the allocations of pods not in `keep` (housekeeping). */
  removeOrphans(keep: Set<string>): void {
    this.#deps.state.removeOrphans(keep);
  }

  hasPendingResizes(): boolean {
    return this.#pending.length > 0;
  }

  /** The periodic retry: at most every 3 minutes (30 s until the sources are ready). */
  tick(): void {
    if (this.#deps.clock.monotonic() >= this.#retryAt) this.retryPendingResizes("periodic_retry");
  }

  /** Tries every pending resize again, in order; keeps those still deferred (or failed). */
  retryPendingResizes(trigger: RetryTrigger): void {
    const { clock, conditions, logger } = this.#deps;
    if (!this.#deps.sourcesReady()) {
      this.#retryAt = clock.monotonic() + INITIAL_RETRY_MS;
      return;
    }
    this.#retryAt = clock.monotonic() + RETRY_MS;
    const still: string[] = [];
    for (const uid of this.#pending) {
      const pod = this.#deps.podByUid(uid);
      if (!pod) continue;
      const before = JSON.stringify(conditions.list(uid).map(withoutProbeTime));
      const wasDeferred = conditions.isDeferred(uid);
      let allocated = false;
      try {
        allocated = this.#handleResize(pod);
        if (conditions.isDeferred(uid)) still.push(uid);
        else if (!conditions.isInfeasible(uid) && wasDeferred) {
          logger.info("Deferred pod resize allocated", { ...podFields(pod), trigger });
        }
      } catch (err) {
        logger.warn("Cannot handle pod resize", { ...podFields(pod), err: errorMessage(err) });
        still.push(uid);
      }
      const after = JSON.stringify(conditions.list(uid).map(withoutProbeTime));
      if (allocated || before !== after) this.#deps.syncPod(pod);
    }
    this.#pending = still;
  }

  /** handlePodResourcesResize: allocates the resize when it fits; true when it did. */
  #handleResize(pod: V1Pod): boolean {
    const { conditions, state } = this.#deps;
    const uid = pod.metadata?.uid ?? "";
    const { pod: allocated, updated } = this.fromAllocation(pod);
    if (!updated) {
      conditions.clearPending(uid);
      return false;
    }
    const generation = pod.metadata?.generation ?? 0;
    const verdict = this.#canResize(pod, allocated);
    if (verdict.admit) {
      state.set(uid, resourceInfoForPod(pod, { podLevel: this.#deps.podLevel }));
      conditions.clearPending(uid);
      // A new resize starts afresh: errors of the previous one go, the generation is this one.
      conditions.clearInProgress(uid);
      conditions.setInProgress(uid, "", "", generation);
      this.#event(
        pod,
        "Normal",
        "ResizeStarted",
        resizeEventMessage("Pod resize started", pod, {
          generation,
        }),
      );
      return true;
    }
    const reason = verdict.reason ?? "";
    if (reason !== "" && conditions.setPending(uid, reason, verdict.message ?? "", generation)) {
      const shown = conditions.pending(uid)?.reason ?? reason;
      this.#event(
        pod,
        "Warning",
        shown === REASON_INFEASIBLE ? "ResizeInfeasible" : "ResizeDeferred",
        resizeEventMessage(`Pod resize ${shown}`, pod, {
          generation,
          error: verdict.message,
        }),
      );
    }
    return false;
  }

  /** canAdmitPod for a resize: the resize checks first, then the node's admission. */
  #canResize(desired: V1Pod, allocated: V1Pod): AdmitVerdict {
    const uid = desired.metadata?.uid ?? "";
    const infeasible = this.#deps.infeasible(desired, allocated);
    let verdict: AdmitVerdict = infeasible
      ? { admit: false, reason: REASON_INFEASIBLE, message: infeasible }
      : { admit: true };
    if (verdict.admit) {
      const others = this.allocatedPods(this.#deps.activePods())
        .filter((p) => p.metadata?.uid !== uid);
      verdict = this.#deps.admit(desired, others);
    }
    if (!verdict.admit) {
      this.#deps.logger.info("Pod admission denied", {
        ...podFields(desired),
        reason: verdict.reason,
        message: verdict.message,
        operation: "resize",
      });
    }
    return verdict;
  }

  /** PushPendingResize: queues the pod once and re-sorts the queue. */
  #push(uid: string): void {
    if (!this.#pending.includes(uid)) this.#pending.push(uid);
    this.#sortPending();
  }

  /**
   * sortPendingResizes: resizes that ask for no more first, then by priority, Guaranteed
   * before Burstable, then the longest pending.
   */
  #sortPending(): void {
    const pods = this.#pending.map((uid) => this.#deps.podByUid(uid))
      .filter((p): p is V1Pod => p !== undefined);
    const since = (p: V1Pod) => {
      const c = this.#deps.conditions.list(p.metadata?.uid ?? "")
        .find((x) => x.type === POD_RESIZE_PENDING);
      return c?.lastTransitionTime?.getTime();
    };
    pods.sort((a, b) => {
      const ai = this.#increasing(a);
      const bi = this.#increasing(b);
      if (ai !== bi) return ai ? 1 : -1;
      const pa = a.spec?.priority ?? 0;
      const pb = b.spec?.priority ?? 0;
      if (pa !== pb) return pb - pa;
      const ga = qosClass(a) === "Guaranteed";
      const gb = qosClass(b) === "Guaranteed";
      if (ga !== gb) return ga ? -1 : 1;
      const ta = since(a);
      const tb = since(b);
      if (ta === undefined) return tb === undefined ? 0 : 1;
      if (tb === undefined) return -1;
      return ta - tb;
    });
    this.#pending = pods.map((p) => p.metadata?.uid ?? "");
  }

  /** Whether the resize asks for more cpu or memory than the pod was given. */
  #increasing(pod: V1Pod): boolean {
    const { pod: allocated, updated } = this.fromAllocation(pod);
    if (!updated) return false;
    const want = this.#deps.podRequests(pod);
    const had = this.#deps.podRequests(allocated);
    return want.cpuMilli > had.cpuMilli || want.memoryBytes > had.memoryBytes;
  }

  #event(pod: V1Pod, type: "Normal" | "Warning", reason: string, message: string): void {
    this.#deps.events?.event(podObjectRef(pod), type, reason, message);
  }
}

/** recordResizeOperations: any init or app container's cpu or memory, or the pod-level ones. */
function resized(old: V1Pod | undefined, pod: V1Pod, podLevel: boolean): boolean {
  if (!old) return true;
  if (podLevel && cpuMemoryChanged(old.spec?.resources, pod.spec?.resources)) return true;
  const before = new Map(
    [...(old.spec?.initContainers ?? []), ...(old.spec?.containers ?? [])].map((c) => [c.name, c]),
  );
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].some((c) =>
    cpuMemoryChanged(before.get(c.name)?.resources, c.resources)
  );
}

function withoutProbeTime<T extends { lastProbeTime?: unknown }>(c: T): T {
  return { ...c, lastProbeTime: undefined };
}

function podFields(pod: V1Pod) {
  const m = pod.metadata ?? {};
  return { pod: `${m.namespace}/${m.name}`, uid: m.uid };
}
