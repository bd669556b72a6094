/** Reading the API pod status the way probe workers need it. */
import type { V1ContainerStatus, V1PodStatus } from "@kubernetes/client-node";

/** "containerd://abc" → "abc" (kubecontainer.ParseContainerID). */
export function parseContainerId(s: string): string {
  const i = s.indexOf("://");
  return i < 0 ? s : s.slice(i + 3);
}

/** App container statuses first, then init containers (sidecars); only ones with an id. */
export function findContainerStatus(
  status: V1PodStatus,
  name: string,
): V1ContainerStatus | undefined {
  return findIn(status.containerStatuses, name) ?? findIn(status.initContainerStatuses, name);
}

function findIn(
  list: V1ContainerStatus[] | undefined,
  name: string,
): V1ContainerStatus | undefined {
  if (list === undefined) return undefined;
  for (const cs of list) if (cs.name === name && cs.containerID) return cs;
  return undefined;
}

export function toMillis(t: Date | string | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  return Number.isNaN(ms) ? undefined : ms;
}
