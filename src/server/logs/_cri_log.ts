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

/** Parses one record (without its newline). Throws on a line that is not in the format. */
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

/** Splits bytes into complete lines; returns them and the unterminated rest. */
export function splitLines(buf: Uint8Array): { lines: Uint8Array[]; rest: Uint8Array } {
  const lines: Uint8Array[] = [];
  let start = 0;
  for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, start)) {
    lines.push(buf.subarray(start, i));
    start = i + 1;
  }
  return { lines, rest: buf.subarray(start) };
}
