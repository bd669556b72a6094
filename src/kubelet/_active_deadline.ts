/**
 * `spec.activeDeadlineSeconds` (upstream active_deadline.go): a pod that has been active on the
 * node for that long fails with DeadlineExceeded and is killed. The clock starts at
 * status.startTime, the moment the kubelet first reported the pod.
 */
import type { V1Pod } from "@kubernetes/client-node";

export const DEADLINE_EXCEEDED_REASON = "DeadlineExceeded";
export const DEADLINE_EXCEEDED_MESSAGE =
  "Pod was active on the node longer than the specified deadline";

/**
 * Milliseconds until the pod's active deadline falls due (<= 0: it has passed), or undefined
 * when the pod has no deadline or no start time yet.
 */
export function activeDeadlineLeftMs(
  pod: V1Pod,
  opts: { startTime: Date | string | undefined; now: number },
): number | undefined {
  const seconds = pod.spec?.activeDeadlineSeconds;
  if (seconds === undefined || seconds === null || opts.startTime === undefined) return undefined;
  // A status read back from JSON may hold the time as a string.
  const start = new Date(opts.startTime).getTime();
  if (Number.isNaN(start) || start === 0) return undefined;
  return start + seconds * 1000 - opts.now;
}

/** Whether the pod has been active for its whole `activeDeadlineSeconds`. */
export function pastActiveDeadline(
  pod: V1Pod,
  opts: { startTime: Date | string | undefined; now: number },
): boolean {
  const left = activeDeadlineLeftMs(pod, opts);
  return left !== undefined && left <= 0;
}
