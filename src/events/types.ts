/** Events: what the agent tells users about an object (kubectl describe, kubectl get events). */

export type EventType = "Normal" | "Warning";

/** The object an event is about (core/v1 ObjectReference). */
export interface ObjectRef {
  kind: "Pod" | "Node";
  apiVersion?: string;
  namespace?: string;
  name: string;
  uid?: string;
  /** e.g. `spec.containers{web}` for a container's events. */
  fieldPath?: string;
}

export interface EventRecorder {
  /**
   * Records an event. Never blocks and never throws: delivery happens in the background and
   * may drop events under load (as upstream's recorder does).
   */
  event(ref: ObjectRef, type: EventType, reason: string, message: string): void;
}

/** A recorder that drops everything (unit tests, and standalone parts with nothing to tell). */
export const nullRecorder: EventRecorder = { event() {} };

/** The reference of a pod, or of one of its containers. */
export function podObjectRef(
  pod: { metadata?: { name?: string; namespace?: string; uid?: string } },
  container?: { name: string; init?: boolean; ephemeral?: boolean },
): ObjectRef {
  const list = container?.ephemeral
    ? "ephemeralContainers"
    : container?.init
    ? "initContainers"
    : "containers";
  return {
    kind: "Pod",
    apiVersion: "v1",
    namespace: pod.metadata?.namespace ?? "default",
    name: pod.metadata?.name ?? "",
    uid: pod.metadata?.uid,
    fieldPath: container ? `spec.${list}{${container.name}}` : undefined,
  };
}
