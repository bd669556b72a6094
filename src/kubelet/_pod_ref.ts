import type { V1Pod } from "@kubernetes/client-node";

/** `namespace/name`, the way logs name a pod. */
export function podRef(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name ?? "?"}`;
}
