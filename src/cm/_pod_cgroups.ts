/**
 * Pod-level cgroups under the QoS cgroups (kubelet pod_container_manager_linux.go and
 * qos_container_manager_linux.go, cgroupfs driver):
 *
 *   <cgroupRoot>/kubepods               node allocatable (cpu shares, memory limit)
 *   <cgroupRoot>/kubepods/pod<uid>      Guaranteed pods
 *   <cgroupRoot>/kubepods/burstable     shares = summed cpu requests of Burstable pods
 *   <cgroupRoot>/kubepods/besteffort    shares = 2
 */
import type { V1Pod } from "@kubernetes/client-node";
import { cpus, totalmem } from "node:os";
import { milliCPUToShares } from "../runtime/mod.ts";
import { type Clock, realClock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { type QOSClass, qosClass } from "../util/qos.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import { CgroupOwnership } from "./_ownership.ts";
import {
  kubepodsEnforced,
  type NodeAllocatable,
  nodeAllocatableConfig,
  type NodeEvents,
  nodeRef,
  REASON_FAILED,
} from "./_node_allocatable.ts";
import {
  podCPURequestMilli,
  podHugePageLimits,
  type PodResourceOptions,
  type ResourceConfig,
  resourceConfigForPod,
} from "./_resource_config.ts";
import { systemdCgroupPath } from "./_systemd_names.ts";
import type { CgroupDriver, CgroupTree } from "./_tree.ts";

/** Pod cgroups as the runtime manager and housekeeping use them. */
export interface PodCgroups {
  /**
   * Creates the pod's cgroup (and the QoS cgroups on first use) with the values of
   * resourceConfigForPod; returns the cgroup parent for the sandbox, or "" when pod cgroups
   * are disabled (--cgroups-per-qos=false). Idempotent: an existing cgroup is left as it is.
   * Throws CgroupError (with the file) when a write fails.
   */
  ensure(pod: V1Pod): Promise<string>;
  /**
   * Removes the pod's cgroup wherever it is (any QoS level, every hierarchy). Call after its
   * containers and sandboxes are removed; throws CgroupError while a process is still inside.
   * A missing cgroup is not an error.
   */
  remove(uid: string): Promise<void>;
  /**
   * Removes the cgroups this agent created for pods not in `desired` (housekeeping); pod
   * cgroups it did not create are never touched. Best effort: a busy cgroup is retried on the
   * next call and its failure logged once, then at most every few minutes. Returns the UIDs
   * whose cgroups were removed.
   */
  cleanupOrphans(desired: Set<string>): Promise<string[]>;
  /** What the pod's cgroup is to hold for its spec: cpu and memory of resourceConfigForPod. */
  desired?(pod: V1Pod): ResourceConfig;
  /** What the pod's cgroup holds now (GetPodCgroupConfig); undefined when it does not exist. */
  current?(pod: V1Pod): Promise<ResourceConfig | undefined>;
  /** Writes cpu and memory values to the pod's cgroup (SetPodCgroupConfig, in-place resize). */
  update?(pod: V1Pod, config: ResourceConfig): Promise<void>;
  /** The memory the pod's cgroup uses now, in bytes. */
  memoryUsage?(pod: V1Pod): Promise<number | undefined>;
}

export interface PodCgroupsDeps {
  /** null when --cgroups-per-qos=false: ensure returns "" and nothing is created. */
  tree: CgroupTree | null;
  logger: Logger;
  /** --cgroup-root; default "/". */
  cgroupRoot?: string;
  /**
   * What the kubepods cgroup is sized to: capacity, less kube- and system-reserved when
   * --enforce-node-allocatable has `pods`; default this machine's cpus and memory.
   */
  nodeAllocatable?: NodeAllocatable;
  /** Where the node allocatable enforcement events go (API mode). */
  nodeEvents?: NodeEvents;
  /** --cpu-cfs-quota and its period. */
  resources?: PodResourceOptions;
  /** --pod-max-pids: pids.max of each new pod cgroup when positive; otherwise none is written. */
  podPidsLimit?: number;
  /** The host's huge page sizes ("2MB"): the QoS cgroups leave each unbounded. */
  hugePageSizes?: readonly string[];
  /**
   * Where the records of the pod cgroups this agent created are kept (`_ownership.ts`);
   * without one, only the cgroups this process created count as its own.
   */
  stateDir?: string;
  /** Paces repeated failure warnings; default the real clock. */
  clock?: Clock;
}

export const KUBEPODS = "kubepods";
/** upstream's `1 << 62`: a hugetlb limit no node reaches. */
const HUGETLB_UNBOUNDED = 2 ** 62;

/** How long a failed kubepods limit update waits before it is tried again (upstream: 1 min). */
export const KUBEPODS_RETRY_MS = 60_000;

const QOS_DIRS: Record<QOSClass, string> = {
  Guaranteed: "",
  Burstable: "burstable",
  BestEffort: "besteffort",
};

/**
 * The pod's cgroup as the runtime and the hierarchy know it: "/kubepods/burstable/pod<uid>"
 * with the cgroupfs driver, "/kubepods.slice/kubepods-burstable.slice/
 * kubepods-burstable-pod<uid with _>.slice" with the systemd driver.
 */
export function podCgroupName(
  pod: V1Pod,
  cgroupRoot = "/",
  driver: CgroupDriver = "cgroupfs",
): string {
  const name = joinName(
    cgroupRoot,
    KUBEPODS,
    QOS_DIRS[qosClass(pod)],
    `pod${pod.metadata?.uid ?? ""}`,
  );
  return driver === "systemd" ? systemdCgroupPath(name) : name;
}

/** The node allocatable cgroup: "/kubepods", or "/kubepods.slice" with the systemd driver. */
export function kubepodsCgroupName(cgroupRoot = "/", driver: CgroupDriver = "cgroupfs"): string {
  const name = joinName(cgroupRoot, KUBEPODS);
  return driver === "systemd" ? systemdCgroupPath(name) : name;
}

function joinName(...parts: string[]): string {
  return ("/" + parts.filter((p) => p !== "" && p !== "/").join("/")).replace(/\/+/g, "/");
}

export function createPodCgroups(deps: PodCgroupsDeps): PodCgroups {
  return deps.tree ? new PodCgroupManager({ ...deps, tree: deps.tree }) : NOOP;
}

const NOOP: PodCgroups = {
  ensure: () => Promise.resolve(""),
  remove: () => Promise.resolve(),
  cleanupOrphans: () => Promise.resolve([]),
};

class PodCgroupManager implements PodCgroups {
  readonly #tree: CgroupTree;
  readonly #deps: PodCgroupsDeps;
  readonly #root: string;
  readonly #owned: CgroupOwnership;
  readonly #failures: RepeatedFailures;
  /** Pods with a cgroup, for the burstable shares. */
  readonly #pods = new Map<string, V1Pod>();
  #qosReady?: Promise<void>;
  #burstableShares = -1;
  /** When the kubepods limits are to be written again after a failure; undefined once done. */
  #kubepodsRetryAt?: number;

  constructor(deps: PodCgroupsDeps & { tree: CgroupTree }) {
    this.#tree = deps.tree;
    this.#deps = deps;
    this.#root = deps.cgroupRoot ?? "/";
    this.#owned = new CgroupOwnership(deps.stateDir);
    this.#failures = new RepeatedFailures(deps.logger, { clock: deps.clock ?? realClock });
  }

  #qosName(qos: QOSClass): string {
    return joinName(this.#root, KUBEPODS, QOS_DIRS[qos]);
  }

  async ensure(pod: V1Pod): Promise<string> {
    const name = podCgroupName(pod, this.#root);
    const literal = this.#tree.literal(name);
    this.#qosReady ??= this.#setUpQOS().catch((err) => {
      this.#qosReady = undefined; // retried on the next pod
      throw err;
    });
    await this.#qosReady;
    const uid = pod.metadata?.uid ?? "";
    // Recorded first, so no crash can leave a cgroup of ours that we would not know again.
    // An existing cgroup of a pod this agent runs is its own too (created before a restart).
    await this.#owned.claim(uid);
    this.#pods.set(uid, pod);
    if (await this.#tree.exists(name)) {
      // A resize changes what a Burstable pod asked for (written only when the shares change).
      await this.#updateBurstable();
      return literal;
    }
    const config = resourceConfigForPod(pod, this.#deps.resources);
    config.hugePageLimits = podHugePageLimits(pod);
    const pids = this.#deps.podPidsLimit ?? -1;
    if (pids > 0) config.pidsLimit = pids;
    await this.#updateBurstable();
    await this.#tree.create(name, config);
    this.#deps.logger.info("Created pod cgroup", { uid, cgroup: literal, ...config });
    return literal;
  }

  async #setUpQOS(): Promise<void> {
    await this.#tree.create(this.#qosName("Guaranteed"), {});
    await this.#enforceKubepods();
    // The QoS levels leave huge pages to the pod cgroups below them (setHugePagesUnbounded).
    const unbounded = Object.fromEntries(
      (this.#deps.hugePageSizes ?? []).map((size) => [size, HUGETLB_UNBOUNDED]),
    );
    await this.#tree.create(this.#qosName("BestEffort"), {
      cpuShares: milliCPUToShares(0),
      hugePageLimits: unbounded,
    });
    await this.#tree.create(this.#qosName("Burstable"), { hugePageLimits: unbounded });
    await this.#updateBurstable();
  }

  /**
   * Sizes kubepods to the node allocatable. Pods already running may use more memory than the
   * new limit allows (the kernel refuses it), so a failure is reported and tried again a minute
   * later, while pods keep starting (upstream enforceNodeAllocatableCgroups).
   */
  async #enforceKubepods(): Promise<void> {
    const alloc = this.#deps.nodeAllocatable ??
      { cpuMilli: cpus().length * 1000, memoryBytes: totalmem() };
    const name = this.#qosName("Guaranteed");
    const clock = this.#deps.clock ?? realClock;
    try {
      await this.#tree.update(name, nodeAllocatableConfig(alloc));
      this.#kubepodsRetryAt = undefined;
      this.#deps.logger.info("Node allocatable enforced on the pods' cgroup", {
        cgroup: name,
        ...alloc,
      });
      kubepodsEnforced(this.#deps.nodeEvents);
    } catch (err) {
      this.#kubepodsRetryAt = clock.now() + KUBEPODS_RETRY_MS;
      const message = `Failed to update Node Allocatable Limits ${JSON.stringify(name)}: ${
        errorMessage(err)
      }`;
      this.#deps.logger.warn(message, { retryInMs: KUBEPODS_RETRY_MS });
      const node = this.#deps.nodeEvents;
      node?.events.event(nodeRef(node.nodeName), "Warning", REASON_FAILED, message);
    }
  }

  /** Burstable pods share CPU in proportion to what they asked for (qos UpdateCgroups). */
  async #updateBurstable(): Promise<void> {
    let milli = 0;
    for (const pod of this.#pods.values()) {
      if (qosClass(pod) === "Burstable") milli += podCPURequestMilli(pod);
    }
    const shares = milliCPUToShares(milli);
    if (shares === this.#burstableShares) return;
    await this.#tree.update(this.#qosName("Burstable"), { cpuShares: shares });
    this.#burstableShares = shares;
  }

  async remove(uid: string): Promise<void> {
    await this.#removeAll(uid);
  }

  desired(pod: V1Pod): ResourceConfig {
    const { cpuShares, cpuQuota, cpuPeriod, memoryLimitBytes } = resourceConfigForPod(
      pod,
      this.#deps.resources,
    );
    return { cpuShares, cpuQuota, cpuPeriod, memoryLimitBytes };
  }

  current(pod: V1Pod): Promise<ResourceConfig | undefined> {
    return this.#tree.read(podCgroupName(pod, this.#root));
  }

  async update(pod: V1Pod, config: ResourceConfig): Promise<void> {
    const name = podCgroupName(pod, this.#root);
    await this.#tree.update(name, config);
    this.#deps.logger.info("Resized pod cgroup", {
      uid: pod.metadata?.uid,
      cgroup: name,
      ...config,
    });
  }

  memoryUsage(pod: V1Pod): Promise<number | undefined> {
    return this.#tree.memoryUsage(podCgroupName(pod, this.#root));
  }

  /** Removes the pod's cgroup at every QoS level; true when one existed. */
  async #removeAll(uid: string): Promise<boolean> {
    let existed = false;
    for (const qos of ["Guaranteed", "Burstable", "BestEffort"] as const) {
      const name = joinName(this.#qosName(qos), `pod${uid}`);
      const here = await this.#tree.exists(name);
      // Even when the main hierarchy has no directory, runc may have left one in another.
      await this.#tree.remove(name);
      if (here) {
        this.#deps.logger.info("Removed pod cgroup", { uid, cgroup: this.#tree.literal(name) });
      }
      existed ||= here;
    }
    await this.#owned.release(uid);
    this.#failures.clear(uid);
    if (this.#pods.delete(uid) && this.#qosReady) await this.#updateBurstable();
    return existed;
  }

  async cleanupOrphans(desired: Set<string>): Promise<string[]> {
    const retryAt = this.#kubepodsRetryAt;
    if (retryAt !== undefined && (this.#deps.clock ?? realClock).now() >= retryAt) {
      await this.#enforceKubepods();
    }
    const removed: string[] = [];
    for (const uid of await this.#owned.list()) {
      if (desired.has(uid)) continue;
      try {
        if (await this.#removeAll(uid)) removed.push(uid);
      } catch (err) {
        this.#failures.warn(uid, "Cannot remove orphaned pod cgroup yet", {
          uid,
          err: errorMessage(err),
        });
      }
    }
    return removed;
  }
}
