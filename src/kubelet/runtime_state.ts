/**
 * What the container runtime says it can do (upstream's runtimeState in pkg/kubelet/runtime.go):
 * its conditions, the handlers it serves with their features, its global features and its cgroup
 * driver, as read from CRI Status (every housekeeping round) and RuntimeConfig (at start and
 * whenever the runtime comes back). Admission, the sandbox config and the node status read it.
 */
import type {
  RuntimeCondition,
  RuntimeConfigResponse,
  RuntimeFeatures,
  RuntimeHandlerFeatures,
  StatusResponse,
} from "../cri/types.ts";

export interface RuntimeCapabilities {
  /**
   * The handlers the runtime serves ("" is its default), with their features. Empty until the
   * first Status, and for runtimes older than CRI 1.30, which do not list them.
   */
  readonly handlers: ReadonlyMap<string, RuntimeHandlerFeatures>;
  /** Whether the runtime listed its handlers at all (containerd 1.6 does not). */
  readonly handlersReported: boolean;
  readonly features: RuntimeFeatures;
  readonly conditions: readonly RuntimeCondition[];
  /** The runtime's cgroup driver from CRI RuntimeConfig; undefined when it does not say. */
  readonly cgroupDriver?: "systemd" | "cgroupfs";
}

const NO_FEATURES: RuntimeFeatures = {
  supplementalGroupsPolicy: false,
  userNamespacesHostNetwork: false,
  mountOptions: false,
};

/** Holds the latest capabilities; `update*` are called by whoever talks to the runtime. */
export class RuntimeState {
  #caps: RuntimeCapabilities = {
    handlers: new Map(),
    handlersReported: false,
    features: NO_FEATURES,
    conditions: [],
  };
  #onChange: Array<(caps: RuntimeCapabilities) => void> = [];

  /** The latest capabilities; never blocks. */
  get capabilities(): RuntimeCapabilities {
    return this.#caps;
  }

  /** Records a CRI Status answer. */
  updateStatus(res: StatusResponse): void {
    const handlers = new Map<string, RuntimeHandlerFeatures>();
    for (const h of res.runtimeHandlers ?? []) {
      handlers.set(h.name, {
        recursiveReadOnlyMounts: h.features?.recursiveReadOnlyMounts === true,
        userNamespaces: h.features?.userNamespaces === true,
      });
    }
    this.#set({
      ...this.#caps,
      handlers,
      handlersReported: handlers.size > 0,
      features: { ...NO_FEATURES, ...res.features },
      conditions: res.status?.conditions ?? [],
    });
  }

  /** Records a CRI RuntimeConfig answer (undefined: the runtime does not serve the call). */
  updateConfig(res: RuntimeConfigResponse | undefined): void {
    const driver = res?.linux?.cgroupDriver;
    this.#set({
      ...this.#caps,
      cgroupDriver: driver === "SYSTEMD"
        ? "systemd"
        : driver === "CGROUPFS"
        ? "cgroupfs"
        : undefined,
    });
  }

  /** Calls `fn` after every change of the capabilities (not for an identical answer). */
  onChange(fn: (caps: RuntimeCapabilities) => void): void {
    this.#onChange.push(fn);
  }

  #set(next: RuntimeCapabilities): void {
    const changed = fingerprint(next) !== fingerprint(this.#caps);
    this.#caps = next;
    if (changed) { for (const fn of this.#onChange) fn(next); }
  }
}

function fingerprint(c: RuntimeCapabilities): string {
  return JSON.stringify([
    [...c.handlers].sort(([a], [b]) => a.localeCompare(b)),
    c.features,
    c.conditions.map((x) => [x.type, x.status, x.reason, x.message]),
    c.cgroupDriver,
  ]);
}

/**
 * Upstream HandlerSupportsUserNamespaces: whether `handler` ("" for the default) serves user
 * namespaces. false when the runtime lists no handlers at all (containerd 1.6, CRI before 1.30),
 * "unknown" when it lists others but not this one.
 */
export function handlerUserNamespaces(
  caps: RuntimeCapabilities,
  handler: string,
): boolean | "unknown" {
  if (!caps.handlersReported) return false;
  const h = caps.handlers.get(handler);
  return h === undefined ? "unknown" : h.userNamespaces;
}

/** Whether `handler` ("" for the default) serves user namespaces; false when unknown. */
export function handlerSupportsUserNamespaces(caps: RuntimeCapabilities, handler: string): boolean {
  return caps.handlers.get(handler)?.userNamespaces === true;
}
