/**
 * The protobuf wire format, as little of it as the generated codecs (`_codec.ts`, the prober's
 * `_health_codec.ts`) need: varints, length-delimited fields, skipping unknown fields. It
 * replaces proto-loader and protobufjs's reflection at run time, which cost ~12 MB of the
 * agent's idle memory and a generic object walk per message (tests/bench/RESULTS.md).
 *
 * int64 values are JS numbers, as the rest of the agent expects (nanosecond timestamps lose
 * sub-microsecond precision); bytes decode to plain Uint8Arrays that own their memory.
 */
import { Buffer } from "node:buffer";
import { DenoletError } from "../util/errors.ts";

const utf8Decoder = new TextDecoder();
const utf8Encoder = new TextEncoder();
const TWO_32 = 2 ** 32;

/** Reads one message held in `buf`; the generated decoders advance `pos`. */
export class ProtoReader {
  readonly buf: Uint8Array;
  pos = 0;

  constructor(buf: Uint8Array) {
    // A plain view (grpc-js hands Node Buffers in), so slices are plain Uint8Arrays.
    this.buf = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** A varint up to 2^32 - 1 (tags, lengths, uint32, enums before the sign fix). */
  uint32(): number {
    const buf = this.buf;
    let b = buf[this.pos++];
    if (b < 0x80) return b;
    let v = b & 0x7f;
    b = buf[this.pos++];
    v |= (b & 0x7f) << 7;
    if (b < 0x80) return v;
    b = buf[this.pos++];
    v |= (b & 0x7f) << 14;
    if (b < 0x80) return v;
    b = buf[this.pos++];
    v |= (b & 0x7f) << 21;
    if (b < 0x80) return v;
    b = buf[this.pos++];
    v = (v | ((b & 0x0f) << 28)) >>> 0;
    // A negative int32 is sign-extended to ten bytes: the rest carries no further bits.
    while (b >= 0x80) b = this.#byte();
    return v;
  }

  int32(): number {
    return this.uint32() | 0;
  }

  bool(): boolean {
    return this.uint32() !== 0;
  }

  /** int64 and uint64 as numbers; `signed` reads the ten-byte negative form as negative. */
  int64(signed = true): number {
    const buf = this.buf;
    const first = buf[this.pos];
    if (first < 0x80) {
      this.pos++;
      return first;
    }
    let lo = 0;
    let hi = 0;
    let shift = 0;
    let b: number;
    // Low 28 bits from the first four bytes, then the rest into `hi` (bit 28 upward).
    for (; shift < 28; shift += 7) {
      b = this.#byte();
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) return lo >>> 0;
    }
    shift = 0;
    do {
      b = this.#byte();
      hi += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b >= 0x80);
    // Bit 63 set: negative. Subtract 2^64 in parts, so small negatives stay exact.
    if (signed && hi >= 2 ** 35) return (lo >>> 0) - (2 ** 36 - hi) * 2 ** 28;
    return (lo >>> 0) + hi * 2 ** 28;
  }

  string(): string {
    const len = this.uint32();
    const start = this.pos;
    const end = start + len;
    if (end > this.buf.length) throw truncated();
    this.pos = end;
    if (len === 0) return "";
    // One native decode per string: under --lite-mode (the agent's V8 flags) any per-byte
    // loop in JS, even an ASCII check, costs ~3x more (tests/bench/codec_candidates.ts).
    return utf8Decoder.decode(this.buf.subarray(start, end));
  }

  bytes(): Uint8Array {
    const len = this.uint32();
    const end = this.pos + len;
    if (end > this.buf.length) throw truncated();
    const out = this.buf.slice(this.pos, end);
    this.pos = end;
    return out;
  }

  /** Where the length-delimited field that starts here ends; moves past its length. */
  end(): number {
    const len = this.uint32();
    const end = this.pos + len;
    if (end > this.buf.length) throw truncated();
    return end;
  }

  /** Skips a field of wire type `wt` (its tag already read). */
  skip(wt: number): void {
    switch (wt) {
      case 0:
        while (this.#byte() >= 0x80);
        return;
      case 1:
        this.pos += 8;
        break;
      case 2:
        this.pos = this.end();
        return;
      case 5:
        this.pos += 4;
        break;
      default:
        throw new DenoletError(`Cannot decode protobuf message: unsupported wire type ${wt}`);
    }
    if (this.pos > this.buf.length) throw truncated();
  }

  #byte(): number {
    if (this.pos >= this.buf.length) throw truncated();
    return this.buf[this.pos++];
  }
}

/** A message that ends inside a field (for the list decoder too). */
export function truncated(): DenoletError {
  return new DenoletError("Cannot decode protobuf message: it ends inside a field");
}

/**
 * Writes one message into a growing buffer. A nested message reserves the largest length
 * prefix it could need (messages are below 16 MiB: four bytes) and closes the gap afterwards,
 * so sizes are never computed twice.
 */
export class ProtoWriter {
  buf = new Uint8Array(256);
  pos = 0;

  #room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** A varint of a value in [0, 2^32). */
  uint32(v: number): void {
    this.#room(5);
    const buf = this.buf;
    while (v > 0x7f) {
      buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[this.pos++] = v;
  }

  tag(field: number, wireType: number): void {
    this.uint32(field * 8 + wireType);
  }

  /** int32 and enums: negatives take ten bytes, as the protobuf spec has it. */
  int32(v: number): void {
    if (v >= 0) this.uint32(v);
    else this.int64(v);
  }

  /** int64/uint64 from a number (or a bigint, or a decimal string) as a varint. */
  int64(v: number | bigint | string): void {
    if (typeof v === "number" && v >= 0 && v < TWO_32) return this.uint32(v >>> 0);
    this.#room(10);
    // Two's complement in 64 bits; a number above 2^53 is already rounded, converted exactly.
    let big = BigInt.asUintN(64, typeof v === "bigint" ? v : BigInt(Math.trunc(Number(v))));
    const buf = this.buf;
    while (big > 0x7fn) {
      buf[this.pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    buf[this.pos++] = Number(big);
  }

  bool(v: boolean): void {
    this.uint32(v ? 1 : 0);
  }

  string(s: string): void {
    // Reserve the worst case (3 bytes per UTF-16 unit) after a 5-byte length, then shift.
    const max = s.length * 3;
    this.#room(max + 5);
    const lenAt = this.pos;
    const lenBytes = max < 0x80 ? 1 : max < 0x4000 ? 2 : max < 0x200000 ? 3 : 4;
    const { written } = utf8Encoder.encodeInto(
      s,
      this.buf.subarray(lenAt + lenBytes, lenAt + lenBytes + max),
    );
    this.#closeLength(lenAt, lenBytes, written);
  }

  bytes(b: Uint8Array): void {
    this.uint32(b.length);
    this.#room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Starts a length-delimited field; returns what `close` needs. */
  open(): number {
    this.#room(4);
    const at = this.pos;
    this.pos += 4;
    return at;
  }

  /** Ends the length-delimited field that `open` returned `at` for. */
  close(at: number): void {
    this.#closeLength(at, 4, this.pos - at - 4);
  }

  /** Writes `len` at `at` (where `reserved` bytes were kept for it) and closes the gap. */
  #closeLength(at: number, reserved: number, len: number): void {
    const need = len < 0x80 ? 1 : len < 0x4000 ? 2 : len < 0x200000 ? 3 : 4;
    const buf = this.buf;
    if (need < reserved) buf.copyWithin(at + need, at + reserved, at + reserved + len);
    let p = at;
    let v = len;
    while (v > 0x7f) {
      buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[p] = v;
    this.pos = at + need + len;
  }

  /** The bytes written, as the Node Buffer grpc-js frames. */
  finish(): Buffer {
    return Buffer.from(this.buf.buffer, 0, this.pos);
  }
}

/** A gRPC serializer for a generated encoder. */
export function serializer<T>(encode: (w: ProtoWriter, m: T) => void): (m: T) => Buffer {
  return (m) => {
    const w = new ProtoWriter();
    encode(w, m);
    return w.finish();
  };
}

/** A gRPC deserializer for a generated decoder. */
export function deserializer<T>(
  decode: (r: ProtoReader, end: number) => T,
): (b: Uint8Array) => T {
  return (b) => {
    const r = new ProtoReader(b);
    const m = decode(r, r.buf.length);
    if (r.pos !== r.buf.length) throw truncated();
    return m;
  };
}

/** An enum's value name, or the number itself for a value this proto does not know. */
export function enumName(names: readonly string[], n: number): string | number {
  return names[n] ?? n;
}

/** Reads one map<string, string> entry (a length-delimited key=1, value=2) into `map`. */
export function readStringMapEntry(r: ProtoReader, map: Record<string, string>): void {
  const end = r.end();
  let key = "";
  let value = "";
  while (r.pos < end) {
    const t = r.uint32();
    if (t === 10) key = r.string();
    else if (t === 18) value = r.string();
    else r.skip(t & 7);
  }
  // A label called __proto__ must stay a label, not replace the object's prototype.
  if (key === "__proto__") {
    Object.defineProperty(map, key, { value, enumerable: true, writable: true });
  } else map[key] = value;
}

/** Writes `map` as entries of map field `field`. */
export function writeStringMap(w: ProtoWriter, field: number, map: Record<string, string>): void {
  for (const key of Object.keys(map)) {
    const value = map[key];
    if (value == null) continue;
    w.tag(field, 2);
    const at = w.open();
    w.tag(1, 2);
    w.string(key);
    w.tag(2, 2);
    w.string(String(value));
    w.close(at);
  }
}

/** An enum value from its name or number; unknown names are refused, not sent as 0. */
export function enumValue(values: Record<string, number>, v: unknown, type: string): number {
  if (typeof v === "number") return v;
  const n = values[v as string];
  if (n === undefined) {
    throw new DenoletError(`Cannot encode ${type}: ${JSON.stringify(v)} is not one of its values`);
  }
  return n;
}
