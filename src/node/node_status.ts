/**
 * The v1 Node object a standalone agent would register: metadata and labels, capacity and
 * allocatable, conditions (the eviction manager's pressure conditions plus Ready), addresses,
 * nodeInfo and the daemon endpoint. Without an API server, `/node` is where it is seen.
 */
import type { V1Node, V1NodeCondition } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { errorMessage } from "../util/log.ts";
import { formatQuantity, type QuantityFormat } from "../util/quantity.ts";
import type { NodeConditionSnapshot, Threshold } from "../eviction/mod.ts";
import { thresholdQuantity } from "../eviction/mod.ts";
import { type MachineInfo, type MachineRoots, readMachineInfo } from "./_machine.ts";

/** upstream default maxPods. */
export const DEFAULT_MAX_PODS = 110;

export interface NodeStatusDeps {
  nodeName: string;
  /** The machine's hostname (the `Hostname` address and `kubernetes.io/hostname` label). */
  hostname: string;
  /** InternalIP addresses (--node-ip or detected); may be empty. */
  nodeIPs: string[];
  clock: Clock;
  logger: Logger;
  /** The agent's version, reported as kubeletVersion (`v` is prefixed when missing). */
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
  nodeFsCapacityBytes?: () => number | undefined;
  /** Hard thresholds: memory.available and nodefs.available are withheld from allocatable. */
  hardThresholds?: readonly Threshold[];
  /** Where /proc, /sys and /etc are (tests). */
  roots?: MachineRoots;
}

export interface NodeStatusProvider {
  /**
   * The Node as of now. Reads machine facts once (boot id every time), and asks the runtime
   * for its version until it answers; never fails for a missing fact, the field is left empty.
   */
  node(opts?: { signal?: AbortSignal }): Promise<V1Node>;
}

const ARCH: Record<string, string> = { x86_64: "amd64", aarch64: "arm64" };

export function createNodeStatusProvider(deps: NodeStatusDeps): NodeStatusProvider {
  const created = new Date(deps.clock.now());
  let machine: Promise<MachineInfo> | undefined;
  let runtimeVersion = "";
  let ready: { on: boolean; since: number } | undefined;
  const arch = ARCH[Deno.build.arch] ?? Deno.build.arch;

  const readyCondition = (now: number): V1NodeCondition => {
    const errors = deps.readinessErrors();
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

  return {
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
      const now = deps.clock.now();
      const capacity = capacityOf(
        info,
        deps.maxPods ?? DEFAULT_MAX_PODS,
        deps.nodeFsCapacityBytes?.(),
      );
      const pressure = (deps.pressureConditions?.() ?? []).map((c): V1NodeCondition => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message,
        lastHeartbeatTime: new Date(now),
        lastTransitionTime: new Date(c.lastTransitionTime),
      }));
      return {
        apiVersion: "v1",
        kind: "Node",
        metadata: {
          name: deps.nodeName,
          creationTimestamp: created,
          labels: {
            "beta.kubernetes.io/arch": arch,
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": arch,
            "kubernetes.io/hostname": deps.hostname,
            "kubernetes.io/os": "linux",
          },
        },
        spec: {},
        status: {
          capacity: format(capacity),
          allocatable: format(allocatable(capacity, deps.hardThresholds ?? [])),
          conditions: [...pressure, readyCondition(now)],
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
          },
        },
      };
    },
  };
}

type Amounts = Map<string, { value: number; format: QuantityFormat }>;

/** Node capacity as the kubelet reports it (cpu, memory, pods, ephemeral-storage, hugepages-*). */
export function capacityOf(info: MachineInfo, maxPods: number, nodeFsBytes?: number): Amounts {
  const out: Amounts = new Map();
  out.set("cpu", { value: info.cpus, format: "DecimalSI" });
  if (nodeFsBytes !== undefined) {
    out.set("ephemeral-storage", { value: nodeFsBytes, format: "BinarySI" });
  }
  for (const h of info.hugePages) {
    out.set(`hugepages-${formatQuantity(h.sizeKiB * 1024, "BinarySI")}`, {
      value: h.bytes,
      format: "BinarySI",
    });
  }
  out.set("memory", { value: info.memoryBytes, format: "BinarySI" });
  out.set("pods", { value: maxPods, format: "DecimalSI" });
  return out;
}

/**
 * Capacity minus the hard eviction reservation (upstream hardEvictionReservation): the
 * memory.available and nodefs.available thresholds. No kube/system reserved in denolet.
 */
export function allocatable(capacity: Amounts, hard: readonly Threshold[]): Amounts {
  const out: Amounts = new Map(capacity);
  const reserve = (resource: string, t: Threshold) => {
    const cap = capacity.get(resource);
    if (!cap) return;
    const value = Math.max(0, cap.value - thresholdQuantity(t.value, cap.value));
    out.set(resource, { ...cap, value });
  };
  for (const t of hard) {
    if (t.gracePeriodMs !== 0) continue;
    if (t.signal === "memory.available") reserve("memory", t);
    if (t.signal === "nodefs.available") reserve("ephemeral-storage", t);
  }
  return out;
}

function format(amounts: Amounts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of amounts) out[k] = formatQuantity(v.value, v.format);
  return out;
}
