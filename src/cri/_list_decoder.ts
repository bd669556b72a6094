/**
 * List responses decoded item by item with reuse (issue 14): the relist's answers are nearly
 * all the same items as the answer before. Split from `_wire.ts`, whose reader it uses.
 */
import { ProtoReader, truncated } from "./_wire.ts";

/**
 * Decodes a list response (one repeated message field) reusing the items that are the same as in
 * a recent response: the PLEG lists every sandbox and container of the node every second, and
 * nearly all of them are unchanged. An item is keyed by its bytes (read as a one-byte string:
 * one native decode of the message, then substrings the engine compares and hashes natively), so
 * an item that changed in any field is decoded afresh.
 *
 * Map fields are left out of the key. Go runtimes encode a map in its random iteration order, so
 * the same container comes back with its labels and annotations in another order on most calls
 * (containerd 1.6: 7 of 56 unchanged containers had the same bytes twice running); and CRI sets
 * a container's or sandbox's labels and annotations once, at creation, with no call to change
 * them, so the item's other fields (its id among them) decide alone. `mapFields` names them.
 *
 * Reused items are shared between calls, so every item is deeply frozen. Items not seen in the
 * last `window` responses are dropped: an item that changed does not come back with its old
 * bytes, so a short window keeps only what the next answers can reuse (filtered lists, such as
 * one pod's containers, count as answers too).
 */
export class ListDecoder<T extends object> {
  #items = new Map<string, { value: T; seen: number }>();
  #calls = 0;
  readonly #mapFields: ReadonlySet<number>;
  readonly #window: number;

  constructor(
    private readonly field: number,
    private readonly decodeItem: (r: ProtoReader, end: number) => T,
    opts: { mapFields?: readonly number[]; window?: number } = {},
  ) {
    this.#mapFields = new Set(opts.mapFields);
    this.#window = opts.window ?? 16;
  }

  /** Items decoded afresh and reused, since construction (for tests and benchmarks). */
  readonly stats = { decoded: 0, reused: 0 };

  /** Items held for reuse now (for tests). */
  get size(): number {
    return this.#items.size;
  }

  decode(bytes: Uint8Array): T[] {
    const r = new ProtoReader(bytes);
    const call = ++this.#calls;
    const text = byteString.decode(r.buf);
    const tag = this.field * 8 + 2;
    const out: T[] = [];
    while (r.pos < r.buf.length) {
      const t = r.uint32();
      if (t !== tag) {
        r.skip(t & 7);
        continue;
      }
      const end = r.end();
      const start = r.pos;
      const key = this.#key(r, text, end);
      let item = this.#items.get(key);
      if (item) {
        item.seen = call;
        this.stats.reused++;
      } else {
        r.pos = start;
        item = { value: deepFreeze(this.decodeItem(r, end)), seen: call };
        this.#items.set(key, item);
        this.stats.decoded++;
      }
      r.pos = end;
      out.push(item.value);
    }
    if (r.pos !== r.buf.length) throw truncated();
    if (call % this.#window === 0) {
      for (const [k, v] of this.#items) if (call - v.seen >= this.#window) this.#items.delete(k);
    }
    return out;
  }

  /**
   * The item from `r.pos` to `end`, less its map fields, as a key of its own: a fresh flat
   * string (Array#join copies; a substring or a `+` of substrings would keep the whole answer's
   * string alive for as long as the item stays unchanged). Moves `r` to `end`.
   */
  #key(r: ProtoReader, text: string, end: number): string {
    // Runs of non-map fields, as [start, end) pairs.
    const runs: number[] = [];
    let runStart = r.pos;
    while (r.pos < end) {
      const fieldStart = r.pos;
      const t = r.uint32();
      r.skip(t & 7);
      if ((t & 7) !== 2 || !this.#mapFields.has(t >>> 3)) continue;
      if (runStart < fieldStart) runs.push(runStart, fieldStart);
      runStart = r.pos;
    }
    if (r.pos !== end) throw truncated();
    if (runStart < end) runs.push(runStart, end);
    if (runs.length <= 2) return byteString.decode(r.buf.subarray(runs[0] ?? end, runs[1] ?? end));
    // Every field starts with its tag (and length), so the pieces join without ambiguity.
    const parts: string[] = [];
    for (let i = 0; i < runs.length; i += 2) parts.push(text.substring(runs[i], runs[i + 1]));
    return parts.join("");
  }
}

/**
 * Bytes → a string of one char per byte. windows-1252 (what the "latin1" label means) maps each
 * of the 256 byte values to its own character, so equal strings mean equal bytes.
 */
const byteString = new TextDecoder("latin1");

function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== "object" || ArrayBuffer.isView(v)) return v;
  for (const x of Object.values(v)) deepFreeze(x);
  return Object.freeze(v);
}
