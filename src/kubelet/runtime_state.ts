/**
 * What the container runtime says it can do (upstream's runtimeState in pkg/kubelet/runtime.go):
 * its conditions, the handlers it serves with their features, its global features and its cgroup
 * driver, as read from CRI Status (every housekeeping round) and RuntimeConfig (at start and
 * whenever the runtime comes back). Admission, the sandbox config and the node status read it,
 * and the Node's Ready condition follows its RuntimeReady and NetworkReady conditions with
 * upstream's messages (updateRuntimeUp, runtimeErrors, networkErrors).
 */
import { type Clock, realClock } from "../util/clock.ts";
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

/**
 * Upstream's maxWaitForContainerRuntime: a runtime whose last ready Status is older than this is
 * "down" for the Node's Ready condition.
 */
export const RUNTIME_SYNC_THRESHOLD_MS = 30_000;

/** A readiness check beside the runtime's own (upstream addHealthCheck: the PLEG). */
export interface ReadinessCheck {
  name: string;
  ok: boolean;
  message?: string;
}

/** Holds the latest capabilities; `update*` are called by whoever talks to the runtime. */
export class RuntimeState {
  #caps: RuntimeCapabilities = {
    handlers: new Map(),
    handlersReported: false,
    features: NO_FEATURES,
    conditions: [],
  };
  #onChange: Array<(caps: RuntimeCapabilities) => void> = [];
  readonly #clock: Clock;
  /** Monotonic time of the last Status whose RuntimeReady was true; undefined before one. */
  #lastSync?: number;
  #runtimeError?: string;
  // Upstream's ErrNetworkUnknown until the first Status says.
  #networkError?: string = "network state unknown";

  constructor(deps: { clock: Clock } = { clock: realClock }) {
    this.#clock = deps.clock;
  }

  /** The latest capabilities; never blocks. */
  get capabilities(): RuntimeCapabilities {
    return this.#caps;
  }

  /** Records a CRI Status answer. */
  updateStatus(res: StatusResponse): void {
    const conditions = res.status?.conditions ?? [];
    const network = conditions.find((c) => c.type === "NetworkReady");
    this.#networkError = network?.status
      ? undefined
      : `container runtime network not ready: ${describeCondition(network)}`;
    const runtime = conditions.find((c) => c.type === "RuntimeReady");
    if (runtime?.status) {
      this.#runtimeError = undefined;
      this.#lastSync = this.#clock.monotonic();
    } else {
      this.#runtimeError = `container runtime not ready: ${describeCondition(runtime)}`;
    }
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

  /**
   * Why the node is not ready as far as the runtime goes, in upstream's words and order
   * (runtimeErrors, then networkErrors): no ready Status yet or none for 30 s, failing `checks`
   * (`<name> is not healthy: <message>`), RuntimeReady false, NetworkReady false. Empty when
   * ready. Never blocks.
   */
  readinessErrors(checks: readonly ReadinessCheck[] = []): string[] {
    const errors: string[] = [];
    if (this.#lastSync === undefined) {
      errors.push("container runtime status check may not have completed yet");
    } else if (this.#clock.monotonic() - this.#lastSync >= RUNTIME_SYNC_THRESHOLD_MS) {
      errors.push("container runtime is down");
    }
    for (const c of checks) {
      if (!c.ok) errors.push(`${c.name} is not healthy: ${c.message ?? ""}`);
    }
    if (this.#runtimeError) errors.push(this.#runtimeError);
    if (this.#networkError) errors.push(this.#networkError);
    return errors;
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

/** Go's %v of upstream's *RuntimeCondition: `Type=bool reason:R message:M`, or `<nil>`. */
function describeCondition(c: RuntimeCondition | undefined): string {
  if (!c) return "<nil>";
  return `${c.type}=${c.status} reason:${c.reason} message:${c.message}`;
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
