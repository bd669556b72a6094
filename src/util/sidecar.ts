/**
 * Sidecar containers (KEP-753): an init container with `restartPolicy: Always` keeps running
 * beside the app containers. One definition for the status (kubelet), the pod actions and the
 * OOM score (runtime) and the pod cgroup sums (cm), so they always agree.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";

/**
 * An init container that is a sidecar (upstream `IsRestartableInitContainer`); only meaningful
 * for a container known to be an init container.
 */
export function isRestartableInit(c: V1Container): boolean {
  return c.restartPolicy === "Always";
}

/** One of the pod's init containers with `restartPolicy: Always` (upstream isSidecarContainer). */
export function isSidecar(pod: V1Pod, container: V1Container): boolean {
  return isRestartableInit(container) &&
    (pod.spec?.initContainers ?? []).some((c) => c.name === container.name);
}
