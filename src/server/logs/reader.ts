/**
 * Reads a container's logs the way `kubectl logs` expects them from the kubelet: the records of
 * the selected streams, partial records joined into their line, optionally only the last
 * `tailLines` lines, only those since a time, with their timestamps, cut at `limitBytes`, and
 * with `follow` kept open for new lines until the container stops. Rotated files are read too,
 * oldest first, and follow survives a rotation: the old file is read to its end through the
 * open descriptor, then the new one from its start.
 */
import type { Clock } from "../../util/clock.ts";
import type { Logger } from "../../util/log.ts";
import { nullLogger } from "../../util/log.ts";
import { type LogRecord, type LogStream, parseCriLog, splitLines } from "./_cri_log.ts";
import { type LogFile, logFiles, openLogFile } from "./_files.ts";

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

const CHUNK = 64 * 1024;

/**
 * The log as a byte stream. The files are opened (and the tail found) before this resolves, so
 * the answer is the log as it was when asked, and a failure to open it is an error here rather
 * than a broken stream. Cancelling the stream (or aborting `signal`) stops reading and closes
 * the files; the stream errors only on I/O failure.
 */
export async function readContainerLogs(
  logPath: string,
  opts: LogReadOptions,
  deps: LogReadDeps & { signal?: AbortSignal },
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
      : await tailStart(files, opts.tailLines, opts.stream);
    return ReadableStream.from(generate(logPath, files, start, opts, deps));
  } catch (err) {
    for (const f of files) f.close();
    throw err;
  }
}

function selects(sel: StreamSelector, s: LogStream): boolean {
  return sel === "All" || (sel === "Stdout" ? s === "stdout" : s === "stderr");
}

async function* generate(
  logPath: string,
  files: LogFile[],
  start: { index: number; offset: number },
  opts: LogReadOptions,
  deps: LogReadDeps & { signal?: AbortSignal },
): AsyncGenerator<Uint8Array> {
  const log = deps.logger ?? nullLogger;
  try {
    const out = new Emitter(opts);
    let { index, offset } = start;
    const skipBad = (line: Uint8Array, path: string): LogRecord | undefined => {
      try {
        return parseCriLog(line);
      } catch (err) {
        log.debug(2, "Skipping a log line that is not in the CRI format", { path, err });
        return undefined;
      }
    };
    const buf = new Uint8Array(CHUNK);
    let live: { file: LogFile; offset: number; rest: Uint8Array } | undefined;
    let rest: Uint8Array = new Uint8Array();
    for (; index < files.length; index++, offset = 0) {
      const f = files[index];
      const isLive = index === files.length - 1 && f.path === logPath;
      rest = new Uint8Array();
      // Without follow, the log is read as it was when the request came (the live file's size
      // then): a writer that keeps going cannot make `tailLines=3` answer four lines.
      const end = opts.follow ? Infinity : f.size;
      for (;;) {
        const n = offset >= end
          ? 0
          : await f.readAt(offset, buf.subarray(0, Math.min(buf.length, end - offset)));
        if (n === 0) break;
        offset += n;
        const split = splitLines(concat(rest, buf.subarray(0, n)));
        rest = split.rest.slice();
        for (const line of split.lines) {
          const rec = skipBad(line, f.path);
          if (rec && !(yield* out.record(rec))) return;
        }
      }
      if (isLive) live = { file: f, offset, rest };
    }
    if (opts.follow && live?.file.handle !== undefined && deps.signal?.aborted !== true) {
      yield* follow(logPath, live.file, live, out, deps, skipBad);
    }
    yield* out.flush();
  } finally {
    for (const f of files) f.close();
  }
}

/** Keeps reading the live file (and its successors after rotations) until the container stops. */
async function* follow(
  logPath: string,
  first: LogFile,
  pos: { offset: number; rest: Uint8Array },
  out: Emitter,
  deps: LogReadDeps & { signal?: AbortSignal },
  parse: (line: Uint8Array, path: string) => LogRecord | undefined,
): AsyncGenerator<Uint8Array, void> {
  const pollMs = deps.pollMs ?? 250;
  const checkEvery = Math.max(1, Math.round((deps.runningCheckMs ?? 1000) / pollMs));
  const buf = new Uint8Array(CHUNK);
  let file = first;
  let { offset, rest } = pos;
  let idle = 0;
  const opened: LogFile[] = [];
  /** Reads what is there; false once the output limit is reached. */
  const drain = async function* (): AsyncGenerator<Uint8Array, boolean> {
    let got = false;
    for (;;) {
      const n = await file.readAt(offset, buf);
      if (n === 0) return got;
      got = true;
      offset += n;
      const split = splitLines(concat(rest, buf.subarray(0, n)));
      rest = split.rest.slice();
      for (const line of split.lines) {
        const rec = parse(line, file.path);
        if (rec && !(yield* out.record(rec))) {
          out.done = true;
          return got;
        }
      }
    }
  };
  try {
    for (let polls = 0;; polls++) {
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
        rest = new Uint8Array();
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

/**
 * Where the last `n` lines of the selected streams start: after the (n+1)-th complete line
 * from the end, scanning the files backwards in chunks (nothing is read twice).
 */
async function tailStart(
  files: LogFile[],
  n: number,
  sel: StreamSelector,
): Promise<{ index: number; offset: number }> {
  let seen = 0;
  const counts = (line: Uint8Array) => {
    const rec = tryParse(line);
    return rec !== undefined && rec.full && selects(sel, rec.stream) && ++seen > n;
  };
  const buf = new Uint8Array(CHUNK);
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i];
    // `carry` is the line being assembled leftwards; it is complete once a newline was seen to
    // its right (bytes after a file's last newline are a record still being written).
    let carry: Uint8Array = new Uint8Array();
    let complete = false;
    for (let end = f.size; end > 0;) {
      const start = Math.max(0, end - CHUNK);
      const len = await f.readAt(start, buf.subarray(0, end - start));
      const data = concat(buf.slice(0, len), carry);
      let stop = data.length;
      for (
        let nl = data.lastIndexOf(0x0a, stop - 1);
        nl >= 0;
        nl = data.lastIndexOf(0x0a, stop - 1)
      ) {
        if (complete && counts(data.subarray(nl + 1, stop))) {
          return { index: i, offset: start + stop + 1 };
        }
        complete = true;
        stop = nl;
        if (stop === 0) break;
      }
      carry = data.slice(0, stop);
      end = start;
    }
    // The file's first line has no newline before it.
    if (complete && carry.length > 0 && counts(carry)) {
      return { index: i, offset: carry.length + 1 };
    }
  }
  return { index: 0, offset: 0 };
}

function tryParse(line: Uint8Array): LogRecord | undefined {
  try {
    return parseCriLog(line);
  } catch {
    // A malformed line counts as no line, as the forward pass skips it too.
    return undefined;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Turns records into output lines: joins partials per stream, filters, prefixes, limits. */
class Emitter {
  readonly #opts: LogReadOptions;
  readonly #pending = new Map<LogStream, { time: string; timeMs: number; parts: Uint8Array[] }>();
  #left: number;
  done = false;
  readonly #enc = new TextEncoder();

  constructor(opts: LogReadOptions) {
    this.#opts = opts;
    this.#left = opts.limitBytes ?? Infinity;
  }

  /** Yields output for one record; returns false once the byte limit is reached. */
  *record(rec: LogRecord): Generator<Uint8Array, boolean> {
    if (!selects(this.#opts.stream, rec.stream)) return true;
    let p = this.#pending.get(rec.stream);
    if (p === undefined) {
      p = { time: rec.time, timeMs: rec.timeMs, parts: [] };
      this.#pending.set(rec.stream, p);
    }
    p.parts.push(rec.content.slice());
    if (!rec.full) return true;
    this.#pending.delete(rec.stream);
    return yield* this.#line(p, true);
  }

  /** Emits lines still waiting for their end (the container stopped mid-line). */
  *flush(): Generator<Uint8Array, void> {
    for (const p of this.#pending.values()) {
      if (!(yield* this.#line(p, false))) break;
    }
    this.#pending.clear();
  }

  *#line(
    p: { time: string; timeMs: number; parts: Uint8Array[] },
    newline: boolean,
  ): Generator<Uint8Array, boolean> {
    if (this.done) return false;
    if (this.#opts.sinceMs !== undefined && p.timeMs < this.#opts.sinceMs) return true;
    const pieces = [
      ...(this.#opts.timestamps ? [this.#enc.encode(`${p.time} `)] : []),
      ...p.parts,
      ...(newline ? [new Uint8Array([0x0a])] : []),
    ];
    let bytes = pieces.reduce((acc, x) => concat(acc, x), new Uint8Array());
    if (bytes.length >= this.#left) {
      bytes = bytes.subarray(0, this.#left);
      this.#left = 0;
      this.done = true;
      if (bytes.length > 0) yield bytes;
      return false;
    }
    this.#left -= bytes.length;
    yield bytes;
    return true;
  }
}
