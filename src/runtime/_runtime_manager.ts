/**
 * The runtime manager (kubelet's `kubeGenericRuntimeManager`): turns a desired pod into CRI
 * calls. It owns the per-node state that outlives one sync (crash-loop and image back-off) and
 * delegates the steps: `_sync_pod.ts`, `_kill.ts`, `_status.ts`.
 */
import type { EventRecorder } from "../events/mod.ts";
import type { V1Pod } from "@kubernetes/client-node";
import type { ImageService, RuntimeHandlerFeatures, RuntimeService } from "../cri/types.ts";
import type { VolumeManager } from "../volumes/mod.ts";
import { Backoff } from "../util/backoff.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import type { ContainerConfigOptions } from "./_container_config.ts";
import type { EnvObjects } from "./_env.ts";
import { ImagePuller } from "./_image_puller.ts";
import type { PullQueueOptions } from "./_pull_queue.ts";
import type { PullSecretReader } from "./_pull_secrets.ts";
import type { PullRecords } from "./_pull_records.ts";
import type { Keyring } from "../credentials/mod.ts";
import { killPod, removeAll } from "./_kill.ts";
import type { ProbeFailure } from "./_pod_actions.ts";
import { podLogDirectory, type SandboxConfigOptions } from "./_sandbox_config.ts";
import { handlerSupportsRecursiveReadOnly } from "./_recursive_read_only.ts";
import { seccompProfileRoot } from "./_seccomp.ts";
import type { ServiceLookup } from "./_service_env.ts";
import { CRASH_BACKOFF_INITIAL_MS, CRASH_BACKOFF_MAX_MS } from "./_start.ts";
import { listPods, readPodStatus, type StatusDeps } from "./_status.ts";
import { syncPod } from "./_sync_pod.ts";
import type { PodUserNamespaces } from "./_userns.ts";
import { TerminationMessages } from "./_termination_message.ts";
import type { LogLinks } from "./log_links.ts";
import type { PodResourceState } from "../allocation/mod.ts";
import type { LegacyHashes } from "./_legacy_hashes.ts";
import { PodResizer } from "./_pod_resizer.ts";
import { SANDBOX_CREATION_CONCURRENCY, StartGate } from "./_start_gate.ts";
import type {
  PodRuntime,
  RunningPod,
  RuntimePodStatus,
  SyncPodContext,
  SyncPodResult,
} from "./types.ts";

/** Upstream default of --runtime-request-timeout. */
const DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS = 120_000;

export interface RuntimeManagerDeps {
  runtime: RuntimeService;
  image: ImageService;
  volumes: VolumeManager;
  clock: Clock;
  logger: Logger;
  nodeName: string;
  /** Root of the pod log directories, e.g. /var/log/pods. */
  podLogsDir: string;
  sandboxOptions: SandboxConfigOptions;
  /** The CRI client's per-call deadline (--runtime-request-timeout); default 2 min. */
  runtimeRequestTimeoutMs?: number;
  /** Deadline of one image pull; default the CRI client's. */
  imagePullTimeoutMs?: number;
  /**
   * --root-dir. When set, containers get the kubelet-managed /etc/hosts and termination-message
   * file under <rootDir>/pods/<uid>, and Localhost seccomp profiles are read from
   * <rootDir>/seccomp; unset skips the files and uses /var/lib/kubelet/seccomp.
   */
  rootDir?: string;
  /**
   * Node facts and settings for container configs (oom_score_adj, env resourceFieldRef,
   * memory.oom.group, --seccomp-default); default this machine, with the cgroup version unknown.
   */
  node?: Pick<
    ContainerConfigOptions,
    | "memoryCapacityBytes"
    | "nodeAllocatable"
    | "cgroupVersion"
    | "singleProcessOOMKill"
    | "seccompDefault"
    | "hugePageSizes"
    | "swap"
  >;
  /** Liveness/startup verdicts by container id (the prober's results); none by default. */
  probeFailure?: (containerId: string) => ProbeFailure | undefined;
  /**
   * Whether a container instance's startup probe has succeeded (the prober's results). The
   * init container after a sidecar with a startup probe waits for it; without this dep a
   * startup probe holds nothing up.
   */
  startupSucceeded?: (containerId: string) => boolean;
  /**
   * Pod-level cgroups (src/cm PodCgroups): `ensure` before each sync gives the sandbox's
   * cgroup parent ("" = the runtime's default); `remove` runs after the pod's containers and
   * sandboxes are removed. None by default.
   */
  podCgroups?: PodCgroupHooks;
  /** ConfigMaps and Secrets for container env (API mode); standalone, references are refused. */
  envObjects?: EnvObjects;
  /** Image pull secrets (API mode's Secret cache); standalone, none can be read. */
  pullSecrets?: PullSecretReader;
  /** serializeImagePulls / maxParallelImagePulls; default one pull at a time. */
  imagePulls?: PullQueueOptions;
  /** registryPullQPS / registryBurst; default no limit. */
  imagePullRate?: { qps: number; burst: number };
  /** The pulled-image records: present images go only to pods that may use them. */
  pullRecords?: PullRecords;
  /** Keyrings asked after the pod's pull secrets (credential provider plugins). */
  keyrings?: (pod: V1Pod) => Keyring[];
  /** The cluster's Services for service-link env (API mode); standalone, none are added. */
  services?: ServiceLookup;
  /** Pod and container events with upstream's reasons (API mode); none by default. */
  events?: EventRecorder;
  /** Sandboxes created at once (default 4); later pods wait their turn in arrival order. */
  sandboxCreationConcurrency?: number;
  /**
   * The runtime handler of the pod's RuntimeClass ("" for the runtime's default); throws when
   * the class cannot be resolved, which fails the sandbox as upstream does. Standalone, where
   * admission refuses runtimeClassName, every pod gets the default.
   */
  runtimeHandler?: (pod: V1Pod) => string;
  /**
   * Why an ephemeral container cannot be started here (a field the node does not implement),
   * or undefined. Ephemeral containers arrive after admission, so they are checked at start.
   */
  ephemeralProblem?: (pod: V1Pod, name: string) => string | undefined;
  /** The /var/log/containers links log shippers tail; none when unset. */
  logLinks?: LogLinks;
  /**
   * The pods' user namespaces (src/userns): ranges for `hostUsers: false`, released with the
   * pod. Without it such a pod's sandbox fails.
   */
  userns?: PodUserNamespaces;
  /**
   * The runtime's handlers with their features, from its latest CRI Status (RuntimeState);
   * read when a volumeMount asks for recursiveReadOnly. None by default, as a runtime that
   * lists none (containerd 1.6): no mount is then recursively read-only.
   */
  runtimeHandlers?: () => ReadonlyMap<string, RuntimeHandlerFeatures>;
  /**
   * What each container was last told of its cpu and memory (`<root-dir>/actuated_pods_state`),
   * against which resizes are computed; in memory by default.
   */
  actuated?: PodResourceState;
  /** Containers started by a denolet from before in-place resize; in memory by default. */
  legacyHashes?: LegacyHashes;
  /** InPlacePodLevelResourcesVerticalScaling: spec.resources resize too (default true). */
  podLevelResize?: boolean;
}

/**
 * A pod cgroup's cpu and memory values (src/cm ResourceConfig's part): cpuQuota -1 is no limit,
 * an unset memoryLimitBytes is none.
 */
export interface CgroupValues {
  cpuShares?: number;
  cpuQuota?: number;
  cpuPeriod?: number;
  memoryLimitBytes?: number;
}

/** The part of src/cm's PodCgroups the runtime manager calls (structural, to avoid a cycle). */
export interface PodCgroupHooks {
  ensure(pod: V1Pod): Promise<string>;
  remove(uid: string): Promise<void>;
  /** What the pod's cgroup is to hold for its spec (ResourceConfigForPod), cpu and memory. */
  desired?(pod: V1Pod): CgroupValues;
  /** What the pod's cgroup holds (GetPodCgroupConfig); undefined when it does not exist. */
  current?(pod: V1Pod): Promise<CgroupValues | undefined>;
  /** Writes `values` to the pod's existing cgroup (SetPodCgroupConfig). */
  update?(pod: V1Pod, values: CgroupValues): Promise<void>;
  /** The memory the pod's cgroup uses, in bytes; undefined when unknown. */
  memoryUsage?(pod: V1Pod): Promise<number | undefined>;
}

export function createRuntimeManager(deps: RuntimeManagerDeps): RuntimeManager {
  return new RuntimeManager(deps);
}

export class RuntimeManager implements PodRuntime {
  readonly #deps: RuntimeManagerDeps;
  readonly #requestTimeoutMs: number;
  /** Exposed for tests and for the node's image status. */
  readonly imagePuller: ImagePuller;
  readonly crashBackoff: Backoff;
  /** Sandbox creations in flight, first come first served (pods come up in arrival order). */
  readonly sandboxGate: StartGate;
  /** Exited containers' termination messages, read once each. */
  readonly #terminationMessages = new TerminationMessages();
  readonly #statusDeps: StatusDeps;
  readonly #seccompProfileRoot: string | undefined;
  readonly #resizer: PodResizer;

  constructor(deps: RuntimeManagerDeps) {
    this.#deps = deps;
    this.#seccompProfileRoot = deps.rootDir === undefined
      ? undefined
      : seccompProfileRoot(deps.rootDir);
    this.#requestTimeoutMs = deps.runtimeRequestTimeoutMs ?? DEFAULT_RUNTIME_REQUEST_TIMEOUT_MS;
    this.#resizer = new PodResizer({
      runtime: deps.runtime,
      podCgroups: deps.podCgroups,
      actuated: deps.actuated,
      legacyHashes: deps.legacyHashes,
      podLevel: deps.podLevelResize,
      node: deps.node,
      logger: deps.logger,
    });
    this.#statusDeps = {
      ...deps,
      terminationMessages: this.#terminationMessages,
      actuated: this.#resizer.actuated,
    };
    this.imagePuller = new ImagePuller({
      image: deps.image,
      clock: deps.clock,
      logger: deps.logger,
      pullTimeoutMs: deps.imagePullTimeoutMs,
      events: deps.events,
      queue: deps.imagePulls,
      rate: deps.imagePullRate,
      pullRecords: deps.pullRecords,
      keyrings: deps.keyrings,
    });
    this.sandboxGate = new StartGate(
      deps.sandboxCreationConcurrency ?? SANDBOX_CREATION_CONCURRENCY,
    );
    this.crashBackoff = new Backoff({
      initialMs: CRASH_BACKOFF_INITIAL_MS,
      maxMs: CRASH_BACKOFF_MAX_MS,
      clock: deps.clock,
    });
  }

  getPods(opts: { all: boolean; signal?: AbortSignal }): Promise<RunningPod[]> {
    return listPods(this.#deps, opts);
  }

  getPodStatus(
    uid: string,
    name: string,
    namespace: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<RuntimePodStatus> {
    return readPodStatus(this.#statusDeps, { uid, name, namespace }, opts);
  }

  async syncPod(
    pod: V1Pod,
    status: RuntimePodStatus,
    ctx: SyncPodContext,
  ): Promise<SyncPodResult> {
    const d = this.#deps;
    let cgroupParent = d.sandboxOptions.cgroupParent;
    if (d.podCgroups) {
      try {
        cgroupParent = (await d.podCgroups.ensure(pod)) || cgroupParent;
      } catch (err) {
        // As upstream, the sync stops here and is retried; containers must not escape limits.
        const message = `unable to ensure pod container exists: ${errorMessage(err)}`;
        this.#podLogger(pod).warn("Cannot create pod cgroup", { err });
        return { errors: [{ reason: "FailedToCreatePodContainer", message }] };
      }
    }
    const log = this.#podLogger(pod);
    const resolved = await this.#resizer.prepare(pod, status, log);
    return await syncPod({
      clock: d.clock,
      runtime: d.runtime,
      volumes: d.volumes,
      puller: this.imagePuller,
      crashBackoff: this.crashBackoff,
      runtimeRequestTimeoutMs: this.#requestTimeoutMs,
      sandboxOptions: { ...d.sandboxOptions, cgroupParent },
      nodeConfig: {
        nodeName: d.nodeName,
        podLogsDir: d.podLogsDir,
        clusterDomain: d.sandboxOptions.clusterDomain,
        envObjects: d.envObjects,
        services: d.services,
        seccompProfileRoot: this.#seccompProfileRoot,
        ...d.node,
      },
      rootDir: d.rootDir,
      probeFailure: d.probeFailure,
      startupSucceeded: d.startupSucceeded,
      events: d.events,
      sandboxGate: this.sandboxGate,
      runtimeHandler: d.runtimeHandler,
      pullSecrets: d.pullSecrets,
      ephemeralProblem: d.ephemeralProblem,
      logLinks: d.logLinks,
      userns: d.userns,
      recursiveReadOnlyMounts: (p) => this.recursiveReadOnlyMounts(p),
      ...this.#resizer.syncDeps(pod, log),
    }, {
      pod,
      status: resolved,
      log,
      hostIP: ctx.hostIP,
      signal: ctx.signal,
    });
  }

  podCgroupValues(pod: V1Pod): Promise<CgroupValues | undefined> {
    return this.#resizer.podCgroupValues(pod, this.#podLogger(pod));
  }

  resizeInProgress(pod: V1Pod, status: RuntimePodStatus): boolean {
    return this.#resizer.inProgress(pod, status);
  }

  recursiveReadOnlyMounts(pod: V1Pod): boolean {
    return handlerSupportsRecursiveReadOnly(pod, {
      handlers: this.#deps.runtimeHandlers?.(),
      runtimeHandler: this.#deps.runtimeHandler,
      log: this.#podLogger(pod),
    });
  }

  killPod(
    pod: V1Pod | undefined,
    running: RunningPod,
    opts: { gracePeriodSeconds?: number; signal?: AbortSignal },
  ): Promise<void> {
    const logger = this.#deps.logger.child({
      pod: `${running.namespace}/${running.name}`,
      uid: running.uid,
    });
    logger.info("Killing pod", { gracePeriodOverride: opts.gracePeriodSeconds });
    return killPod(this.#killDeps(logger), pod, running, opts);
  }

  async releasePod(uid: string, opts: { signal?: AbortSignal } = {}): Promise<void> {
    await this.#release(uid, this.#deps.logger.child({ uid }), opts.signal);
  }

  async #release(uid: string, logger: Logger, signal?: AbortSignal): Promise<void> {
    await this.#deps.volumes.tearDownPod(uid, { signal });
    // Upstream SyncTerminatedPod: the pod's containers are gone, so its IDs may go to another.
    await this.#deps.userns?.release(uid);
    if (this.#deps.podCgroups) {
      try {
        await this.#deps.podCgroups.remove(uid);
      } catch (err) {
        // Housekeeping's orphan cleanup retries; a leftover empty cgroup costs nothing.
        logger.warn("Cannot remove pod cgroup", { err });
      }
    }
  }

  async removePod(running: RunningPod, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const { signal } = opts;
    const logger = this.#deps.logger.child({
      pod: `${running.namespace}/${running.name}`,
      uid: running.uid,
    });
    logger.info("Removing pod");
    await removeAll(this.#killDeps(logger), {
      containers: running.containers.map((c) => c.id),
      sandboxes: running.sandboxes.map((s) => s.id),
    }, { what: `pod "${running.namespace}/${running.name}"`, signal });
    await this.#release(running.uid, logger, signal);
    const logDir = podLogDirectory(this.#deps.podLogsDir, {
      metadata: { name: running.name, namespace: running.namespace, uid: running.uid },
    });
    try {
      await Deno.remove(logDir, { recursive: true });
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        logger.warn("Cannot remove pod log directory", { dir: logDir, err });
      }
    }
  }

  forgetPod(uid: string): void {
    this.#resizer.forgetPod(uid);
    this.crashBackoff.resetWhere((key) => key.includes(`_${uid}_`));
    this.imagePuller.forgetPod(uid);
    this.#terminationMessages.forgetPod(uid);
  }

  #podLogger(pod: V1Pod): Logger {
    const m = pod.metadata ?? {};
    return this.#deps.logger.child({ pod: `${m.namespace}/${m.name}`, uid: m.uid });
  }

  #killDeps(logger: Logger) {
    return {
      runtime: this.#deps.runtime,
      logger,
      runtimeRequestTimeoutMs: this.#requestTimeoutMs,
      clock: this.#deps.clock,
      events: this.#deps.events,
      logLinks: this.#deps.logLinks,
    };
  }
}
