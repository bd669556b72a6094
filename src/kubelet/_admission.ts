/**
 * Whether a new pod may run on the node (upstream `canAdmitPod`): the eviction manager's
 * verdict first, then the node's fit predicates. Only the pod count is a predicate today
 * (`maxPods`, reason OutOfpods). Static pods are critical, and with nothing to preempt a
 * critical pod that does not fit is refused like any other, as upstream.
 */
import type { V1Pod } from "@kubernetes/client-node";

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

export interface AdmissionInput {
  /** Pods already admitted and not finished (upstream `filterOutInactivePods`). */
  activePods: number;
  /** --max-pods. */
  maxPods: number;
  /** Handlers asked before the predicates (the eviction manager). */
  before?: (pod: V1Pod) => AdmitResult;
}

export function admitPod(pod: V1Pod, input: AdmissionInput): AdmitResult {
  const first = input.before?.(pod);
  if (first && !first.admit) return first;
  if (input.activePods + 1 > input.maxPods) {
    return {
      admit: false,
      reason: "OutOfpods",
      // upstream InsufficientResourceError text, so tooling that parses it keeps working.
      message: `Node didn't have enough resource: pods, requested: 1, used: ${input.activePods}, ` +
        `capacity: ${input.maxPods}`,
    };
  }
  return { admit: true };
}
