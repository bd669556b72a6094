/** What the kubelet reads off the PLEG's last relist: pure functions over the runtime's pods. */
import type { V1Pod } from "@kubernetes/client-node";
import type { RunningPod, RuntimeContainerState } from "../runtime/types.ts";

/** A ready sandbox or a running container: something of the pod still runs. */
export function isLive(rp: RunningPod): boolean {
  return rp.sandboxes.some((s) => s.state === "ready") ||
    rp.containers.some((c) => c.state === "running");
}

/**
 * As upstream's PLEG reports them: pods with a ready sandbox (kubelet_running_pods) and
 * containers by state (kubelet_running_containers).
 */
export function runningCounts(
  pods: readonly RunningPod[],
): { pods: number; containers: Record<RuntimeContainerState, number> } {
  const containers: Record<RuntimeContainerState, number> = {
    created: 0,
    running: 0,
    exited: 0,
    unknown: 0,
  };
  let ready = 0;
  for (const rp of pods) {
    if (rp.sandboxes.some((s) => s.state === "ready")) ready++;
    for (const c of rp.containers) containers[c.state]++;
  }
  return { pods: ready, containers };
}

/** Live runtime pods of `pod`'s name with another UID that no source asks for. */
export function otherInstances(
  pods: readonly RunningPod[],
  pod: V1Pod,
  isDesired: (uid: string) => boolean,
): RunningPod[] {
  const { uid, name, namespace } = pod.metadata ?? {};
  return pods.filter((rp) =>
    rp.name === name && rp.namespace === namespace && rp.uid !== uid && !isDesired(rp.uid) &&
    isLive(rp)
  );
}
