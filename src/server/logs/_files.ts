/**
 * A container's log files in order: the rotated ones (`<log>.<YYYYMMDD-hhmmss>`, gzip-compressed
 * once older, see src/gc/_logs.ts) oldest first, then the live file. Each is read through a
 * `LogFile`: an uncompressed one by position (tail reads it backwards), a compressed one as a
 * stream inflated a little at a time, never whole.
 */
import { posix } from "node:path";

const ROTATED = /^\.(\d{8}-\d{6})(\.gz)?$/;

/** How much is read at a time. */
export const CHUNK = 64 * 1024;
/**
 * Compressed bytes fed to the inflater at a time: deflate expands at most ~1000 times, so no
 * inflated piece exceeds a few MiB even for a file of one repeated byte.
 */
const GZIP_INPUT = 4 * 1024;

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

/** One log file opened for reading. */
export interface LogFile {
  readonly path: string;
  /**
   * Bytes present when an uncompressed file was opened (the live file may grow afterwards);
   * undefined for a compressed one, whose length is known only by inflating it.
   */
  readonly size?: number;
  /**
   * The (inflated) bytes from `offset` up to `end` (Infinity: whatever is there now), in pieces
   * of at most `CHUNK` for an uncompressed file. A piece is valid until the next is asked for.
   */
  chunks(offset: number, end: number): AsyncGenerator<Uint8Array>;
  /** Uncompressed only: reads up to `buf.length` bytes at `offset`; 0 at the end. */
  readAt?(offset: number, buf: Uint8Array): Promise<number>;
  /** The open descriptor of an uncompressed file (follow keeps reading it past `size`). */
  readonly handle?: Deno.FsFile;
  close(): void;
}

export async function openLogFile(path: string): Promise<LogFile> {
  if (path.endsWith(".gz")) {
    // Opened now, so a file removed by garbage collection meanwhile fails here, not mid-stream.
    const file = await Deno.open(path, { read: true });
    let used = false;
    return {
      path,
      chunks(offset, end) {
        // Each pass inflates from the start (tail makes two); only the first reuses `file`.
        const f = used ? Deno.open(path, { read: true }) : Promise.resolve(file);
        used = true;
        return inflated(f, offset, end);
      },
      close() {
        if (!used) file.close();
      },
    };
  }
  const handle = await Deno.open(path, { read: true });
  const size = (await handle.stat()).size;
  const readAt = async (offset: number, buf: Uint8Array) => {
    await handle.seek(offset, Deno.SeekMode.Start);
    return (await handle.read(buf)) ?? 0;
  };
  // One buffer for every pass: follow reads the live file again every poll.
  let buf: Uint8Array | undefined;
  return {
    path,
    size,
    handle,
    readAt,
    async *chunks(offset, end) {
      buf ??= new Uint8Array(CHUNK);
      for (let at = offset; at < end;) {
        const n = await readAt(at, buf.subarray(0, Math.min(CHUNK, end - at)));
        if (n === 0) return;
        at += n;
        yield buf.subarray(0, n);
      }
    },
    close() {
      handle.close();
    },
  };
}

/** The inflated bytes of a gzip file from `offset` to `end`; the file closes when done. */
async function* inflated(
  open: Promise<Deno.FsFile>,
  offset: number,
  end: number,
): AsyncGenerator<Uint8Array> {
  const file = await open;
  const input = ReadableStream.from((async function* () {
    try {
      const buf = new Uint8Array(GZIP_INPUT);
      for (;;) {
        const n = await file.read(buf);
        if (n === null) return;
        yield buf.slice(0, n);
      }
    } finally {
      file.close();
    }
  })());
  const reader = input.pipeThrough(new DecompressionStream("gzip")).getReader();
  try {
    let at = 0;
    while (at < end) {
      const { done, value } = await reader.read();
      if (done) return;
      const from = Math.max(0, offset - at);
      const to = Math.min(value.length, end - at);
      at += value.length;
      if (from < to) yield value.subarray(from, to);
    }
  } finally {
    await reader.cancel();
  }
}
