import type { V1Pod, V1PodList } from "@kubernetes/client-node";
import type { RunningPod } from "../runtime/types.ts";

/** A `v1` PodList as upstream's `encodePods` writes it (list metadata is empty). */
export function podList(items: V1Pod[]): V1PodList {
  return { kind: "PodList", apiVersion: "v1", metadata: {}, items };
}

/**
 * A runtime pod as an API pod, like upstream's `kubecontainer.Pod.ToAPIPod`: only name,
 * namespace, uid and the running containers' names and images are known, so only they are set.
 */
export function runningPodToApiPod(p: RunningPod): V1Pod {
  const containers = p.containers
    .filter((c) => c.state === "running")
    .map((c) => {
      // RunningPod does not carry the image today; use it as soon as the runtime provides it.
      const image = "image" in c && typeof c.image === "string" ? c.image : undefined;
      return { name: c.name, image, resources: {} };
    });
  return {
    metadata: { name: p.name, namespace: p.namespace, uid: p.uid },
    spec: { containers },
    status: {},
  };
}
