import { dirname } from "node:path";
import type { FileSystemDeps, FsChange, FsStat, FsWatch } from "../../src/sources/mod.ts";
import type { PodSourceUpdate } from "../../src/sources/mod.ts";
import { realClock } from "../../src/util/clock.ts";

/** Lets every pending microtask (in-memory fs calls, the run loop) finish. */
export function settle(): Promise<void> {
  return realClock.sleep(0);
}

/** Collects a source's updates; `next` waits (bounded) for one not yet taken. */
export class Updates {
  readonly all: PodSourceUpdate[] = [];
  #taken = 0;
  #wake: (() => void) | undefined;

  push = (u: PodSourceUpdate): void => {
    this.all.push(u);
    this.#wake?.();
  };

  async next(timeoutMs = 5000): Promise<PodSourceUpdate> {
    const stop = new AbortController();
    try {
      while (this.all.length <= this.#taken) {
        const woken = new Promise<void>((r) => (this.#wake = r));
        const timeout = realClock.sleep(timeoutMs, { signal: stop.signal }).then(() => {
          throw new Error(`no update within ${timeoutMs} ms`);
        });
        await Promise.race([woken, timeout]);
      }
    } finally {
      stop.abort();
    }
    return this.all[this.#taken++];
  }

  get pending(): number {
    return this.all.length - this.#taken;
  }
}

class MemWatch implements FsWatch {
  closed = false;
  #queue: FsChange[] = [];
  #wake: (() => void) | undefined;

  constructor(readonly dir: string) {}

  push(change: FsChange): void {
    this.#queue.push(change);
    this.#wake?.();
  }
  close(): void {
    this.closed = true;
    this.#wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<FsChange> {
    while (!this.closed) {
      const next = this.#queue.shift();
      if (next) {
        yield next;
        continue;
      }
      await new Promise<void>((r) => (this.#wake = r));
    }
  }
}

/** An in-memory tree whose writes notify watchers of the parent directory. */
export class MemFs implements FileSystemDeps {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>(["/"]);
  readonly watches: MemWatch[] = [];
  failWatch = false;
  reads = 0;

  mkdir(path: string): void {
    this.dirs.add(path);
    this.#notify(path);
  }
  write(path: string, content: string, opts: { notify?: boolean } = {}): void {
    this.files.set(path, content);
    if (opts.notify ?? true) this.#notify(path);
  }
  remove(path: string): void {
    this.files.delete(path);
    this.dirs.delete(path);
    this.#notify(path);
  }
  get openWatches(): number {
    return this.watches.filter((w) => !w.closed).length;
  }

  stat(path: string): Promise<FsStat> {
    if (this.dirs.has(path)) return Promise.resolve({ isFile: false, isDirectory: true });
    if (this.files.has(path)) return Promise.resolve({ isFile: true, isDirectory: false });
    return Promise.reject(new Deno.errors.NotFound(path));
  }
  readDirNames(path: string): Promise<string[]> {
    if (!this.dirs.has(path)) return Promise.reject(new Deno.errors.NotFound(path));
    const names = [...this.files.keys(), ...this.dirs]
      .filter((p) => p !== path && dirname(p) === path)
      .map((p) => p.slice(path.length + 1));
    return Promise.resolve(names.reverse());
  }
  readFile(path: string): Promise<Uint8Array> {
    this.reads++;
    const content = this.files.get(path);
    if (content === undefined) return Promise.reject(new Deno.errors.NotFound(path));
    return Promise.resolve(new TextEncoder().encode(content));
  }
  watch(path: string): FsWatch {
    if (this.failWatch) throw new Error("inotify limit reached");
    if (!this.dirs.has(path)) throw new Deno.errors.NotFound(path);
    const w = new MemWatch(path);
    this.watches.push(w);
    return w;
  }

  #notify(path: string): void {
    for (const w of this.watches) {
      if (!w.closed && (w.dir === dirname(path) || w.dir === path)) w.push({ paths: [path] });
    }
  }
}

export function podYaml(name: string, image = "busybox:1.36", extra = ""): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  containers:
  - name: main
    image: ${image}
${extra}`;
}
