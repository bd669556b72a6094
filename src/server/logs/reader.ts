/**
 * Reads a container's logs the way `kubectl logs` expects them from the kubelet: the records of
 * the selected streams, partial records joined into their line, optionally only the last
 * `tailLines` lines, only those since a time, with their timestamps, cut at `limitBytes`, and
 * with `follow` kept open for new lines until the container stops. Rotated files are read too,
 * oldest first, and follow survives a rotation: the old file is read to its end through the
 * open descriptor, then the new one from its start.
 *
 * Everything is read in bounded chunks and only as far as the output is taken: a line of any
 * length costs time linear in its bytes and bounded memory, a compressed file is inflated as it
 * is read, and reading stops once `limitBytes` went out.
 */
import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import { nullLogger } from "../../util/log.ts";
import { type LogStream, RecordSplitter } from "./_cri_log.ts";
import { Emitter } from "./_emitter.ts";
import { type LogFile, logFiles, openLogFile } from "./_files.ts";
import { type TailStart, tailStart } from "./_tail.ts";

export type StreamSelector = "All" | "Stdout" | "Stderr";

export interface LogReadOptions {
  /** Only the last N lines (before `sinceMs` filtering, as upstream). */
  tailLines?: number;
  /** Only lines written at or after this time (ms since the epoch). */
  sinceMs?: number;
  /** Prefix each line with its RFC 3339 time and a space. */
  timestamps: boolean;
  /** Stop after this many bytes of output. */
  limitBytes?: number;
  follow: boolean;
  stream: StreamSelector;
}

export interface LogReadDeps {
  clock: Clock;
  /** Whether the container still runs; `follow` ends at the end of the file once it does not. */
  isRunning(opts: { signal?: AbortSignal }): Promise<boolean>;
  /** How often `follow` looks for new lines (default 250 ms). */
  pollMs?: number;
  /** How often `follow` asks whether the container still runs (default 1 s). */
  runningCheckMs?: number;
  logger?: Logger;
}

type ReadDeps = LogReadDeps & { signal?: AbortSignal };

/**
 * The log as a byte stream. The files are opened (and the tail found) before this resolves, so
 * the answer is the log as it was when asked, and a failure to open it is an error here rather
 * than a broken stream. Cancelling the stream (or aborting `signal`) stops reading and closes
 * the files; the stream errors only on I/O failure.
 */
export async function readContainerLogs(
  logPath: string,
  opts: LogReadOptions,
  deps: ReadDeps,
): Promise<ReadableStream<Uint8Array>> {
  const files: LogFile[] = [];
  try {
    for (const path of await logFiles(logPath)) {
      try {
        files.push(await openLogFile(path));
      } catch (err) {
        // Garbage collection may remove a rotated file between listing and opening it.
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    }
    const start = opts.tailLines === undefined
      ? { index: 0, offset: 0 }
      : await tailStart(files, opts.tailLines, selector(opts.stream));
    return ReadableStream.from(generate(logPath, files, start, opts, deps));
  } catch (err) {
    for (const f of files) f.close();
    throw err;
  }
}

function selector(sel: StreamSelector): (s: LogStream) => boolean {
  return (s) => sel === "All" || (sel === "Stdout" ? s === "stdout" : s === "stderr");
}

function splitterFor(path: string, log: Logger): RecordSplitter {
  return new RecordSplitter((err) =>
    log.debug(2, "Skipping a log line that is not in the CRI format", { path, err })
  );
}

async function* generate(
  logPath: string,
  files: LogFile[],
  start: TailStart,
  opts: LogReadOptions,
  deps: ReadDeps,
): AsyncGenerator<Uint8Array> {
  const log = deps.logger ?? nullLogger;
  try {
    const out = new Emitter({ ...opts, selects: selector(opts.stream) });
    let live: { file: LogFile; offset: number; splitter: RecordSplitter } | undefined;
    for (let index = start.index; index < files.length; index++) {
      const f = files[index];
      const isLive = index === files.length - 1 && f.path === logPath;
      const splitter = splitterFor(f.path, log);
      let offset = index === start.index ? start.offset : 0;
      // Without follow, the log is read as it was when the request came (the live file's size
      // then): a writer that keeps going cannot make `tailLines=3` answer four lines. Bytes
      // after a file's last newline are a record still being written, and are left out.
      const end = opts.follow || f.size === undefined ? Infinity : f.size;
      for await (const chunk of f.chunks(offset, end)) {
        offset += chunk.length;
        for (const rec of splitter.push(chunk)) {
          if (!(yield* out.record(rec))) return;
        }
      }
      if (isLive) live = { file: f, offset, splitter };
    }
    if (opts.follow && live?.file.handle !== undefined && deps.signal?.aborted !== true) {
      yield* follow(logPath, live, out, deps, log);
    }
    yield* out.flush();
  } finally {
    for (const f of files) f.close();
  }
}

/** Keeps reading the live file (and its successors after rotations) until the container stops. */
async function* follow(
  logPath: string,
  from: { file: LogFile; offset: number; splitter: RecordSplitter },
  out: Emitter,
  deps: ReadDeps,
  log: Logger,
): AsyncGenerator<Uint8Array, void> {
  const pollMs = deps.pollMs ?? 250;
  const checkEvery = Math.max(1, Math.round((deps.runningCheckMs ?? 1000) / pollMs));
  let { file, offset, splitter } = from;
  let idle = 0;
  const opened: LogFile[] = [];
  /** Reads what is there now; true when there was something. */
  const drain = async function* (): AsyncGenerator<Uint8Array, boolean> {
    let got = false;
    for await (const chunk of file.chunks(offset, Infinity)) {
      got = true;
      offset += chunk.length;
      for (const rec of splitter.push(chunk)) {
        if (!(yield* out.record(rec))) return got;
      }
    }
    return got;
  };
  try {
    for (;;) {
      if (yield* drain()) {
        idle = 0;
        if (out.done) return;
        continue;
      }
      if (out.done) return;
      // The file was rotated: what is left of it has been read; go on with the new one.
      if (await replaced(logPath, file)) {
        let next: LogFile;
        try {
          next = await openLogFile(logPath);
        } catch (err) {
          if (!(err instanceof Deno.errors.NotFound)) throw err;
          await deps.clock.sleep(pollMs, { signal: deps.signal });
          continue;
        }
        opened.push(next);
        file = next;
        offset = 0;
        splitter = splitterFor(next.path, log);
        continue;
      }
      if (idle++ % checkEvery === 0 && !(await deps.isRunning({ signal: deps.signal }))) {
        yield* drain();
        return;
      }
      await deps.clock.sleep(pollMs, { signal: deps.signal });
    }
  } finally {
    for (const f of opened) f.close();
  }
}

/** The path now names another file than the open one (or none, mid-rotation). */
async function replaced(path: string, file: LogFile): Promise<boolean> {
  const open = await file.handle!.stat();
  try {
    const now = await Deno.stat(path);
    return now.ino !== open.ino || now.dev !== open.dev;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}
