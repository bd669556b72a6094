/**
 * The checkpoint of the node's desired state for the API-server mode (edge autonomy): the pods
 * bound to the node, the ConfigMaps, Secrets, service-account tokens, PersistentVolumeClaims and
 * PersistentVolumes they use and the
 * cluster's Services (for their env), as the agent last saw them, so a node that starts while
 * the API server cannot be reached runs what it ran before. A file per object under
 * `<root-dir>/checkpoint/<kind>/`, written atomically and debounced, only those that changed.
 */
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { DebouncedSlot } from "./_slot.ts";
import type { CheckpointFs } from "./_fs.ts";
import type { KindData } from "./_kinds.ts";
import { CheckpointStore } from "./store.ts";
import type { CheckpointKind, CheckpointSlots } from "./types.ts";

export * from "./types.ts";
export {
  CheckpointStore,
  type CheckpointStoreDeps,
  DIR_MODE,
  FILE_MODE,
  type Loaded,
} from "./store.ts";
export { type CheckpointFs, denoFs } from "./_fs.ts";
export { sweepTempFiles, TEMP_MARK, writeFileAtomic } from "./_atomic.ts";
export {
  CorruptCheckpointError,
  KubeletCheckpointFile,
  kubeletChecksum,
  WriteBehind,
} from "./kubelet_file.ts";
export { DebouncedSlot, type SlotDeps } from "./_slot.ts";
export type { KindData } from "./_kinds.ts";

/** `<root-dir>/checkpoint`. */
export function checkpointDir(rootDir: string): string {
  return `${rootDir.replace(/\/+$/, "")}/checkpoint`;
}

export interface OpenCheckpointDeps {
  dir: string;
  clock: Clock;
  logger: Logger;
  fs?: CheckpointFs;
  /** Debounce window per kind; default 1 s. */
  delayMs?: number;
  /**
   * --api-checkpoint-secrets (default true): keep Secrets and service-account tokens too. false
   * removes those an earlier run kept, and the pods that need them wait for the API server.
   */
  secrets?: boolean;
}

/** The slots, and the loop that writes what is pending when the agent stops. */
export interface Checkpoint extends CheckpointSlots {
  readonly dir: string;
  /** Waits for the signal, then writes what is pending. Never rejects. */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

/**
 * Opens the directory and reads every kind. Never throws: when the directory cannot be used the
 * slots start empty (and writes fail with a log line, retried), so the agent runs as without
 * a checkpoint.
 */
export async function openCheckpoint(deps: OpenCheckpointDeps): Promise<Checkpoint> {
  const log = deps.logger.child({ component: "checkpoint" });
  const store = new CheckpointStore({ ...deps, logger: deps.logger });
  let usable = true;
  try {
    await store.open();
  } catch (err) {
    usable = false;
    log.error("Cannot open the checkpoint directory; starting without a checkpoint", {
      dir: deps.dir,
      err: errorMessage(err),
    });
  }
  const slot = async <K extends CheckpointKind>(kind: K) => {
    const loaded = usable ? await store.load(kind) : { state: "none" as const };
    if (loaded.state === "saved" && kind === "pods") {
      log.info("Checkpoint found", {
        dir: deps.dir,
        pods: (loaded.data as KindData["pods"]).pods.length,
        savedAt: new Date(loaded.savedAt).toISOString(),
      });
    }
    return new DebouncedSlot<KindData[K]>({
      kind,
      saved: loaded.state === "saved" ? loaded : undefined,
      write: (data) => store.save(kind, data),
      clock: deps.clock,
      logger: log,
      delayMs: deps.delayMs,
    });
  };
  const keepSecrets = deps.secrets ?? true;
  if (!keepSecrets && usable) {
    for (const kind of ["secrets", "tokens"] as const) {
      try {
        await store.remove(kind);
      } catch (err) {
        log.warn("Cannot remove the checkpointed Secrets or tokens", {
          kind,
          err: errorMessage(err),
        });
      }
    }
  }
  const slots = {
    pods: await slot("pods"),
    configMaps: await slot("configmaps"),
    secrets: keepSecrets ? await slot("secrets") : undefined,
    tokens: keepSecrets ? await slot("tokens") : undefined,
    services: await slot("services"),
    claims: await slot("persistentvolumeclaims"),
    persistentVolumes: await slot("persistentvolumes"),
  };
  return {
    dir: deps.dir,
    ...slots,
    async run({ signal }) {
      if (!signal.aborted) {
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true })
        );
      }
      await Promise.all(Object.values(slots).map((s) => s?.close()));
    },
  };
}

/**
 * With `--api-checkpoint=false` nothing of the node's state is kept on disk: a checkpoint an
 * earlier run left (Secrets and tokens among it) is removed. Never throws.
 */
export async function removeCheckpoint(
  dir: string,
  deps: { logger: Logger },
): Promise<void> {
  try {
    await Deno.remove(dir, { recursive: true });
    deps.logger.info("Removed the checkpoint of an earlier run (--api-checkpoint=false)", { dir });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    deps.logger.warn("Cannot remove the checkpoint directory", { dir, err: errorMessage(err) });
  }
}
