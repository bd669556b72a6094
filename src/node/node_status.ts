/**
 * The v1 Node object the agent registers: metadata, labels (the defaults plus --node-labels),
 * taints (--register-with-taints), capacity and allocatable (minus the reserved resources and
 * hard eviction thresholds), conditions (the eviction manager's pressure conditions plus
 * Ready), addresses, nodeInfo, images and the daemon endpoint. Standalone, `/node` serves it;
 * in API mode the registrar posts it.
 */
import type {
  V1ContainerImage,
  V1Node,
  V1NodeCondition,
  V1NodeStatus,
  V1Taint,
} from "@kubernetes/client-node";
import type { RuntimeCapabilities } from "../kubelet/runtime_state.ts";
import type { Image } from "../cri/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { errorMessage } from "../util/log.ts";
import type { NodeConditionSnapshot, Threshold } from "../eviction/mod.ts";
import { type MachineInfo, type MachineRoots, readMachineInfo } from "./_machine.ts";
import { allocatable, type Amounts, capacityOf, formatAmounts } from "./_allocatable.ts";
import { DEFAULT_MAX_IMAGES, nodeImages } from "./_images.ts";

/** upstream default maxPods. */
export const DEFAULT_MAX_PODS = 110;

/** How long the image list is reused (upstream's image manager refreshes its cache every 30 s). */
export const IMAGE_LIST_PERIOD_MS = 30_000;

/** The taint a Node registers with while an external cloud provider has not initialized it. */
export const UNINITIALIZED_TAINT: V1Taint = {
  key: "node.cloudprovider.kubernetes.io/uninitialized",
  value: "true",
  effect: "NoSchedule",
};

/** Where --node-ip goes for an external cloud provider (cloud-provider's well-known annotation). */
export const PROVIDED_NODE_IP = "alpha.kubernetes.io/provided-node-ip";

/** Capacities a Node must report to be Ready (upstream ReadyCondition, local storage isolation on). */
const REQUIRED_CAPACITY = ["cpu", "memory", "pods", "ephemeral-storage"];

export interface NodeStatusDeps {
  nodeName: string;
  /** The machine's hostname (the `Hostname` address and `kubernetes.io/hostname` label). */
  hostname: string;
  /** InternalIP addresses (--node-ip or detected); may be empty. */
  nodeIPs: string[];
  clock: Clock;
  logger: Logger;
  /** kubeletVersion (`v1.37.2+denolet.0.1.0`; `v` is prefixed when missing). */
  agentVersion: string;
  /** The port the node API listens on (daemonEndpoints.kubeletEndpoint). */
  port: number;
  maxPods?: number;
  /** MemoryPressure / DiskPressure / PIDPressure, from the eviction manager. Cheap. */
  pressureConditions?: () => NodeConditionSnapshot[];
  /** Readiness problems (runtime down, sync loop stuck...); empty = Ready. Cheap. */
  readinessErrors: () => string[];
  /** The runtime as `<name>://<version>`; may block on the CRI, honours `signal`. */
  runtimeVersion?: (opts: { signal?: AbortSignal }) => Promise<string>;
  /** Bytes of the filesystem holding the root dir (ephemeral-storage capacity), if known. */
  nodeFsCapacityBytes?: (
    opts: { signal?: AbortSignal },
  ) => number | undefined | Promise<number | undefined>;
  /** Hard thresholds: memory.available and nodefs.available are withheld from allocatable. */
  hardThresholds?: readonly Threshold[];
  /** --kube-reserved / --system-reserved (name -> quantity), withheld from allocatable. */
  kubeReserved?: Readonly<Record<string, string>>;
  systemReserved?: Readonly<Record<string, string>>;
  /** --node-labels: added to the default labels, overriding any of the same key. */
  nodeLabels?: Readonly<Record<string, string>>;
  /** --register-with-taints: the Node's spec.taints. */
  taints?: readonly V1Taint[];
  /**
   * --cloud-provider=external: the Node adds the uninitialized taint, and `providedNodeIP` (the
   * --node-ip given, not a detected one) goes to the provided-node-ip annotation, as upstream.
   * Without a --node-ip, pass no `nodeIPs`: the controller sets the addresses.
   */
  externalCloudProvider?: boolean;
  providedNodeIP?: string;
  /** --provider-id: the Node's spec.providerID. */
  providerID?: string;
  /** The runtime's images (CRI ListImages); asked at most every IMAGE_LIST_PERIOD_MS. */
  listImages?: (opts: { signal?: AbortSignal }) => Promise<Image[]>;
  /** nodeStatusMaxImages (default 50); -1 reports every image. */
  maxImages?: number;
  /** Where /proc, /sys and /etc are (tests). */
  roots?: MachineRoots;
  /**
   * The runtime's handlers and features (CRI Status), for status.runtimeHandlers and
   * status.features; both left out while the runtime has not said. Cheap, never blocks.
   */
  runtime?: () => Pick<RuntimeCapabilities, "handlers" | "handlersReported" | "features">;
  /** The machine facts when already read (at start); otherwise read on the first `node()`. */
  machine?: MachineInfo;
  /**
   * localStorageCapacityIsolation (default true): ephemeral-storage is reported and needed for
   * Ready; false leaves it out of the Node.
   */
  localStorageCapacityIsolation?: boolean;
  /** status.declaredFeatures (NodeDeclaredFeatures); left out when empty, as upstream's. */
  declaredFeatures?: () => string[];
}

export interface NodeStatusProvider {
  /**
   * The Node as of now. Reads machine facts once (boot id every time), and asks the runtime
   * for its version until it answers; never fails for a missing fact, the field is left empty.
   */
  node(opts?: { signal?: AbortSignal }): Promise<V1Node>;
  /**
   * The Node the last `node()` call built (allocatable, labels, taints for pod admission);
   * undefined before the first. Cheap, never blocks.
   */
  lastNode(): V1Node | undefined;
  /**
   * Asks whoever posts the Node (API mode) to do so now rather than at its next period: the
   * status changed in a way that cannot wait (a node shutdown began). Never blocks.
   */
  requestUpdate(): void;
  /** Calls `fn` at every requestUpdate; returns a function that stops it. */
  onUpdateRequest(fn: () => void): () => void;
}

const ARCH: Record<string, string> = { x86_64: "amd64", aarch64: "arm64" };

export function createNodeStatusProvider(deps: NodeStatusDeps): NodeStatusProvider {
  const created = new Date(deps.clock.now());
  let machine: Promise<MachineInfo> | undefined = deps.machine && Promise.resolve(deps.machine);
  let runtimeVersion = "";
  let ready: { on: boolean; since: number } | undefined;
  let images: { at: number; list: V1ContainerImage[] } | undefined;
  let last: V1Node | undefined;
  const arch = ARCH[Deno.build.arch] ?? Deno.build.arch;

  const readyCondition = (now: number, capacity: Amounts): V1NodeCondition => {
    // utilerrors.NewAggregate drops repeated messages.
    const errors = [...new Set(deps.readinessErrors())];
    const missing = REQUIRED_CAPACITY.filter((r) =>
      !capacity.has(r) &&
      (r !== "ephemeral-storage" || deps.localStorageCapacityIsolation !== false)
    );
    if (missing.length > 0) {
      errors.push(`missing node capacity for resources: ${missing.join(", ")}`);
    }
    const on = errors.length === 0;
    if (ready === undefined || ready.on !== on) ready = { on, since: now };
    return {
      type: "Ready",
      status: on ? "True" : "False",
      reason: on ? "KubeletReady" : "KubeletNotReady",
      // utilerrors.NewAggregate: one error alone, several as "[a, b]".
      message: on
        ? "kubelet is posting ready status"
        : errors.length === 1
        ? errors[0]
        : `[${errors.join(", ")}]`,
      lastHeartbeatTime: new Date(now),
      lastTransitionTime: new Date(ready.since),
    };
  };

  const imageList = async (signal?: AbortSignal): Promise<V1ContainerImage[]> => {
    const now = deps.clock.monotonic();
    if (!deps.listImages || (images && now - images.at < IMAGE_LIST_PERIOD_MS)) {
      return images?.list ?? [];
    }
    try {
      const list = nodeImages(
        await deps.listImages({ signal }),
        deps.maxImages ?? DEFAULT_MAX_IMAGES,
      );
      images = { at: now, list };
    } catch (err) {
      // The last list stands until the runtime answers again.
      deps.logger.debug(2, "Cannot list images for the node status", { err: errorMessage(err) });
    }
    return images?.list ?? [];
  };

  const nodeFsBytes = async (signal?: AbortSignal): Promise<number | undefined> => {
    if (deps.localStorageCapacityIsolation === false) return undefined;
    try {
      return await deps.nodeFsCapacityBytes?.({ signal });
    } catch (err) {
      deps.logger.debug(2, "Cannot read the node filesystem's capacity", {
        err: errorMessage(err),
      });
      return undefined;
    }
  };

  const updateRequests = new Set<() => void>();
  return {
    lastNode: () => last,
    requestUpdate: () => updateRequests.forEach((fn) => fn()),
    onUpdateRequest(fn) {
      updateRequests.add(fn);
      return () => updateRequests.delete(fn);
    },
    async node(opts = {}) {
      machine ??= readMachineInfo(deps.roots, { logger: deps.logger });
      const info = await machine;
      if (runtimeVersion === "" && deps.runtimeVersion) {
        try {
          runtimeVersion = await deps.runtimeVersion({ signal: opts.signal });
        } catch (err) {
          deps.logger.debug(2, "Cannot get the runtime version", { err: errorMessage(err) });
        }
      }
      const [nodeImageList, fsBytes] = await Promise.all([
        imageList(opts.signal),
        nodeFsBytes(opts.signal),
      ]);
      const now = deps.clock.now();
      const capacity = capacityOf(info, deps.maxPods ?? DEFAULT_MAX_PODS, fsBytes);
      const pressure = (deps.pressureConditions?.() ?? []).map((c): V1NodeCondition => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message,
        lastHeartbeatTime: new Date(now),
        lastTransitionTime: new Date(c.lastTransitionTime),
      }));
      const labels: Record<string, string> = {
        "beta.kubernetes.io/arch": arch,
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": arch,
        "kubernetes.io/hostname": deps.hostname,
        "kubernetes.io/os": "linux",
        ...deps.nodeLabels,
      };
      last = {
        apiVersion: "v1",
        kind: "Node",
        metadata: {
          name: deps.nodeName,
          creationTimestamp: created,
          labels,
          ...(deps.externalCloudProvider && deps.providedNodeIP
            ? { annotations: { [PROVIDED_NODE_IP]: deps.providedNodeIP } }
            : {}),
        },
        spec: nodeSpec(deps),
        status: {
          capacity: formatAmounts(capacity),
          allocatable: formatAmounts(
            allocatable(capacity, {
              hard: deps.hardThresholds,
              kubeReserved: deps.kubeReserved,
              systemReserved: deps.systemReserved,
            }),
          ),
          conditions: [...pressure, readyCondition(now, capacity)],
          addresses: [
            ...deps.nodeIPs.map((address) => ({ type: "InternalIP", address })),
            { type: "Hostname", address: deps.hostname },
          ],
          daemonEndpoints: { kubeletEndpoint: { Port: deps.port } },
          nodeInfo: {
            machineID: info.machineID,
            systemUUID: info.systemUUID,
            // Read once: a new boot id means a reboot, which restarts the agent too.
            bootID: info.bootID,
            kernelVersion: info.kernelVersion,
            osImage: info.osImage,
            containerRuntimeVersion: runtimeVersion,
            kubeletVersion: deps.agentVersion.startsWith("v")
              ? deps.agentVersion
              : `v${deps.agentVersion}`,
            kubeProxyVersion: "",
            operatingSystem: "linux",
            architecture: arch,
            // NodeSwap: the swap the node has, when it has any.
            ...(info.swapBytes > 0 ? { swap: { capacity: info.swapBytes } } : {}),
          },
          images: nodeImageList,
          ...runtimeStatus(deps.runtime?.()),
          ...declared(deps.declaredFeatures?.() ?? []),
        },
      };
      return last;
    },
  };
}

/** Taints (the uninitialized one last, as upstream appends it) and the provider id. */
function nodeSpec(deps: NodeStatusDeps): V1Node["spec"] {
  const taints = [
    ...(deps.taints ?? []).map((t) => ({ ...t })),
    ...(deps.externalCloudProvider ? [{ ...UNINITIALIZED_TAINT }] : []),
  ];
  return {
    ...(taints.length > 0 ? { taints } : {}),
    ...(deps.providerID ? { providerID: deps.providerID } : {}),
  };
}

/** V1NodeStatus of client-node 1.4 predates the field. */
export type NodeStatusWithDeclared = V1NodeStatus & { declaredFeatures?: string[] };

function declared(features: string[]): Pick<NodeStatusWithDeclared, "declaredFeatures"> {
  return features.length ? { declaredFeatures: [...features] } : {};
}

/** status.runtimeHandlers and status.features, as upstream's RuntimeHandlers and NodeFeatures. */
function runtimeStatus(
  caps: Pick<RuntimeCapabilities, "handlers" | "handlersReported" | "features"> | undefined,
): Pick<V1NodeStatus, "runtimeHandlers" | "features"> {
  // Runtimes before CRI 1.30 (containerd 1.6) report neither; upstream then sets neither.
  if (!caps?.handlersReported) return {};
  return {
    runtimeHandlers: [...caps.handlers].map(([name, f]) => ({
      name,
      features: {
        recursiveReadOnlyMounts: f.recursiveReadOnlyMounts,
        userNamespaces: f.userNamespaces,
      },
    })),
    features: { supplementalGroupsPolicy: caps.features.supplementalGroupsPolicy },
  };
}
