import type { V1Pod } from "@kubernetes/client-node";
import { basename, dirname, join, resolve } from "node:path";
import type { Clock } from "../util/clock.ts";
import { InvalidManifestError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { denoFileSystem, type FileSystemDeps, type FsStat, UnreadableFileError } from "./_fs.ts";
import { type Problem, SnapshotEmitter } from "./_snapshot.ts";
import { Waker, type WakeReason } from "./_waker.ts";
import { WatchKeeper, type WatchTarget } from "./_watch.ts";
import { manifestText, MAX_MANIFEST_BYTES, reasonOf, staticPodFromManifest } from "./manifest.ts";
import type { PodSource, PodSourceUpdate } from "./types.ts";
import { sha256Hex } from "../util/digest.ts";

export interface FileSourceOptions {
  nodeName: string;
  /** fileCheckFrequency: the periodic re-read, which also covers missed change notifications. */
  checkFrequencyMs: number;
  clock: Clock;
  logger: Logger;
  fs?: FileSystemDeps;
  /** Window that coalesces a burst of change notifications into one re-read; default 10. */
  debounceMs?: number;
}

/**
 * Long enough to fold one write's create/modify/close events into a single read, short enough
 * not to show in pod start latency (the upstream kubelet reacts to each inotify event at once).
 */
const DEFAULT_DEBOUNCE_MS = 10;

/** Older than the coarsest file timestamps (FAT's 2 s), with room to spare. */
const SETTLED_MS = 3_000;

/**
 * One read of the path. `pods` undefined means "could not read: keep the last pods". A read
 * that learned nothing to report (see `#pathMissing`) is `undefined` instead.
 */
interface ReadResult {
  pods: V1Pod[] | undefined;
  problems: Problem[];
}

/** A manifest file's outcome, kept while its bytes stay the same. */
type Outcome = { pod: V1Pod } | Problem;

/**
 * Static pods from `--pod-manifest-path`: a directory of manifests or a single manifest file,
 * decided at each read. As upstream (pkg/kubelet/config/file.go), a directory contributes every
 * regular file whose name does not start with "." (whatever its extension, so `.yaml`, `.yml`
 * and `.json` all work, and so does an extension-less file), in name order, without recursing.
 * A bad entry in a directory (a manifest that does not decode, a subdirectory, a FIFO, a
 * dangling symlink, ...) is reported and left out; a bad single file, or a path that cannot be
 * read, is reported and the previous pods are kept. Nothing is sent before one read succeeded,
 * so an unreadable path never stands for "no pods" (upstream sends nothing on error either).
 * A missing path yields no pods, but as upstream only the periodic read or a notification about
 * the manifests themselves decides that: the watched directory being renamed away is ignored.
 */
export function createFileSource(path: string, opts: FileSourceOptions): PodSource {
  // Trailing slashes trimmed as upstream; absolute so it compares with watch event paths.
  return new FileSource(resolve(path.replace(/(?<=.)\/+$/, "")), opts);
}

class FileSource implements PodSource {
  readonly name = "file" as const;
  readonly #fs: FileSystemDeps;
  readonly #logger: Logger;
  /** Undefined until a read succeeds. */
  #lastPods: V1Pod[] | undefined;
  #missingWarned = false;
  /** A manifest (not just the watched directory) changed since the last read began. */
  #entryChanged = false;
  /** What failed before any read succeeded, as last logged (nothing is sent then). */
  #unsentKey = "";
  /**
   * Decoded manifests by path, with a digest of the bytes they came from and, once the file
   * has settled, its stat version (see `#readManifest`).
   */
  readonly #outcomes = new Map<string, { digest: string; outcome: Outcome; settled?: string }>();

  constructor(readonly path: string, readonly opts: FileSourceOptions) {
    this.#fs = opts.fs ?? denoFileSystem;
    this.#logger = opts.logger.child({ source: "file" });
  }

  async run(onUpdate: (u: PodSourceUpdate) => void, opts: { signal: AbortSignal }): Promise<void> {
    const { signal } = opts;
    const { clock } = this.opts;
    const emitter = new SnapshotEmitter("file", { clock, logger: this.#logger, onUpdate });
    const waker = new Waker(clock, signal);
    const watch = new WatchKeeper({
      fs: this.#fs,
      logger: this.#logger,
      onChange: (kind) => {
        if (kind === "entry") this.#entryChanged = true;
        waker.notify(this.opts.debounceMs ?? DEFAULT_DEBOUNCE_MS);
      },
    });
    this.#logger.info("Reading static pods", { path: this.path });
    try {
      let wake: WakeReason = "period"; // the first read decides like a periodic one
      while (!signal.aborted) {
        await this.#readAndOffer(watch, emitter, { periodic: wake === "period", signal });
        wake = await waker.wait(this.opts.checkFrequencyMs);
      }
    } finally {
      await watch.close();
    }
  }

  /** One read, offered to the emitter. Never throws: an unexpected error is logged. */
  async #readAndOffer(
    watch: WatchKeeper,
    emitter: SnapshotEmitter,
    opts: { periodic: boolean; signal: AbortSignal },
  ): Promise<void> {
    // Removals the watch reported are as conclusive as the periodic read.
    const conclusive = opts.periodic || this.#entryChanged;
    this.#entryChanged = false;
    try {
      const result = await this.#read(watch, conclusive);
      if (opts.signal.aborted || result === undefined) return;
      if (result.pods) this.#lastPods = result.pods;
      if (this.#lastPods === undefined) {
        this.#logUnsent(result.problems);
        emitter.offerUnread(result.problems);
        return;
      }
      emitter.offer(this.#lastPods, result.problems);
    } catch (error) {
      if (opts.signal.aborted) return;
      this.#logger.error("Reading static pods failed; trying again at the next check", {
        path: this.path,
        error,
      });
    }
  }

  /** `conclusive`: a missing path means "no pods" (otherwise the last pods are kept). */
  async #read(watch: WatchKeeper, conclusive: boolean): Promise<ReadResult | undefined> {
    const path = this.path;
    let st: FsStat;
    try {
      st = await this.#fs.stat(path);
    } catch (e) {
      await watch.ensure(this.#fileTarget());
      if (e instanceof Deno.errors.NotFound) return this.#pathMissing(conclusive);
      return { pods: undefined, problems: [{ path, reason: `cannot read: ${errorMessage(e)}` }] };
    }
    if (this.#missingWarned) {
      this.#logger.info("Static pod path exists again", { path });
      this.#missingWarned = false;
    }
    if (st.isDirectory) {
      await watch.ensure(this.#dirTarget());
      return await this.#readDir();
    }
    await watch.ensure(this.#fileTarget());
    if (!st.isFile) {
      return { pods: undefined, problems: [{ path, reason: "not a directory or regular file" }] };
    }
    const one = await this.#readManifest(path, st);
    this.#forgetOutcomesExcept(new Set([path]));
    if (one === undefined) return this.#pathMissing(conclusive);
    return "pod" in one ? { pods: [one.pod], problems: [] } : { pods: undefined, problems: [one] };
  }

  /**
   * As upstream, the pods of a missing path go only when the periodic read (or a notification
   * about the manifests themselves) finds it missing: a directory renamed away for a moment, or
   * replaced, must not stop every pod in it. Warned once per disappearance.
   */
  #pathMissing(conclusive: boolean): ReadResult | undefined {
    if (!this.#missingWarned) {
      this.#logger.warn("Static pod path does not exist; will keep checking", { path: this.path });
      this.#missingWarned = true;
    }
    if (!conclusive && this.#lastPods !== undefined && this.#lastPods.length > 0) {
      this.#logger.info("Keeping the static pods of the missing path until the periodic check", {
        path: this.path,
        pods: this.#lastPods.length,
      });
      return undefined;
    }
    this.#outcomes.clear();
    return { pods: [], problems: [] };
  }

  #logUnsent(problems: Problem[]): void {
    const key = JSON.stringify(problems);
    if (key === this.#unsentKey) return;
    this.#unsentKey = key;
    for (const p of problems) {
      this.#logger.warn("Cannot read static pod path; no pods are taken from it until it can be", {
        path: p.path,
        reason: p.reason,
      });
    }
  }

  async #readDir(): Promise<ReadResult> {
    let names: string[];
    try {
      names = await this.#fs.readDirNames(this.path);
    } catch (e) {
      const reason = `cannot list directory: ${errorMessage(e)}`;
      return { pods: undefined, problems: [{ path: this.path, reason }] };
    }
    // Byte order like Go's sort.Strings, not locale order.
    names = names.filter((n) => !n.startsWith(".")).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const pods: V1Pod[] = [];
    const problems: Problem[] = [];
    const fileOfPod = new Map<string, string>();
    const files = new Set<string>();
    for (const name of names) {
      const file = join(this.path, name);
      files.add(file);
      const one = await this.#readEntry(file);
      if (one === undefined) continue;
      if (!("pod" in one)) {
        problems.push(one);
        continue;
      }
      // Upstream's config merge drops a second pod with the same full name; say which file won.
      const key = `${one.pod.metadata?.namespace}/${one.pod.metadata?.name}`;
      const first = fileOfPod.get(key);
      if (first !== undefined) {
        problems.push({ path: file, reason: `duplicate pod ${key}, already defined in ${first}` });
        continue;
      }
      fileOfPod.set(key, file);
      pods.push(one.pod);
    }
    this.#forgetOutcomesExcept(files);
    return { pods, problems };
  }

  /** One directory entry; undefined when it is gone since the listing (an editor's rename). */
  async #readEntry(file: string): Promise<Outcome | undefined> {
    let st: FsStat;
    try {
      st = await this.#fs.stat(file);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) {
        return { path: file, reason: `cannot read: ${errorMessage(e)}` };
      }
      if (!(await this.#isSymlink(file))) return undefined;
      return { path: file, reason: "symbolic link to a file that does not exist" };
    }
    if (st.isDirectory) {
      this.#logger.debug(3, "Not recursing into manifest path", { path: file });
      return {
        path: file,
        reason: "is a directory; manifest directories are not read recursively",
      };
    }
    if (!st.isFile) return { path: file, reason: "not a regular file" };
    return await this.#readManifest(file, st);
  }

  async #isSymlink(file: string): Promise<boolean> {
    try {
      return (await this.#fs.lstat(file)).isSymlink;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return false;
      throw e;
    }
  }

  /**
   * Undefined when the file is gone (removed since it was listed or stat'ed). A file whose stat
   * `st` (taken before) matches the one of a read that found it settled is not read again: the
   * periodic check of a hundred manifests would otherwise open and hash each one every time.
   * Settled means its mtime and ctime were over SETTLED_MS old at that stat, so any later change
   * stamps a newer time even on a file system with coarse timestamps (git's "racily clean").
   */
  async #readManifest(file: string, st?: FsStat): Promise<Outcome | undefined> {
    const known = this.#outcomes.get(file);
    if (st?.version && known?.settled === st.version.key) return known.outcome;
    this.#logger.debug(3, "Reading manifest file", { path: file });
    let bytes: Uint8Array;
    try {
      bytes = await this.#fs.readFile(file, { maxBytes: MAX_MANIFEST_BYTES });
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return undefined;
      if (e instanceof UnreadableFileError) return { path: file, reason: e.message };
      return { path: file, reason: `cannot read: ${errorMessage(e)}` };
    }
    const settled = st?.version && this.opts.clock.now() - st.version.changedAtMs > SETTLED_MS
      ? st.version.key
      : undefined;
    // Decoding a large manifest costs far more than reading it: do it once per content.
    const digest = await sha256Hex(bytes);
    const outcome = known?.digest === digest ? known.outcome : this.#decode(bytes, file);
    this.#outcomes.set(file, { digest, outcome, settled });
    return outcome;
  }

  #decode(bytes: Uint8Array, file: string): Outcome {
    const origin = { path: file, source: "file", nodeName: this.opts.nodeName } as const;
    try {
      return { pod: staticPodFromManifest(manifestText(bytes, file), origin) };
    } catch (e) {
      if (e instanceof InvalidManifestError) return { path: file, reason: reasonOf(e) };
      throw e;
    }
  }

  #forgetOutcomesExcept(keep: Set<string>): void {
    for (const file of this.#outcomes.keys()) if (!keep.has(file)) this.#outcomes.delete(file);
  }

  #dirTarget(): WatchTarget {
    const dir = this.path;
    return { dir, matches: (p) => dirname(p) === dir && !basename(p).startsWith(".") };
  }

  /** A single file is watched through its directory, which survives the file being replaced. */
  #fileTarget(): WatchTarget {
    const file = this.path;
    return { dir: dirname(file), matches: (p) => p === file };
  }
}
