/**
 * Turns records into the bytes `kubectl logs` gets: partial records joined into their line per
 * stream, lines before `sinceMs` dropped, each prefixed with its time when asked, the output cut
 * at `limitBytes`. A line is joined only up to `JOIN_LIMIT`; a longer one goes out as its
 * records come (as upstream writes every record as it reads it), so a line of any length costs
 * bounded memory and time linear in its bytes.
 */
import type { LogRecord, LogStream } from "./_cri_log.ts";

/** Lines up to this long go out whole, even when the runtime wrote them in several records. */
export const JOIN_LIMIT = 64 * 1024;

export interface EmitOptions {
  selects(s: LogStream): boolean;
  sinceMs?: number;
  timestamps: boolean;
  limitBytes?: number;
}

interface Line {
  time: string;
  parts: Uint8Array[];
  bytes: number;
  /** Its start went out already (it outgrew the join limit): the rest follows as it comes. */
  open: boolean;
  /** Before `sinceMs`: dropped to its end. */
  dropped: boolean;
}

const NEWLINE = new Uint8Array([0x0a]);

export class Emitter {
  readonly #opts: EmitOptions;
  readonly #lines = new Map<LogStream, Line>();
  readonly #enc = new TextEncoder();
  #left: number;
  /** The byte limit was reached: nothing more goes out. */
  done = false;

  constructor(opts: EmitOptions) {
    this.#opts = opts;
    this.#left = opts.limitBytes ?? Infinity;
  }

  /**
   * Yields the output one record makes (fresh arrays, never views of `rec.content`); returns
   * false once the byte limit is reached.
   */
  *record(rec: LogRecord): Generator<Uint8Array, boolean> {
    if (this.done) return false;
    if (!this.#opts.selects(rec.stream)) return true;
    let line = this.#lines.get(rec.stream);
    if (line === undefined) {
      const since = this.#opts.sinceMs;
      line = {
        time: rec.time,
        parts: [],
        bytes: 0,
        open: false,
        dropped: since !== undefined && rec.timeMs < since,
      };
      this.#lines.set(rec.stream, line);
    }
    if (rec.full) this.#lines.delete(rec.stream);
    if (line.dropped) return true;
    if (line.open) return yield* this.#out([rec.content, ...(rec.full ? [NEWLINE] : [])]);
    line.parts.push(rec.content.slice());
    line.bytes += rec.content.length;
    if (rec.full) return yield* this.#out([...this.#prefix(line), ...line.parts, NEWLINE]);
    if (line.bytes <= JOIN_LIMIT) return true;
    line.open = true;
    const parts = line.parts;
    line.parts = [];
    return yield* this.#out([...this.#prefix(line), ...parts]);
  }

  /** Emits the lines still waiting for their end (the container stopped mid-line). */
  *flush(): Generator<Uint8Array, void> {
    for (const line of this.#lines.values()) {
      if (line.dropped || line.open) continue;
      if (!(yield* this.#out([...this.#prefix(line), ...line.parts]))) break;
    }
    this.#lines.clear();
  }

  #prefix(line: Line): Uint8Array[] {
    return this.#opts.timestamps ? [this.#enc.encode(`${line.time} `)] : [];
  }

  /** The pieces as one new array, cut at the byte limit; false once the limit is reached. */
  *#out(pieces: Uint8Array[]): Generator<Uint8Array, boolean> {
    if (this.done) return false;
    const total = pieces.reduce((n, p) => n + p.length, 0);
    const size = Math.min(total, this.#left);
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const p of pieces) {
      if (at >= size) break;
      const take = Math.min(p.length, size - at);
      bytes.set(p.subarray(0, take), at);
      at += take;
    }
    this.#left -= size;
    if (size > 0) yield bytes;
    if (this.#left > 0) return true;
    this.done = true;
    return false;
  }
}
