/**
 * The runtime manager's part of in-place resize: the actuated state (what each container was
 * last told of its cpu and memory), the records of containers older agents started, and the
 * resize step a sync runs (`_resize.ts`), with the container resources as at creation.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { LinuxContainerResources, RuntimeService } from "../cri/types.ts";
import { PodResourceState, resourceInfoForPod } from "../allocation/mod.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { LegacyHashes } from "./_legacy_hashes.ts";
import { resizePod, setActuatedContainer } from "./_resize.ts";
import { resizeInProgress, type ResizeView } from "./_resize_actions.ts";
import { linuxResources, type LinuxResourcesOptions } from "./_resources.ts";
import type { CgroupValues, PodCgroupHooks } from "./_runtime_manager.ts";
import type { SyncDeps } from "./_sync_pod.ts";
import type { RuntimePodStatus } from "./types.ts";

export interface PodResizerDeps {
  runtime: RuntimeService;
  podCgroups?: PodCgroupHooks;
  /** In memory when unset. */
  actuated?: PodResourceState;
  /** In memory when unset. */
  legacyHashes?: LegacyHashes;
  /** InPlacePodLevelResourcesVerticalScaling (default true). */
  podLevel?: boolean;
  /** The node's options for container resources (as the container config gets them). */
  node?: Omit<LinuxResourcesOptions, "pod" | "cpuPeriod">;
  logger: Logger;
}

export class PodResizer {
  readonly actuated: PodResourceState;
  readonly #legacy: LegacyHashes;
  readonly #podLevel: boolean;
  readonly #deps: PodResizerDeps;

  constructor(deps: PodResizerDeps) {
    this.#deps = deps;
    this.actuated = deps.actuated ?? PodResourceState.inMemory();
    this.#legacy = deps.legacyHashes ?? LegacyHashes.inMemory(deps.logger);
    this.#podLevel = deps.podLevel ?? true;
  }

  /**
   * Before a sync: a pod with no actuated record gets its allocation (InitializeActuatedPod:
   * what runs was started with it, a new pod or one adopted after an upgrade), and the
   * status's old containers their spec hash of today (recorded on disk first).
   */
  async prepare(pod: V1Pod, status: RuntimePodStatus, log: Logger): Promise<RuntimePodStatus> {
    const uid = pod.metadata?.uid ?? "";
    if (!this.actuated.has(uid)) {
      this.actuated.set(uid, resourceInfoForPod(pod, { podLevel: this.#podLevel }));
    }
    const resolved = this.#legacy.resolve(pod, status);
    await this.#legacy.flush().catch((err) =>
      log.debug(2, "Legacy container hashes not written yet", { err: errorMessage(err) })
    );
    return resolved;
  }

  /** What a sync of `pod` needs: the record at container creation and the resize step. */
  syncDeps(pod: V1Pod, log: Logger): Pick<SyncDeps, "actuate" | "resize"> {
    const d = this.#deps;
    return {
      actuate: async (p, c) => {
        setActuatedContainer({ actuated: this.actuated, podLevel: this.#podLevel }, p, c);
        await this.actuated.flush();
      },
      resize: {
        view: this.#view(pod.metadata?.uid ?? ""),
        run: (input) =>
          resizePod({
            runtime: d.runtime,
            podCgroups: d.podCgroups,
            actuated: this.actuated,
            podLevel: this.#podLevel,
            containerResources: (p, c) => this.#containerResources(p, c),
            containerMemoryUsage: async (id, signal) =>
              (await d.runtime.containerStats(id, { signal })).memory?.usageBytes?.value,
            log,
          }, input),
      },
    };
  }

  /** IsPodResizeInProgress: a running container's allocated cpu or memory is not applied yet. */
  inProgress(pod: V1Pod, status: RuntimePodStatus): boolean {
    return resizeInProgress(pod, status, this.#view(pod.metadata?.uid ?? ""));
  }

  /** What the pod's cgroup holds; undefined without one or when it cannot be read (logged). */
  async podCgroupValues(pod: V1Pod, log: Logger): Promise<CgroupValues | undefined> {
    try {
      return await this.#deps.podCgroups?.current?.(pod);
    } catch (err) {
      log.warn("Cannot read the pod cgroup's config", { err: errorMessage(err) });
      return undefined;
    }
  }

  forgetPod(uid: string): void {
    this.actuated.remove(uid);
    this.#legacy.forgetPod(uid);
  }

  #view(uid: string): ResizeView {
    return {
      actuatedContainer: (name) => this.actuated.container(uid, name),
      actuatedPodLevel: () => this.actuated.podLevel(uid),
      podLevel: this.#podLevel,
    };
  }

  #containerResources(pod: V1Pod, container: V1Container): LinuxContainerResources {
    return linuxResources(container, { ...this.#deps.node, pod });
  }
}
