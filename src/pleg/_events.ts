/**
 * Turning two consecutive relists of one pod into lifecycle events (pleg/generic.go's
 * computeEvents / generateEvents). Pure functions, so each transition is easy to test.
 */
import type { RunningPod } from "../runtime/types.ts";
import type { PodLifecycleEvent } from "./types.ts";

/** The PLEG's coarse view of a container or sandbox. */
export type PlegContainerState = "running" | "exited" | "unknown" | "non-existent";

/** State of container or sandbox `id` within `pod`; "non-existent" when absent. */
export function plegState(pod: RunningPod | undefined, id: string): PlegContainerState {
  if (!pod) return "non-existent";
  const c = pod.containers.find((x) => x.id === id);
  if (c) {
    switch (c.state) {
      case "running":
        return "running";
      case "exited":
        return "exited";
      // The kubelet does not act on "created" yet, so it counts as unknown (upstream too).
      case "created":
      case "unknown":
        return "unknown";
    }
  }
  // Sandboxes are tracked like containers so a sandbox that dies wakes the pod worker.
  const s = pod.sandboxes.find((x) => x.id === id);
  if (s) return s.state === "ready" ? "running" : "exited";
  return "non-existent";
}

/** Events for one id moving from `oldState` to `newState`; none when the state is unchanged. */
export function generateEvents(
  uid: string,
  id: string,
  states: { old: PlegContainerState; new: PlegContainerState },
): PodLifecycleEvent[] {
  if (states.old === states.new) return [];
  switch (states.new) {
    case "running":
      return [{ uid, type: "ContainerStarted", data: id }];
    case "exited":
      return [{ uid, type: "ContainerDied", data: id }];
    case "unknown":
      return [{ uid, type: "ContainerChanged", data: id }];
    case "non-existent":
      // A container that was already reported dead only needs its removal reported.
      if (states.old === "exited") return [{ uid, type: "ContainerRemoved", data: id }];
      return [
        { uid, type: "ContainerDied", data: id },
        { uid, type: "ContainerRemoved", data: id },
      ];
  }
}

/** Every container and sandbox id in either relist: containers first, old pod before new. */
function allIds(oldPod: RunningPod | undefined, newPod: RunningPod | undefined): string[] {
  const ids = new Set<string>();
  for (const p of [oldPod, newPod]) {
    if (!p) continue;
    for (const c of p.containers) ids.add(c.id);
    for (const s of p.sandboxes) ids.add(s.id);
  }
  return [...ids];
}

/** All events for pod `uid` between the previous relist (`oldPod`) and this one (`newPod`). */
export function computePodEvents(
  uid: string,
  pods: { old: RunningPod | undefined; new: RunningPod | undefined },
): PodLifecycleEvent[] {
  const events: PodLifecycleEvent[] = [];
  for (const id of allIds(pods.old, pods.new)) {
    const states = { old: plegState(pods.old, id), new: plegState(pods.new, id) };
    events.push(...generateEvents(uid, id, states));
  }
  return events;
}
