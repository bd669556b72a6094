/**
 * The CRI container log format (what containerd writes, what upstream's ReadLogs parses): one
 * record per line, `<RFC3339Nano time> <stdout|stderr> <P|F> <content>`. A `P` (partial) record
 * continues in the next record of the same stream; `F` ends a line, whose newline is not stored.
 */

export type LogStream = "stdout" | "stderr";

export interface LogRecord {
  /** The time as written, RFC 3339 with nanoseconds (echoed by `timestamps=true`). */
  time: string;
  /** Milliseconds since the epoch, for `sinceTime`/`sinceSeconds`. */
  timeMs: number;
  stream: LogStream;
  /** False for a `P` record: the line goes on in the next record of the stream. */
  full: boolean;
  content: Uint8Array;
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/**
 * Parses one record (without its newline), or the first bytes of one: the time, stream and tag
 * fields are all that must be there. Throws on a line that is not in the format.
 */
export function parseCriLog(line: Uint8Array): LogRecord {
  const s1 = line.indexOf(SPACE);
  const s2 = s1 < 0 ? -1 : line.indexOf(SPACE, s1 + 1);
  if (s1 < 0 || s2 < 0) throw new SyntaxError("not a CRI log record: too few fields");
  const decoder = new TextDecoder();
  const time = decoder.decode(line.subarray(0, s1));
  const timeMs = Date.parse(time);
  if (Number.isNaN(timeMs)) throw new SyntaxError(`not a CRI log record: bad time ${time}`);
  const stream = decoder.decode(line.subarray(s1 + 1, s2));
  if (stream !== "stdout" && stream !== "stderr") {
    throw new SyntaxError(`not a CRI log record: unknown stream ${stream}`);
  }
  // The tag field may carry more than P/F, separated by ':' (upstream only reads the first).
  let s3 = line.indexOf(SPACE, s2 + 1);
  if (s3 < 0) s3 = line.length;
  const tag = decoder.decode(line.subarray(s2 + 1, s3)).split(":")[0];
  if (tag !== "P" && tag !== "F") throw new SyntaxError(`not a CRI log record: bad tag ${tag}`);
  const content = line.subarray(Math.min(s3 + 1, line.length));
  return { time, timeMs, stream, full: tag === "F", content };
}

/** The same parse, or undefined for a line that is not a record. */
export function tryParseCriLog(line: Uint8Array): LogRecord | undefined {
  try {
    return parseCriLog(line);
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/**
 * A record longer than this is passed on in pieces: the first carries its header, the others
 * continue it, as `P` records of the same stream would (the last piece has the record's tag).
 * The runtime splits lines at 16 KiB, so only a log written some other way reaches this.
 */
export const MAX_RECORD_PIECE = 64 * 1024;

/**
 * Turns a log file's bytes, fed in chunks of any size, into records, in time linear in the bytes
 * and memory bounded by `MAX_RECORD_PIECE` plus a chunk, whatever the length of a line. A
 * record's content may be a view into the chunk pushed: valid until the next push. Bytes after
 * the last newline wait for the next push (the record is still being written).
 */
export class RecordSplitter {
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** The header of a long record whose first piece went out; its rest follows as content. */
  #continued: Omit<LogRecord, "content"> | undefined;
  /** Dropping the rest of a long line that is not a record. */
  #skipping = false;

  /** `onBad` hears about each line that is not in the format (it is skipped). */
  constructor(private readonly onBad: (err: unknown) => void) {}

  *push(chunk: Uint8Array): Generator<LogRecord> {
    for (let at = 0; at < chunk.length;) {
      const nl = chunk.indexOf(NEWLINE, at);
      const ends = nl >= 0;
      const piece = chunk.subarray(at, ends ? nl : chunk.length);
      at = ends ? nl + 1 : chunk.length;
      if (this.#continued) {
        const head = this.#continued;
        if (ends) this.#continued = undefined;
        if (piece.length > 0 || ends) yield { ...head, full: ends && head.full, content: piece };
      } else if (this.#skipping) {
        if (ends) this.#skipping = false;
      } else {
        this.#pending.push(piece.slice());
        this.#pendingBytes += piece.length;
        if (ends) {
          const rec = this.#parse(this.#take());
          if (rec) yield rec;
        } else if (this.#pendingBytes > MAX_RECORD_PIECE) {
          const rec = this.#parse(this.#take());
          if (rec === undefined) {
            this.#skipping = true;
          } else {
            this.#continued = {
              time: rec.time,
              timeMs: rec.timeMs,
              stream: rec.stream,
              full: rec.full,
            };
            yield { ...rec, full: false };
          }
        }
      }
    }
  }

  #take(): Uint8Array {
    const parts = this.#pending;
    const out = parts.length === 1 ? parts[0] : new Uint8Array(this.#pendingBytes);
    if (parts.length !== 1) {
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    return out;
  }

  #parse(line: Uint8Array): LogRecord | undefined {
    try {
      return parseCriLog(line);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      this.onBad(err);
      return undefined;
    }
  }
}
