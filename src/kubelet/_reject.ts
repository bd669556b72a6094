/**
 * A pod the node does not admit (upstream rejectPod): an event with the bare message, and a
 * Failed status that says it was refused. It never runs.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type EventRecorder, podObjectRef } from "../events/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { qosClass } from "../util/qos.ts";
import type { StatusManager } from "./status_manager.ts";
import { podRef } from "./_pod_ref.ts";

export function rejectPod(
  pod: V1Pod,
  verdict: { reason?: string; message?: string },
  ctx: { statuses: StatusManager; events?: EventRecorder; clock: Clock; logger: Logger },
): void {
  ctx.logger.warn("Pod not admitted", {
    pod: podRef(pod),
    uid: pod.metadata?.uid,
    reason: verdict.reason,
    message: verdict.message,
  });
  ctx.events?.event(podObjectRef(pod), "Warning", verdict.reason ?? "", verdict.message ?? "");
  ctx.statuses.set(pod.metadata!.uid!, {
    phase: "Failed",
    reason: verdict.reason,
    message: `Pod was rejected: ${verdict.message}`,
    qosClass: qosClass(pod),
    startTime: new Date(Math.floor(ctx.clock.now() / 1000) * 1000),
  });
}
