import type { Logger } from "../util/log.ts";
import type { FileSystemDeps, FsWatch } from "./_fs.ts";

/** What to watch and which changed paths matter. */
export interface WatchTarget {
  dir: string;
  /** True when a change to `path` (never `dir` itself) should trigger a re-read. */
  matches(path: string): boolean;
}

/**
 * What a change notification was about: `entry`, a path the target matches (a manifest was
 * written, renamed or removed); `self`, the watched directory itself (renamed, removed, its
 * attributes changed).
 */
export type ChangeKind = "entry" | "self";

/**
 * Keeps at most one file-system watch open on the current target and reports relevant changes.
 * Watching is best effort: if it cannot start or stops working, the periodic check still
 * re-reads the source, and the next `ensure` tries again.
 */
export class WatchKeeper {
  #watch: FsWatch | undefined;
  #dir: string | undefined;
  #loop: Promise<void> | undefined;
  #failedDir: string | undefined;

  constructor(
    readonly deps: { fs: FileSystemDeps; logger: Logger; onChange: (kind: ChangeKind) => void },
  ) {}

  /** Watches `target` (closing any watch on another directory); `undefined` closes the watch. */
  async ensure(target: WatchTarget | undefined): Promise<void> {
    if (target && target.dir === this.#dir && this.#watch) return;
    await this.close();
    if (!target) return;
    let watch: FsWatch;
    try {
      watch = this.deps.fs.watch(target.dir);
    } catch (error) {
      // Logged once per directory: it is retried at every periodic check.
      if (this.#failedDir !== target.dir && error instanceof Deno.errors.NotFound) {
        this.deps.logger.debug(2, "Cannot watch a missing directory", { path: target.dir });
      } else if (this.#failedDir !== target.dir) {
        this.deps.logger.warn("Cannot watch static pod path; relying on the periodic check", {
          path: target.dir,
          error,
        });
      }
      this.#failedDir = target.dir;
      return;
    }
    this.#failedDir = undefined;
    this.#watch = watch;
    this.#dir = target.dir;
    this.deps.logger.debug(2, "Watching static pod path", { path: target.dir });
    this.#loop = this.#pump(watch, target);
  }

  /** Closes the watch and waits for its reader to finish. Idempotent. */
  async close(): Promise<void> {
    const watch = this.#watch;
    const loop = this.#loop;
    this.#watch = undefined;
    this.#dir = undefined;
    this.#loop = undefined;
    watch?.close();
    await loop;
  }

  async #pump(watch: FsWatch, target: WatchTarget): Promise<void> {
    let selfChanged = false;
    try {
      for await (const change of watch) {
        if (change.paths.some((p) => p !== target.dir && target.matches(p))) {
          this.deps.onChange("entry");
        }
        // A renamed directory keeps its watch at its new place and a removed one loses it
        // silently: either way the watch no longer shows what is at the path. It is dropped
        // below, so the read this change triggers watches whatever is there now.
        selfChanged = change.paths.includes(target.dir);
        if (selfChanged) break;
      }
    } catch (error) {
      this.deps.logger.warn("Static pod path watch failed; relying on the periodic check", {
        path: target.dir,
        error,
      });
    }
    // The watch ended on its own (or failed): forget it so the next check re-establishes it.
    if (this.#watch === watch) {
      this.#watch = undefined;
      this.#dir = undefined;
      this.#loop = undefined;
      watch.close();
    }
    if (selfChanged) {
      this.deps.logger.debug(2, "Watched directory itself changed", { path: target.dir });
      this.deps.onChange("self");
    }
  }
}
