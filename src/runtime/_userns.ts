/**
 * The pod's user namespace option for its sandbox and containers (upstream NamespacesForPod's
 * `UsernsOptions`), from the user namespace manager (src/userns).
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { Mount, UserNamespace } from "../cri/types.ts";
import { DenoletError } from "../util/errors.ts";

/** The part of src/userns's UserNamespaces the runtime calls (structural). */
export interface PodUserNamespaces {
  /**
   * NODE for a pod in the host's user namespace, POD with its ID mappings for `hostUsers:
   * false`. Throws when the pod's runtime handler has no support or no range can be had.
   */
  namespaceFor(pod: V1Pod, opts?: { handler?: string }): Promise<UserNamespace>;
  /** Frees the pod's range (the pod was terminated or removed). Idempotent. */
  release(uid: string): Promise<void>;
}

/**
 * The option for `pod`. Without a manager (unit tests, tools) a pod in the host's namespace
 * gets NODE as upstream sends it, and `hostUsers: false` is an error: never the host's
 * namespace in its place.
 */
export async function podUserNamespace(
  userns: PodUserNamespaces | undefined,
  pod: V1Pod,
  opts: { handler?: () => string } = {},
): Promise<UserNamespace> {
  // The handler only matters for a user namespace (and resolving it may fail): asked then only.
  if (userns) {
    const handler = pod.spec?.hostUsers === false ? opts.handler?.() : undefined;
    return await userns.namespaceFor(pod, { handler });
  }
  if (pod.spec?.hostUsers !== false) return { mode: "NODE" };
  throw new DenoletError("Cannot create a user namespace: this node has no manager for them");
}

/**
 * Upstream applyPlatformSpecificContainerConfig: in a user namespace every mount of the
 * container (volumes, /etc/hosts, the termination log) is idmapped with the pod's mappings, so
 * files the host owns as root show as the pod's root inside, and what the pod writes lands
 * owned by its host IDs.
 */
export function idmapMounts(mounts: Mount[], userns: UserNamespace | undefined): Mount[] {
  if (userns?.mode !== "POD") return mounts;
  return mounts.map((m) => ({
    ...m,
    uidMappings: userns.uids ?? [],
    gidMappings: userns.gids ?? [],
  }));
}
