/** The file-system calls the file source makes, as a seam so tests can use an in-memory tree. */

export interface FsStat {
  isFile: boolean;
  isDirectory: boolean;
}

/** One batch of change notifications; `paths` are absolute. */
export interface FsChange {
  paths: string[];
}

/** A running watch. Iteration ends once `close` is called. */
export interface FsWatch extends AsyncIterable<FsChange> {
  /** Stops watching. Idempotent. */
  close(): void;
}

export interface FileSystemDeps {
  /** Follows symlinks. Rejects with `Deno.errors.NotFound` when the path does not exist. */
  stat(path: string): Promise<FsStat>;
  /** Entry names (not paths) of a directory, in no particular order. */
  readDirNames(path: string): Promise<string[]>;
  /** Whole file contents; rejects if larger than `maxBytes`. */
  readFile(path: string, opts: { maxBytes: number }): Promise<Uint8Array>;
  /** Starts a non-recursive watch of a directory or file. Throws when it cannot be watched. */
  watch(path: string): FsWatch;
}

export const denoFileSystem: FileSystemDeps = {
  stat: (path) => Deno.stat(path),
  async readDirNames(path) {
    const names: string[] = [];
    for await (const e of Deno.readDir(path)) names.push(e.name);
    return names;
  },
  async readFile(path, opts) {
    const tooBig = (size: number) =>
      new RangeError(`file is ${size} bytes, more than the ${opts.maxBytes} allowed`);
    // Check first so a huge file is never read into memory, then again in case it grew.
    const { size } = await Deno.stat(path);
    if (size > opts.maxBytes) throw tooBig(size);
    const data = await Deno.readFile(path);
    if (data.length > opts.maxBytes) throw tooBig(data.length);
    return data;
  },
  watch(path) {
    const watcher = Deno.watchFs(path, { recursive: false });
    let closed = false;
    return {
      close() {
        if (closed) return;
        closed = true;
        watcher.close();
      },
      async *[Symbol.asyncIterator]() {
        for await (const event of watcher) yield { paths: event.paths };
      },
    };
  },
};
