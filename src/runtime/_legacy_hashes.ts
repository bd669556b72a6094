/**
 * Containers started by a denolet from before in-place resize carry the hash of their whole
 * spec, cpu and memory included (`legacyContainerHash`); today's hash leaves those out. Such a
 * container is taken as unchanged while its spec still hashes to what it carries, and at that
 * moment the hash today's agent gives its spec is recorded for it (`<root-dir>/
 * legacy_container_hashes`, kubelet checkpoint format), so a later resize of it is no spec
 * change either, across restarts. Without this an upgrade restarts every container that has
 * resources, on every node. Containers started since carry today's hash and need nothing here;
 * the records go with their containers.
 */
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { type CheckpointFs, KubeletCheckpointFile, WriteBehind } from "../checkpoint/mod.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { containerHash, legacyContainerHash } from "./_labels.ts";
import type { RuntimePodStatus } from "./types.ts";

export const LEGACY_HASHES_FILE = "legacy_container_hashes";

export class LegacyHashes {
  /** Pod UID → container ID → the hash its spec had when it was recognised. */
  readonly #byPod = new Map<string, Map<string, string>>();
  readonly #log: Logger;
  #writer?: WriteBehind;

  private constructor(logger: Logger) {
    this.#log = logger;
  }

  /** Records kept in memory only. */
  static inMemory(logger: Logger): LegacyHashes {
    return new LegacyHashes(logger);
  }

  /**
   * Reads the records (none without a path). A file that cannot be read is logged and
   * ignored: at worst a resized old container restarts once.
   */
  static async open(opts: { path?: string; logger: Logger; fs?: CheckpointFs }) {
    const self = new LegacyHashes(opts.logger);
    if (opts.path === undefined) return self;
    const file = new KubeletCheckpointFile(opts.path, { fs: opts.fs });
    let written: string | undefined;
    try {
      written = await file.read();
      const data = JSON.parse(written ?? "{}") as Record<string, Record<string, string>>;
      for (const [uid, ids] of Object.entries(data)) {
        self.#byPod.set(uid, new Map(Object.entries(ids)));
      }
    } catch (err) {
      opts.logger.warn("Cannot read the records of containers started before in-place resize", {
        path: opts.path,
        err: errorMessage(err),
      });
    }
    self.#writer = new WriteBehind(file, {
      payload: () => self.#payload(),
      written,
      onError: (err) =>
        opts.logger.warn("Cannot write the records of containers started before in-place resize", {
          path: opts.path,
          err: errorMessage(err),
        }),
    });
    return self;
  }

  /**
   * `status` with each recognised old container's hash replaced by today's hash of the spec it
   * runs; records the ones recognised now and forgets those of containers no longer there.
   */
  resolve(pod: V1Pod, status: RuntimePodStatus): RuntimePodStatus {
    const uid = status.uid;
    const known = this.#byPod.get(uid);
    let changed = false;
    const present = new Set<string>();
    const containers = status.containers.map((s) => {
      present.add(s.id);
      const spec = s.state === "running" ? specOf(pod, s.name) : undefined;
      if (!spec) return s;
      const hash = containerHash(spec);
      if (s.hash === hash) return s;
      const recorded = known?.get(s.id);
      if (recorded !== undefined) return { ...s, hash: recorded };
      if (s.hash !== legacyContainerHash(spec)) return s;
      let ids = this.#byPod.get(uid);
      if (!ids) this.#byPod.set(uid, ids = new Map());
      ids.set(s.id, hash);
      changed = true;
      this.#log.info("Container started before in-place resize runs its spec; kept", {
        container: s.name,
        containerId: s.id,
      });
      return { ...s, hash };
    });
    for (const id of [...(this.#byPod.get(uid)?.keys() ?? [])]) {
      if (!present.has(id)) {
        this.#byPod.get(uid)!.delete(id);
        changed = true;
      }
    }
    if (this.#byPod.get(uid)?.size === 0) this.#byPod.delete(uid);
    if (changed) this.#writer?.changed();
    return changed || containers.some((c, i) => c !== status.containers[i])
      ? { ...status, containers }
      : status;
  }

  /** Forgets a removed pod's records. */
  forgetPod(uid: string): void {
    if (this.#byPod.delete(uid)) this.#writer?.changed();
  }

  /** Waits until the records are on disk. */
  async flush(): Promise<void> {
    await this.#writer?.flush();
  }

  #payload(): string {
    const out: Record<string, Record<string, string>> = {};
    for (const uid of [...this.#byPod.keys()].sort()) {
      out[uid] = Object.fromEntries([...this.#byPod.get(uid)!].sort());
    }
    return JSON.stringify(out);
  }
}

function specOf(pod: V1Pod, name: string): V1Container | undefined {
  const s = pod.spec;
  return s?.containers.find((c) => c.name === name) ??
    s?.initContainers?.find((c) => c.name === name) ??
    (s?.ephemeralContainers?.find((c) => c.name === name) as V1Container | undefined);
}
