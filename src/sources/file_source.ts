import type { V1Pod } from "@kubernetes/client-node";
import { basename, dirname, join, resolve } from "node:path";
import type { Clock } from "../util/clock.ts";
import { InvalidManifestError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { denoFileSystem, type FileSystemDeps, type FsStat } from "./_fs.ts";
import { type Problem, SnapshotEmitter } from "./_snapshot.ts";
import { Waker } from "./_waker.ts";
import { WatchKeeper, type WatchTarget } from "./_watch.ts";
import { MAX_MANIFEST_BYTES, reasonOf, staticPodFromManifest } from "./manifest.ts";
import type { PodSource, PodSourceUpdate } from "./types.ts";

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

/** One read of the path. `pods` undefined means "could not read: keep the last pods". */
interface ReadResult {
  pods: V1Pod[] | undefined;
  problems: Problem[];
}

/**
 * Static pods from `--pod-manifest-path`: a directory of manifests or a single manifest file,
 * decided at each read. As upstream (pkg/kubelet/config/file.go), a directory contributes every
 * regular file whose name does not start with "." (whatever its extension, so `.yaml`, `.yml`
 * and `.json` all work, and so does an extension-less file), in name order, without recursing.
 * A bad file in a directory is reported and its pod left out; a bad single file, or a path that
 * cannot be read, is reported and the previous pods are kept. A missing path yields no pods.
 */
export function createFileSource(path: string, opts: FileSourceOptions): PodSource {
  // Trailing slashes trimmed as upstream; absolute so it compares with watch event paths.
  return new FileSource(resolve(path.replace(/(?<=.)\/+$/, "")), opts);
}

class FileSource implements PodSource {
  readonly name = "file" as const;
  readonly #fs: FileSystemDeps;
  readonly #logger: Logger;
  #lastPods: V1Pod[] = [];
  #missingLogged = false;

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
      onChange: () => waker.notify(this.opts.debounceMs ?? DEFAULT_DEBOUNCE_MS),
    });
    this.#logger.info("Reading static pods", { path: this.path });
    try {
      while (!signal.aborted) {
        const result = await this.#read(watch);
        if (signal.aborted) break;
        if (result.pods) this.#lastPods = result.pods;
        emitter.offer(this.#lastPods, result.problems);
        await waker.wait(this.opts.checkFrequencyMs);
      }
    } finally {
      await watch.close();
    }
  }

  async #read(watch: WatchKeeper): Promise<ReadResult> {
    const path = this.path;
    let st: FsStat;
    try {
      st = await this.#fs.stat(path);
    } catch (e) {
      await watch.ensure(this.#fileTarget());
      if (e instanceof Deno.errors.NotFound) {
        if (!this.#missingLogged) {
          this.#logger.info("Static pod path does not exist; will keep checking", { path });
        }
        this.#missingLogged = true;
        return { pods: [], problems: [] };
      }
      return { pods: undefined, problems: [{ path, reason: `cannot read: ${errorMessage(e)}` }] };
    }
    this.#missingLogged = false;
    if (st.isDirectory) {
      await watch.ensure(this.#dirTarget());
      return await this.#readDir();
    }
    await watch.ensure(this.#fileTarget());
    if (!st.isFile) {
      return { pods: undefined, problems: [{ path, reason: "not a directory or regular file" }] };
    }
    const one = await this.#readManifest(path);
    return "pod" in one ? { pods: [one.pod], problems: [] } : { pods: undefined, problems: [one] };
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
    for (const name of names) {
      const file = join(this.path, name);
      let st: FsStat;
      try {
        st = await this.#fs.stat(file);
      } catch (e) {
        // Gone since the listing (an editor's rename): the next read sees the new state.
        if (e instanceof Deno.errors.NotFound) continue;
        problems.push({ path: file, reason: `cannot read: ${errorMessage(e)}` });
        continue;
      }
      if (st.isDirectory) {
        this.#logger.debug(3, "Not recursing into manifest path", { path: file });
        continue;
      }
      if (!st.isFile) continue;
      const one = await this.#readManifest(file);
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
    return { pods, problems };
  }

  async #readManifest(file: string): Promise<{ pod: V1Pod } | Problem> {
    this.#logger.debug(3, "Reading manifest file", { path: file });
    let raw: string;
    try {
      raw = new TextDecoder().decode(
        await this.#fs.readFile(file, { maxBytes: MAX_MANIFEST_BYTES }),
      );
    } catch (e) {
      return { path: file, reason: `cannot read: ${errorMessage(e)}` };
    }
    try {
      return {
        pod: staticPodFromManifest(raw, {
          path: file,
          source: "file",
          nodeName: this.opts.nodeName,
        }),
      };
    } catch (e) {
      if (!(e instanceof InvalidManifestError)) throw e;
      return { path: file, reason: reasonOf(e) };
    }
  }

  #dirTarget(): WatchTarget {
    const dir = this.path;
    return {
      dir,
      matches: (p) => p === dir || (dirname(p) === dir && !basename(p).startsWith(".")),
    };
  }

  /** A single file is watched through its directory, which survives the file being replaced. */
  #fileTarget(): WatchTarget {
    const file = this.path;
    return { dir: dirname(file), matches: (p) => p === file };
  }
}
