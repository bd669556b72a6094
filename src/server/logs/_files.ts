/**
 * A container's log files in order: the rotated ones (`<log>.<YYYYMMDD-hhmmss>`, gzip-compressed
 * once older, see src/gc/_logs.ts) oldest first, then the live file. Each is read through a
 * `LogFile`: random access for tail, sequential for the rest.
 */
import { posix } from "node:path";

const ROTATED = /^\.(\d{8}-\d{6})(\.gz)?$/;

/** The rotated files of `logPath` (oldest first) followed by `logPath` itself. */
export async function logFiles(logPath: string): Promise<string[]> {
  const dir = posix.dirname(logPath);
  const base = posix.basename(logPath);
  const rotated: Array<{ stamp: string; path: string }> = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.isFile || !e.name.startsWith(base)) continue;
      const m = ROTATED.exec(e.name.slice(base.length));
      if (m) rotated.push({ stamp: m[1], path: posix.join(dir, e.name) });
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  rotated.sort((a, b) => (a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : 0));
  return [...rotated.map((r) => r.path), logPath];
}

/** One log file opened for reading; a compressed one is inflated into memory (it is small). */
export interface LogFile {
  readonly path: string;
  /** Bytes present when it was opened (the live file may grow afterwards). */
  readonly size: number;
  /** Reads up to `buf.length` bytes at `offset`; 0 at the end. */
  readAt(offset: number, buf: Uint8Array): Promise<number>;
  /** The open descriptor of an uncompressed file (follow keeps reading it past `size`). */
  readonly handle?: Deno.FsFile;
  close(): void;
}

export async function openLogFile(path: string): Promise<LogFile> {
  if (path.endsWith(".gz")) {
    const file = await Deno.open(path, { read: true });
    const bytes = await new Response(
      file.readable.pipeThrough(new DecompressionStream("gzip")),
    ).bytes();
    return {
      path,
      size: bytes.length,
      readAt(offset, buf) {
        const part = bytes.subarray(offset, offset + buf.length);
        buf.set(part);
        return Promise.resolve(part.length);
      },
      close() {},
    };
  }
  const handle = await Deno.open(path, { read: true });
  const size = (await handle.stat()).size;
  return {
    path,
    size,
    handle,
    async readAt(offset, buf) {
      await handle.seek(offset, Deno.SeekMode.Start);
      return (await handle.read(buf)) ?? 0;
    },
    close() {
      handle.close();
    },
  };
}
