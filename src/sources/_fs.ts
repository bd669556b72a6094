/** The file-system calls the file source makes, as a seam so tests can use an in-memory tree. */
import { constants, promises as fsp } from "node:fs";
import { DenoletError } from "../util/errors.ts";

export interface FsStat {
  isFile: boolean;
  isDirectory: boolean;
  /** Only `lstat` reports a link; `stat` describes what it points to. */
  isSymlink: boolean;
  /**
   * What changes whenever the content may have (device, inode, size, mtime, ctime), and the
   * newer of mtime and ctime (ms since the epoch); absent when the file system cannot say.
   */
  version?: { key: string; changedAtMs: number };
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
  /** Does not follow a final symlink. Rejects with `Deno.errors.NotFound` when there is no entry. */
  lstat(path: string): Promise<FsStat>;
  /** Entry names (not paths) of a directory, in no particular order. */
  readDirNames(path: string): Promise<string[]>;
  /**
   * Whole contents of a regular file. Never blocks on a FIFO or a device and never reads more
   * than `maxBytes` + 1 bytes: rejects with `UnreadableFileError` when the path is not a regular
   * file or is larger than `maxBytes`.
   */
  readFile(path: string, opts: { maxBytes: number }): Promise<Uint8Array>;
  /** Starts a non-recursive watch of a directory or file. Throws when it cannot be watched. */
  watch(path: string): FsWatch;
}

/** A manifest file refused before (or while) reading it; the message is the reason. */
export class UnreadableFileError extends DenoletError {}

const CHUNK_BYTES = 64 * 1024;

// Metadata is read synchronously (a failure still rejects): every manifest is stat'ed at each
// periodic check, and that many async stats at once would keep ~20 threads of Deno's blocking
// pool alive for good (see listPodDirs in src/agent/_host.ts).
export const denoFileSystem: FileSystemDeps = {
  // deno-lint-ignore require-await
  stat: async (path) => toStat(Deno.statSync(path)),
  // deno-lint-ignore require-await
  lstat: async (path) => toStat(Deno.lstatSync(path)),
  // deno-lint-ignore require-await
  async readDirNames(path) {
    const names: string[] = [];
    for (const e of Deno.readDirSync(path)) names.push(e.name);
    return names;
  },
  async readFile(path, { maxBytes }) {
    // O_NONBLOCK: a FIFO swapped in after the caller's stat must not hang the open (a FIFO
    // opened for reading waits for a writer); the kind is checked on the opened file itself.
    const file = await fsp.open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const st = await file.stat();
      if (!st.isFile()) throw new UnreadableFileError("not a regular file");
      if (st.size > maxBytes) throw tooBig(st.size, maxBytes);
      // Read at most one byte past the limit: a file that grew since the stat is still refused.
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (let want = st.size + 1; total <= maxBytes; want = CHUNK_BYTES) {
        const buf = new Uint8Array(Math.min(want, maxBytes + 1 - total));
        const { bytesRead } = await file.read(buf, 0, buf.length, null);
        if (bytesRead === 0) break;
        chunks.push(buf.subarray(0, bytesRead));
        total += bytesRead;
      }
      if (total > maxBytes) throw tooBig(undefined, maxBytes); // it grew since the stat
      return concat(chunks, total);
    } finally {
      await file.close();
    }
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

function toStat(info: Deno.FileInfo): FsStat {
  const st: FsStat = {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
  };
  const { mtime, ctime } = info;
  if (info.isFile && mtime && ctime && info.ino !== null) {
    const m = mtime.getTime();
    const c = ctime.getTime();
    st.version = {
      key: `${info.dev}:${info.ino}:${info.size}:${m}:${c}`,
      changedAtMs: Math.max(m, c),
    };
  }
  return st;
}

/** `size` undefined: only known to exceed the limit. */
function tooBig(size: number | undefined, maxBytes: number): UnreadableFileError {
  const what = size === undefined ? "" : ` is ${size} bytes,`;
  return new UnreadableFileError(`file${what} larger than the ${maxBytes} bytes allowed`);
}

/** The chunks of a read as one array of `total` bytes. */
export function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const all = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.length;
  }
  return all;
}
