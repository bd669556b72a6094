/**
 * Pod resources by pod UID, kept in memory and in a checkpoint file in the kubelet's format
 * (upstream allocation/state: `allocated_pods_state` for what pods were allocated,
 * `actuated_pods_state` for what the runtime was last told), so both survive a restart.
 *
 * A change is applied in memory at once and written behind, coalesced: a burst of changes is
 * one write, and an unchanged state is not written again. `flush` waits for the write. As
 * upstream, removals are not written by themselves; the next write carries them.
 */
import type { V1ResourceRequirements } from "@kubernetes/client-node";
import {
  type CheckpointFs,
  CorruptCheckpointError,
  KubeletCheckpointFile,
  WriteBehind,
} from "../checkpoint/mod.ts";
import { errorMessage, type Logger, nullLogger } from "../util/log.ts";
import type { PodResourceInfo } from "./types.ts";

export const ALLOCATED_PODS_STATE_FILE = "allocated_pods_state";
export const ACTUATED_PODS_STATE_FILE = "actuated_pods_state";

export interface PodResourceStateOptions {
  /** The checkpoint file; none keeps the state in memory only (tests, no root dir). */
  path?: string;
  logger: Logger;
  fs?: CheckpointFs;
}

export class PodResourceState {
  readonly #entries = new Map<string, PodResourceInfo>();
  readonly #file?: KubeletCheckpointFile;
  #writer?: WriteBehind;

  private constructor(opts: PodResourceStateOptions) {
    this.#file = opts.path === undefined
      ? undefined
      : new KubeletCheckpointFile(opts.path, { fs: opts.fs });
  }

  /** A state kept in memory only. */
  static inMemory(): PodResourceState {
    return new PodResourceState({ logger: nullLogger });
  }

  /**
   * Reads the checkpoint file (none is an empty state). Throws CorruptCheckpointError, worded
   * as upstream's, when it cannot be used: starting with no record of what running pods were
   * given would admit more than the node has.
   */
  static async open(opts: PodResourceStateOptions): Promise<PodResourceState> {
    const state = new PodResourceState(opts);
    const file = state.#file;
    if (!file) return state;
    try {
      const written = await file.read();
      if (written !== undefined) state.#load(written);
      state.#writer = new WriteBehind(file, {
        payload: () => serialize(state.#entries),
        written,
        onError: (err) =>
          opts.logger.warn("Cannot write pod resource checkpoint; retried with the next change", {
            path: file.path,
            err: errorMessage(err),
          }),
      });
    } catch (err) {
      throw new CorruptCheckpointError(
        `could not restore state from checkpoint: ${errorMessage(err)}, please drain this ` +
          `node and delete pod resource information checkpoint file ` +
          `${JSON.stringify(file.path)} before restarting the agent`,
        { cause: err },
      );
    }
    return state;
  }

  #load(data: string): void {
    const parsed = JSON.parse(data) as { entries?: Record<string, GoPodResourceInfo> | null };
    for (const [uid, e] of Object.entries(parsed.entries ?? {})) {
      const info: PodResourceInfo = { containers: { ...(e?.ContainerResources ?? {}) } };
      if (e?.PodLevelResources) info.pod = e.PodLevelResources;
      this.#entries.set(uid, info);
    }
  }

  get(uid: string): PodResourceInfo | undefined {
    return this.#entries.get(uid);
  }

  has(uid: string): boolean {
    return this.#entries.has(uid);
  }

  uids(): string[] {
    return [...this.#entries.keys()];
  }

  container(uid: string, name: string): V1ResourceRequirements | undefined {
    return this.#entries.get(uid)?.containers[name];
  }

  podLevel(uid: string): V1ResourceRequirements | undefined {
    return this.#entries.get(uid)?.pod;
  }

  /** Replaces the pod's record. */
  set(uid: string, info: PodResourceInfo): void {
    this.#entries.set(uid, structuredClone(info));
    this.#schedule();
  }

  /** Sets one container's resources, creating the pod's record when missing. */
  setContainer(uid: string, name: string, resources: V1ResourceRequirements): void {
    const info = this.#entries.get(uid) ?? { containers: {} };
    info.containers[name] = structuredClone(resources);
    this.#entries.set(uid, info);
    this.#schedule();
  }

  /** Sets the pod-level resources, creating the pod's record when missing. */
  setPodLevel(uid: string, resources: V1ResourceRequirements | undefined): void {
    const info = this.#entries.get(uid) ?? { containers: {} };
    if (resources) info.pod = structuredClone(resources);
    else delete info.pod;
    this.#entries.set(uid, info);
    this.#schedule();
  }

  /** Forgets the pod (in memory; the next write drops it from the file). */
  remove(uid: string): void {
    this.#entries.delete(uid);
  }

  /** Forgets every pod not in `keep`. */
  removeOrphans(keep: Set<string>): void {
    for (const uid of this.#entries.keys()) if (!keep.has(uid)) this.#entries.delete(uid);
  }

  /** Waits until the state is on disk; throws CheckpointError when it cannot be written. */
  async flush(): Promise<void> {
    await this.#writer?.flush();
  }

  #schedule(): void {
    this.#writer?.changed();
  }
}

/** PodResourceInfo as Go's json.Marshal writes it (no tags: the field names as they are). */
interface GoPodResourceInfo {
  ContainerResources: Record<string, V1ResourceRequirements> | null;
  PodLevelResources: V1ResourceRequirements | null;
  EmptyDirVolumeLimits: Record<string, string> | null;
}

/** The checkpoint payload, keys in Go's order (struct fields as declared, map keys sorted). */
function serialize(entries: Map<string, PodResourceInfo>): string {
  const out: Record<string, GoPodResourceInfo> = {};
  for (const uid of [...entries.keys()].sort()) {
    const info = entries.get(uid)!;
    const containers: Record<string, V1ResourceRequirements> = {};
    for (const name of Object.keys(info.containers).sort()) {
      containers[name] = goRequirements(info.containers[name]);
    }
    out[uid] = {
      ContainerResources: containers,
      PodLevelResources: info.pod ? goRequirements(info.pod) : null,
      EmptyDirVolumeLimits: null,
    };
  }
  return JSON.stringify(entries.size > 0 ? { entries: out } : {});
}

function goList(list: unknown): Record<string, string> | undefined {
  const entries = Object.entries((list ?? {}) as Record<string, unknown>);
  if (entries.length === 0) return undefined;
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, String(v)]));
}

/** v1.ResourceRequirements: limits, requests, claims, each left out when empty. */
function goRequirements(r: V1ResourceRequirements): V1ResourceRequirements {
  const out: V1ResourceRequirements = {};
  const limits = goList(r.limits);
  const requests = goList(r.requests);
  if (limits) out.limits = limits;
  if (requests) out.requests = requests;
  if (r.claims?.length) out.claims = r.claims;
  return out;
}
