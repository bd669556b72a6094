import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import type { FileSystemDeps, FsChange, FsStat, FsWatch } from "../../src/sources/mod.ts";
import type { PodSourceUpdate } from "../../src/sources/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { createLogger, type Logger } from "../../src/util/log.ts";

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
  /** Calls on these paths (stat, list, read) fail with the error, as EACCES or EIO would. */
  readonly failures = new Map<string, Error>();
  /**
   * When set, `stat` reports a file's version as a real file system would: a key that changes
   * with every write, and the time of the last write by this clock.
   */
  stampWith?: () => number;
  readonly #written = new Map<string, { n: number; at: number }>();
  #writes = 0;

  mkdir(path: string): void {
    this.dirs.add(path);
    this.#notify(path);
  }
  /** Moves a directory and everything under it, like rename(2); the watch is told as inotify does. */
  renameDir(from: string, to: string): void {
    const move = (p: string) =>
      p === from || p.startsWith(`${from}/`) ? to + p.slice(from.length) : p;
    for (const d of [...this.dirs]) {
      this.dirs.delete(d);
      this.dirs.add(move(d));
    }
    for (const [p, c] of [...this.files]) {
      this.files.delete(p);
      this.files.set(move(p), c);
    }
    this.#notify(from);
    this.#notify(to);
  }
  write(path: string, content: string, opts: { notify?: boolean } = {}): void {
    this.files.set(path, content);
    this.#written.set(path, { n: ++this.#writes, at: this.stampWith?.() ?? 0 });
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
    const failure = this.failures.get(path);
    if (failure) return Promise.reject(failure);
    if (this.dirs.has(path)) {
      return Promise.resolve({ isFile: false, isDirectory: true, isSymlink: false });
    }
    if (this.files.has(path)) {
      const w = this.#written.get(path)!;
      const version = this.stampWith && { key: `${path}#${w.n}`, changedAtMs: w.at };
      return Promise.resolve({ isFile: true, isDirectory: false, isSymlink: false, version });
    }
    return Promise.reject(new Deno.errors.NotFound(path));
  }
  lstat(path: string): Promise<FsStat> {
    return this.stat(path); // no symlinks in memory
  }
  readDirNames(path: string): Promise<string[]> {
    const failure = this.failures.get(path);
    if (failure) return Promise.reject(failure);
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

/** A logger that keeps its lines, for tests that look at what was logged. */
export function captureLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ verbosity: 4, write: (l) => lines.push(l) }), lines };
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

/** A document whose aliases expand to 10^8 nodes from a few hundred bytes. */
export function aliasBomb(): string {
  const l = "abcdefghi";
  const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < l.length; i++) {
    lines.push(`${l[i]}: &${l[i]} [${Array(10).fill(`*${l[i - 1]}`).join(", ")}]`);
  }
  return lines.join("\n");
}

export async function mkfifo(path: string): Promise<void> {
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

/**
 * Writes every hostile entry of issue 9 into `dir` (an alias bomb, a 20 MB file, invalid UTF-8,
 * binary bytes, nesting 10 000 deep, a directory, a FIFO, a dangling symlink and a symlink loop
 * named like manifests, an empty file, a PodList and a Deployment); returns the reason expected
 * on /sources for each, by entry name.
 */
export async function writeHostileEntries(dir: string): Promise<Map<string, RegExp>> {
  const at = (name: string) => join(dir, name);
  const enc = new TextEncoder();
  await Deno.writeTextFile(at("alias-bomb.yaml"), aliasBomb());
  // Sparse: 20 MB on paper, nothing on disk; it must be refused by its size, unread.
  await Deno.writeFile(at("huge.yaml"), new Uint8Array());
  await Deno.truncate(at("huge.yaml"), 20 * 1024 * 1024);
  await Deno.writeFile(
    at("invalid-utf8.yaml"),
    new Uint8Array([...enc.encode(podYaml("latin1")), ...enc.encode("# caf"), 0xe9, 0x0a]),
  );
  await Deno.writeFile(at("binary.bin"), Uint8Array.from({ length: 256 }, (_, i) => i));
  await Deno.writeTextFile(at("control.yaml"), "\u0000\u0001\u0002\u0003binary\u0000");
  const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
  await Deno.writeTextFile(at("deep.yaml"), `${podYaml("deep")}foo: ${deep}\n`);
  await Deno.writeTextFile(at("deep.json"), `{"apiVersion":"v1","kind":"Pod","x":${deep}}`);
  await Deno.mkdir(at("dir.yaml"));
  await Deno.writeTextFile(at("dir.yaml/inner.yaml"), podYaml("inner"));
  await mkfifo(at("fifo.yaml"));
  await Deno.symlink(at("missing-target.yaml"), at("dangling.yaml"));
  await Deno.symlink(at("loop.yaml"), at("loop.yaml"));
  await Deno.writeTextFile(at("empty.yaml"), "");
  await Deno.writeTextFile(
    at("podlist.yaml"),
    `apiVersion: v1\nkind: PodList\nitems:\n- ${podYaml("listed").replaceAll("\n", "\n  ")}`,
  );
  await Deno.writeTextFile(
    at("deployment.yaml"),
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n",
  );
  return new Map([
    ["alias-bomb.yaml", /document contains excessive aliasing/],
    ["huge.yaml", /file is 20971520 bytes, larger than the 10485760 bytes allowed/],
    ["invalid-utf8.yaml", /is not valid UTF-8 text/],
    ["binary.bin", /is not valid UTF-8 text/],
    ["control.yaml", /cannot parse as YAML or JSON|must be a YAML or JSON object/],
    ["deep.yaml", /nested more than 100 levels deep/],
    ["deep.json", /nested more than 100 levels deep/],
    ["dir.yaml", /is a directory; manifest directories are not read recursively/],
    ["fifo.yaml", /^not a regular file$/],
    ["dangling.yaml", /symbolic link to a file that does not exist/],
    ["loop.yaml", /cannot read: .*(symbolic links|loop)/i],
    ["empty.yaml", /manifest is empty/],
    ["podlist.yaml", /expected kind "Pod": kind is "PodList"/],
    ["deployment.yaml", /expected kind "Pod": kind is "Deployment"/],
  ]);
}
