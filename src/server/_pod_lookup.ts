/**
 * Finding what a node API path names: a pod by namespace and name among the node's pods, a
 * container in its spec and status. Errors name what is missing, for the 404.
 */
import type { V1Container, V1ContainerStatus, V1Pod } from "@kubernetes/client-node";
import { NotFoundError } from "../util/errors.ts";

export function findPod(pods: readonly V1Pod[], namespace: string, name: string): V1Pod {
  const pod = pods.find((p) => p.metadata?.namespace === namespace && p.metadata?.name === name);
  if (pod === undefined) {
    throw new NotFoundError(
      `pod ${JSON.stringify(name)} does not exist in namespace ${JSON.stringify(namespace)}`,
    );
  }
  return pod;
}

/** The container's spec among containers, init containers and ephemeral containers. */
export function containerSpec(pod: V1Pod, name: string): V1Container | undefined {
  const spec = pod.spec;
  return spec?.containers?.find((c) => c.name === name) ??
    spec?.initContainers?.find((c) => c.name === name) ??
    (spec?.ephemeralContainers?.find((c) => c.name === name) as V1Container | undefined);
}

export function requireContainer(pod: V1Pod, name: string): V1Container {
  const c = containerSpec(pod, name);
  if (c === undefined) {
    throw new NotFoundError(
      `container ${JSON.stringify(name)} not found in pod ${JSON.stringify(pod.metadata?.name)}`,
    );
  }
  return c;
}

export function containerStatus(pod: V1Pod, name: string): V1ContainerStatus | undefined {
  const s = pod.status;
  return s?.containerStatuses?.find((c) => c.name === name) ??
    s?.initContainerStatuses?.find((c) => c.name === name) ??
    s?.ephemeralContainerStatuses?.find((c) => c.name === name);
}

/** `containerd://abc` → `abc`: the runtime's own id. */
export function runtimeContainerId(id: string): string {
  const i = id.indexOf("://");
  return i < 0 ? id : id.slice(i + 3);
}
