/**
 * Whether the runtime handler a pod runs on can make a mount recursively read-only (kubelet_pods.go
 * runtimeClassSupportsRecursiveReadOnlyMounts): the runtime says so per handler in CRI Status.
 * A runtime that lists no handlers (containerd 1.6), a handler it does not list and a class
 * that cannot be resolved all mean it cannot.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimeHandlerFeatures } from "../cri/types.ts";
import type { Logger } from "../util/log.ts";

export function handlerSupportsRecursiveReadOnly(
  pod: V1Pod,
  deps: {
    /** The handlers of the runtime's latest CRI Status, by name ("" its default). */
    handlers?: ReadonlyMap<string, RuntimeHandlerFeatures>;
    /** The pod's RuntimeClass handler; throws for a class that cannot be resolved. */
    runtimeHandler?: (pod: V1Pod) => string;
    log: Logger;
  },
): boolean {
  if (!deps.handlers?.size) return false;
  let name: string;
  try {
    name = deps.runtimeHandler?.(pod) ?? "";
  } catch (err) {
    deps.log.warn("Cannot look up the runtime handler", { err });
    return false;
  }
  const handler = deps.handlers.get(name);
  if (!handler) {
    deps.log.warn("Unknown runtime handler", { runtimeHandler: name });
    return false;
  }
  return handler.recursiveReadOnlyMounts;
}
