/**
 * Where a pod came from, as the kubelet records it in the `kubernetes.io/config.source`
 * annotation. Here rather than in sources/ so the runtime, kubelet and eviction code can ask
 * without loading the sources (and with them the API-server source).
 */
import type { V1Pod } from "@kubernetes/client-node";

export const CONFIG_SOURCE_ANNOTATION = "kubernetes.io/config.source";

/** Not from the API server: the source annotation is set and is not "api" (upstream IsStaticPod). */
export function isStaticPod(pod: V1Pod): boolean {
  const source = pod.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== "api";
}

const CONFIG_MIRROR = "kubernetes.io/config.mirror";
/** upstream scheduling.SystemCriticalPriority. */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** upstream kubelettypes.IsCriticalPod: static, mirror, or priority of at least 2e9. */
export function isCriticalPod(pod: V1Pod): boolean {
  return isStaticPod(pod) || pod.metadata?.annotations?.[CONFIG_MIRROR] !== undefined ||
    (pod.spec?.priority ?? 0) >= SYSTEM_CRITICAL_PRIORITY;
}
