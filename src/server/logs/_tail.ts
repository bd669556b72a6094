/**
 * Where the last `n` lines of a container's log start, reading as little as it can: an
 * uncompressed file is scanned backwards from its end, a compressed one forwards (it cannot be
 * read backwards) without being kept. A line counts once, at its `F` record, when its stream is
 * selected; only each record's first bytes are parsed, so a long line costs reading, not memory.
 */
import { type LogStream, tryParseCriLog } from "./_cri_log.ts";
import { CHUNK, type LogFile } from "./_files.ts";

/** Enough of a record for its time, stream and tag. */
const HEADER = 256;
const NEWLINE = 0x0a;

export interface TailStart {
  /** The file to start in, and the (inflated) offset in it. */
  index: number;
  offset: number;
}

/**
 * Where reading starts to give the last `n` lines of the selected streams: right after the
 * (n+1)-th counted line from the end (a newer file's lines counted first), else the beginning.
 */
export async function tailStart(
  files: readonly LogFile[],
  n: number,
  selects: (s: LogStream) => boolean,
): Promise<TailStart> {
  const counts = (header: Uint8Array) => {
    const rec = tryParseCriLog(header);
    return rec !== undefined && rec.full && selects(rec.stream);
  };
  // Lines still to pass, newest first, before the one after which reading starts.
  let left = n + 1;
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i];
    const found = f.size === undefined
      ? await forward(f, left, counts)
      : await backward(f, left, counts);
    if ("offset" in found) return { index: i, offset: found.offset };
    left -= found.seen;
  }
  return { index: 0, offset: 0 };
}

type Found = { offset: number } | { seen: number };

/**
 * Scans an uncompressed file from its end for the `left`-th counted line. Bytes after the last
 * newline are a record still being written: no line yet.
 */
async function backward(
  f: LogFile,
  left: number,
  counts: (header: Uint8Array) => boolean,
): Promise<Found> {
  const buf = new Uint8Array(CHUNK);
  const head = new Uint8Array(HEADER);
  let seen = 0;
  /** The newline that ends the line being looked for, once one was seen. */
  let lineEnd: number | undefined;
  const line = async (
    start: number,
    inBuf: (from: number, to: number) => Uint8Array | undefined,
  ) => {
    if (lineEnd === undefined) return false;
    const to = Math.min(lineEnd, start + HEADER);
    const header = inBuf(start, to) ??
      head.subarray(0, await f.readAt!(start, head.subarray(0, to - start)));
    return counts(header) && ++seen === left;
  };
  for (let end = f.size!; end > 0;) {
    const start = Math.max(0, end - CHUNK);
    const len = await f.readAt!(start, buf.subarray(0, end - start));
    // Cut short meanwhile (it should not be): what was counted stands.
    if (len === 0) return { seen };
    const inBuf = (from: number, to: number) =>
      to <= start + len ? buf.subarray(from - start, to - start) : undefined;
    for (
      let nl = buf.lastIndexOf(NEWLINE, len - 1);
      nl >= 0;
      nl = buf.lastIndexOf(NEWLINE, nl - 1)
    ) {
      const at = start + nl;
      if (await line(at + 1, inBuf)) return { offset: lineEnd! + 1 };
      lineEnd = at;
      if (nl === 0) break;
    }
    end = start;
  }
  // The file's first line has no newline before it.
  if (lineEnd !== undefined && lineEnd > 0 && await line(0, () => undefined)) {
    return { offset: lineEnd + 1 };
  }
  return { seen };
}

/**
 * A compressed file read forwards twice at most: once to count its lines, and, when the start
 * is in it, again to find the offset after the (count - left + 1)-th.
 */
async function forward(
  f: LogFile,
  left: number,
  counts: (header: Uint8Array) => boolean,
): Promise<Found> {
  let total = 0;
  for await (const _ of countedLineEnds(f, counts)) total++;
  if (total < left) return { seen: total };
  const target = total - left + 1;
  let seen = 0;
  for await (const end of countedLineEnds(f, counts)) {
    if (++seen === target) return { offset: end + 1 };
  }
  // The file changed between the passes (it should not: rotated files are not written).
  return { seen: total };
}

/** The offsets of the newlines that end counted lines, in order. */
async function* countedLineEnds(
  f: LogFile,
  counts: (header: Uint8Array) => boolean,
): AsyncGenerator<number> {
  const head = new Uint8Array(HEADER);
  let headLen = 0;
  let at = 0;
  for await (const chunk of f.chunks(0, Infinity)) {
    for (let from = 0; from < chunk.length;) {
      const nl = chunk.indexOf(NEWLINE, from);
      const stop = nl < 0 ? chunk.length : nl;
      const take = Math.min(stop - from, HEADER - headLen);
      if (take > 0) head.set(chunk.subarray(from, from + take), headLen);
      headLen += Math.max(0, take);
      if (nl < 0) break;
      if (counts(head.subarray(0, headLen))) yield at + nl;
      headLen = 0;
      from = nl + 1;
    }
    at += chunk.length;
  }
}
