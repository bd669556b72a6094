/**
 * Dead container and sandbox garbage collection (kuberuntime_gc.go). Containers are grouped by
 * (pod UID, container name) — an "evict unit" — newest first; the oldest go first.
 */
import type { Container, PodSandbox, RuntimeService } from "../cri/types.ts";
import {
  LABEL_CONTAINER_NAME,
  LABEL_NODE_NAME,
  LABEL_POD_UID,
  type LogLinks,
} from "../runtime/mod.ts";
import type { Clock } from "../util/clock.ts";
import { isKind, NotFoundError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";

export interface ContainerGCPolicy {
  /** --minimum-container-ttl-duration: a dead container younger than this stays. Default 0. */
  minAgeMs: number;
  /** --maximum-dead-containers-per-container; < 0 = no limit. Default 1. */
  maxPerPodContainer: number;
  /** --maximum-dead-containers; < 0 = no limit. Default -1. */
  maxContainers: number;
}

export const DEFAULT_CONTAINER_GC_POLICY: ContainerGCPolicy = {
  minAgeMs: 0,
  maxPerPodContainer: 1,
  maxContainers: -1,
};

/** What the kubelet knows about a pod UID (its pod workers and pod manager). */
export interface PodStateProvider {
  /** The pod is deleted (or unknown) and terminated: its containers, sandboxes and logs may all go. */
  shouldPodContentBeRemoved(uid: string): boolean;
  /** The pod is terminated (its containers will not run again). */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
}

export interface ContainerGCDeps {
  runtime: RuntimeService;
  clock: Clock;
  logger: Logger;
  /** Only containers and sandboxes labelled with this node name are ours. */
  nodeName: string;
  podState: PodStateProvider;
  /** Root of the pod log directories; those of removed pods are deleted. "" skips that. */
  podLogsDir: string;
  /** Whether every pod source has delivered its first snapshot; default always. */
  sourcesReady?: () => boolean;
  /** The /var/log/containers links: removed with their containers, swept when dangling. */
  logLinks?: LogLinks;
}

interface DeadContainer {
  id: string;
  name: string;
  createdAt: number;
  state: Container["state"];
}

const byNewest = (a: { createdAt: number }, b: { createdAt: number }) => b.createdAt - a.createdAt;

/**
 * Which dead containers to remove (pure): everything of pods whose content may go, the oldest
 * beyond `maxPerPodContainer` per unit, then beyond `maxContainers` overall — first by
 * trimming every unit to an equal share (at least 1), then the oldest across units.
 */
export function selectContainersToRemove(
  units: Map<string, DeadContainer[]>,
  policy: ContainerGCPolicy,
  opts: { removeAll: (unitKey: string) => boolean },
): string[] {
  const out: string[] = [];
  const live = new Map<string, DeadContainer[]>();
  for (const [key, list] of units) {
    const sorted = [...list].sort(byNewest);
    if (opts.removeAll(key)) out.push(...sorted.map((c) => c.id));
    else live.set(key, sorted);
  }
  const trim = (keep: number) => {
    for (const [key, list] of live) {
      if (list.length <= keep) continue;
      out.push(...list.slice(keep).map((c) => c.id));
      live.set(key, list.slice(0, keep));
    }
  };
  if (policy.maxPerPodContainer >= 0) trim(policy.maxPerPodContainer);
  const count = () => [...live.values()].reduce((n, l) => n + l.length, 0);
  if (policy.maxContainers >= 0 && count() > policy.maxContainers) {
    trim(Math.max(1, Math.floor(policy.maxContainers / live.size)));
    const excess = count() - policy.maxContainers;
    if (excess > 0) {
      const flat = [...live.values()].flat().sort(byNewest);
      out.push(...flat.slice(flat.length - excess).map((c) => c.id));
    }
  }
  return out;
}

export class ContainerGC {
  readonly #deps: ContainerGCDeps;
  /** Removals retried every round (a minute) are logged once, then every few minutes. */
  readonly #failures: RepeatedFailures;
  constructor(deps: ContainerGCDeps) {
    this.#deps = deps;
    this.#failures = new RepeatedFailures(deps.logger, { clock: deps.clock });
  }

  #sourcesReady(): boolean {
    return this.#deps.sourcesReady?.() ?? true;
  }

  /**
   * One collection: dead containers by `policy`, then sandboxes nothing uses (all of a removed
   * pod's, all but the newest otherwise), then log directories of removed pods. Failures to
   * remove single items are logged; listing failures throw. Returns the number removed.
   */
  async collect(
    policy: ContainerGCPolicy,
    opts: { evictNonDeletedPods?: boolean; signal?: AbortSignal } = {},
  ): Promise<{ containers: number; sandboxes: number }> {
    const { signal } = opts;
    const d = this.#deps;
    const labelSelector = { [LABEL_NODE_NAME]: d.nodeName };
    const containers = await d.runtime.listContainers({ labelSelector }, { signal });
    // Before every source has been read, an unknown UID may be a pod not seen yet: keep it.
    const ready = this.#sourcesReady();
    const gone = (uid: string) =>
      ready && (d.podState.shouldPodContentBeRemoved(uid) ||
        (opts.evictNonDeletedPods === true && d.podState.shouldPodRuntimeBeRemoved(uid)));

    const newestGC = d.clock.now() - policy.minAgeMs;
    const units = new Map<string, DeadContainer[]>();
    for (const c of containers) {
      if (c.state === "CONTAINER_RUNNING") continue;
      const createdAt = Math.floor(c.createdAt / 1e6);
      if (createdAt > newestGC) continue;
      const uid = c.labels[LABEL_POD_UID] ?? "";
      const name = c.labels[LABEL_CONTAINER_NAME] ?? c.metadata.name;
      const key = `${uid}/${name}`;
      const list = units.get(key) ?? [];
      list.push({ id: c.id, name, createdAt, state: c.state });
      units.set(key, list);
    }
    const doomed = selectContainersToRemove(units, policy, {
      removeAll: (key) => gone(key.slice(0, key.indexOf("/"))),
    });
    let removedContainers = 0;
    for (const id of doomed) if (await this.#removeContainer(id, signal)) removedContainers++;
    // A running container's log may be briefly missing while it rotates: its link stays.
    const live = containers.filter((c) => c.state !== "CONTAINER_EXITED" && !doomed.includes(c.id));
    await d.logLinks?.sweep((id) => live.some((c) => c.id.startsWith(id)));

    const removedIds = new Set(doomed);
    const sandboxes = await d.runtime.listPodSandbox({ labelSelector }, { signal });
    const inUse = new Set(
      containers.filter((c) => !removedIds.has(c.id)).map((c) => c.podSandboxId),
    );
    let removedSandboxes = 0;
    for (const id of selectSandboxesToRemove(sandboxes, { inUse, gone })) {
      try {
        await d.runtime.removePodSandbox(id, { signal });
        removedSandboxes++;
        this.#failures.clear(id);
      } catch (err) {
        if (signal?.aborted) throw err;
        this.#failures.warn(id, "Cannot remove sandbox", { sandboxId: id, err: errorMessage(err) });
      }
    }
    if (d.podLogsDir && this.#sourcesReady()) await this.#removePodLogDirs();
    if (removedContainers || removedSandboxes) {
      d.logger.info("Garbage collected dead containers", {
        containers: removedContainers,
        sandboxes: removedSandboxes,
      });
    }
    return { containers: removedContainers, sandboxes: removedSandboxes };
  }

  /** Removes the container and its log files (the runtime leaves logs to the kubelet). */
  async #removeContainer(id: string, signal?: AbortSignal): Promise<boolean> {
    const { runtime } = this.#deps;
    try {
      const st = await runtime.containerStatus(id, { signal }).catch((err) => {
        if (isKind(err, NotFoundError)) return undefined;
        throw err;
      });
      if (st?.logPath) await removeContainerLogs(st.logPath);
      await runtime.removeContainer(id, { signal });
      await this.#deps.logLinks?.remove([id]);
      this.#failures.clear(id);
      return true;
    } catch (err) {
      if (signal?.aborted) throw err;
      this.#failures.warn(id, "Cannot remove dead container", {
        containerId: id,
        err: errorMessage(err),
      });
      return false;
    }
  }

  /** <podLogsDir>/<ns>_<name>_<uid> of pods that are gone for good. */
  async #removePodLogDirs(): Promise<void> {
    const { podLogsDir, podState } = this.#deps;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(podLogsDir));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      throw err;
    }
    for (const e of entries) {
      const uid = e.name.split("_").at(-1) ?? "";
      if (!e.isDirectory || !uid || !podState.shouldPodContentBeRemoved(uid)) continue;
      try {
        await Deno.remove(`${podLogsDir}/${e.name}`, { recursive: true });
        this.#failures.clear(e.name);
      } catch (err) {
        this.#failures.warn(e.name, "Cannot remove pod log directory", {
          dir: e.name,
          err: errorMessage(err),
        });
      }
    }
  }
}

/**
 * Sandboxes to remove (pure): a sandbox is active while ready or used by a container. Of a
 * removed pod, every inactive one; otherwise every inactive one but the newest.
 */
export function selectSandboxesToRemove(
  sandboxes: PodSandbox[],
  opts: { inUse: Set<string>; gone: (uid: string) => boolean },
): string[] {
  const byPod = new Map<string, PodSandbox[]>();
  for (const s of sandboxes) {
    const uid = s.labels?.[LABEL_POD_UID] ?? s.metadata.uid;
    byPod.set(uid, [...(byPod.get(uid) ?? []), s]);
  }
  const out: string[] = [];
  for (const [uid, list] of byPod) {
    const sorted = [...list].sort(byNewest);
    const candidates = opts.gone(uid) ? sorted : sorted.slice(1);
    for (const s of candidates) {
      if (s.state === "SANDBOX_READY" || opts.inUse.has(s.id)) continue;
      out.push(s.id);
    }
  }
  return out;
}

/**
 * `<log>` and its rotations `<log>.<timestamp>[.gz]` — upstream's logManager.Clean removes
 * `<log>*` — so a crash-looping container's rotated logs do not outlive it.
 */
export async function removeContainerLogs(log: string): Promise<void> {
  const slash = log.lastIndexOf("/");
  const dir = log.slice(0, slash);
  const base = log.slice(slash + 1);
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  for (const e of entries) {
    if (e.name === base || e.name.startsWith(`${base}.`)) {
      await Deno.remove(`${dir}/${e.name}`).catch(ignoreNotFound);
    }
  }
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}
