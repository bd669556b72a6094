/**
 * The D-Bus wire format ("Marshaling (Wire Format)" in the D-Bus specification): values are
 * written by their type signature, each aligned to its type's boundary counted from the start of
 * the message (the header is padded to 8, so the body may be counted from its own start).
 *
 * Values in TypeScript: y n q i u h d → number, x t → bigint, b → boolean, s o g → string,
 * arrays → arrays, structs → arrays of their fields, dict entries → [key, value] pairs,
 * variants → `Variant`.
 */
import { DBusProtocolError } from "./_errors.ts";

export type DBusValue =
  | number
  | bigint
  | boolean
  | string
  | Variant
  | DBusValue[];

/** A value with its own signature (type `v`). */
export class Variant {
  constructor(readonly signature: string, readonly value: DBusValue) {}
}

/** One complete type of a signature. */
export type TypeNode =
  | { code: "y" | "b" | "n" | "q" | "i" | "u" | "x" | "t" | "d" | "s" | "o" | "g" | "v" | "h" }
  | { code: "a"; elem: TypeNode }
  | { code: "("; fields: TypeNode[] }
  | { code: "{"; key: TypeNode; value: TypeNode };

const BASIC = "ybnqiuxtdsogh";
const ALIGN: Record<string, number> = {
  y: 1,
  b: 4,
  n: 2,
  q: 2,
  i: 4,
  u: 4,
  x: 8,
  t: 8,
  d: 8,
  s: 4,
  o: 4,
  g: 1,
  v: 1,
  h: 4,
  a: 4,
  "(": 8,
  "{": 8,
};
/** The specification's limits: 64 MiB arrays, 255-byte signatures, 32 levels of nesting. */
const MAX_ARRAY = 64 << 20;
const MAX_SIGNATURE = 255;
const MAX_DEPTH = 32;

/** Splits a signature into its complete types; throws DBusProtocolError when it is malformed. */
export function parseSignature(sig: string): TypeNode[] {
  if (sig.length > MAX_SIGNATURE) throw new DBusProtocolError(`signature too long: ${sig}`);
  const out: TypeNode[] = [];
  let pos = 0;
  const one = (depth: number): TypeNode => {
    if (depth > MAX_DEPTH) throw new DBusProtocolError(`signature nests too deep: ${sig}`);
    const c = sig[pos++];
    if (c === undefined) throw new DBusProtocolError(`signature ends early: ${sig}`);
    if (c === "a") {
      if (sig[pos] === "{") {
        pos++;
        const key = one(depth + 1);
        if (!BASIC.includes(key.code)) {
          throw new DBusProtocolError(`dict key must be a basic type: ${sig}`);
        }
        const value = one(depth + 1);
        if (sig[pos++] !== "}") throw new DBusProtocolError(`dict entry not closed: ${sig}`);
        return { code: "a", elem: { code: "{", key, value } };
      }
      return { code: "a", elem: one(depth + 1) };
    }
    if (c === "(") {
      const fields: TypeNode[] = [];
      while (sig[pos] !== ")") {
        if (pos >= sig.length) throw new DBusProtocolError(`struct not closed: ${sig}`);
        fields.push(one(depth + 1));
      }
      pos++;
      if (fields.length === 0) throw new DBusProtocolError(`empty struct: ${sig}`);
      return { code: "(", fields };
    }
    if (BASIC.includes(c) || c === "v") return { code: c as "y" };
    throw new DBusProtocolError(`unknown type code ${JSON.stringify(c)} in signature ${sig}`);
  };
  while (pos < sig.length) out.push(one(0));
  return out;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** Appends values to a growing little-endian buffer. */
export class Writer {
  #buf = new Uint8Array(256);
  #view = new DataView(this.#buf.buffer);
  #len = 0;

  get length(): number {
    return this.#len;
  }

  bytes(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }

  #reserve(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  align(n: number): void {
    const pad = (n - (this.#len % n)) % n;
    this.#reserve(pad);
    this.#buf.fill(0, this.#len, this.#len + pad);
    this.#len += pad;
  }

  u8(v: number): void {
    this.#reserve(1);
    this.#buf[this.#len++] = v;
  }

  u32At(offset: number, v: number): void {
    this.#view.setUint32(offset, v, true);
  }

  raw(b: Uint8Array): void {
    this.#reserve(b.length);
    this.#buf.set(b, this.#len);
    this.#len += b.length;
  }

  /** Writes one value of type `t`; throws DBusProtocolError when it does not fit the type. */
  write(t: TypeNode, v: DBusValue): void {
    this.align(ALIGN[t.code]);
    switch (t.code) {
      case "y":
        return this.u8(num(v, t.code, 0, 0xff));
      case "b":
        if (typeof v !== "boolean") throw mismatch(t.code, v);
        return this.#fixed(4, (o) => this.#view.setUint32(o, v ? 1 : 0, true));
      case "n":
        return this.#fixed(2, (o) => this.#view.setInt16(o, num(v, t.code, -0x8000, 0x7fff), true));
      case "q":
        return this.#fixed(2, (o) => this.#view.setUint16(o, num(v, t.code, 0, 0xffff), true));
      case "i":
        return this.#fixed(
          4,
          (o) => this.#view.setInt32(o, num(v, t.code, -(2 ** 31), 2 ** 31 - 1), true),
        );
      case "u":
      case "h":
        return this.#fixed(4, (o) => this.#view.setUint32(o, num(v, t.code, 0, 2 ** 32 - 1), true));
      case "x":
        return this.#fixed(8, (o) => this.#view.setBigInt64(o, big(v, t.code), true));
      case "t":
        return this.#fixed(8, (o) => this.#view.setBigUint64(o, big(v, t.code), true));
      case "d":
        if (typeof v !== "number") throw mismatch(t.code, v);
        return this.#fixed(8, (o) => this.#view.setFloat64(o, v, true));
      case "s":
      case "o": {
        const b = encoder.encode(str(v, t.code));
        this.#fixed(4, (o) => this.#view.setUint32(o, b.length, true));
        this.raw(b);
        return this.u8(0);
      }
      case "g": {
        const b = encoder.encode(str(v, t.code));
        if (b.length > MAX_SIGNATURE) throw new DBusProtocolError("signature too long");
        this.u8(b.length);
        this.raw(b);
        return this.u8(0);
      }
      case "v": {
        if (!(v instanceof Variant)) throw mismatch(t.code, v);
        const inner = parseSignature(v.signature);
        if (inner.length !== 1) {
          throw new DBusProtocolError(`a variant holds one complete type, not ${v.signature}`);
        }
        this.write({ code: "g" }, v.signature);
        return this.write(inner[0], v.value);
      }
      case "a": {
        if (!Array.isArray(v)) throw mismatch(t.code, v);
        const lenAt = this.#len;
        this.#fixed(4, (o) => this.#view.setUint32(o, 0, true));
        // The elements start at their own alignment, even when there are none.
        this.align(ALIGN[t.elem.code]);
        const start = this.#len;
        for (const e of v) this.write(t.elem, e);
        const size = this.#len - start;
        if (size > MAX_ARRAY) throw new DBusProtocolError(`array of ${size} bytes is too long`);
        return this.u32At(lenAt, size);
      }
      case "(": {
        if (!Array.isArray(v) || v.length !== t.fields.length) throw mismatch("(...)", v);
        t.fields.forEach((f, i) => this.write(f, v[i]));
        return;
      }
      case "{": {
        if (!Array.isArray(v) || v.length !== 2) throw mismatch("{...}", v);
        this.write(t.key, v[0]);
        return this.write(t.value, v[1]);
      }
    }
  }

  #fixed(n: number, set: (offset: number) => void): void {
    this.#reserve(n);
    set(this.#len);
    this.#len += n;
  }
}

/** Reads values from a buffer in either byte order; offsets count from `base` for alignment. */
export class Reader {
  #view: DataView;
  pos = 0;

  constructor(
    readonly buf: Uint8Array,
    readonly littleEndian: boolean,
    /** Where `buf` starts in the message, for alignment. */
    readonly base = 0,
  ) {
    this.#view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  align(n: number): void {
    const abs = this.base + this.pos;
    this.pos += (n - (abs % n)) % n;
    if (this.pos > this.buf.length) throw new DBusProtocolError("message truncated");
  }

  #need(n: number): number {
    const o = this.pos;
    if (o + n > this.buf.length) throw new DBusProtocolError("message truncated");
    this.pos += n;
    return o;
  }

  u8(): number {
    return this.buf[this.#need(1)];
  }

  u32(): number {
    return this.#view.getUint32(this.#need(4), this.littleEndian);
  }

  read(t: TypeNode, depth = 0): DBusValue {
    if (depth > MAX_DEPTH) throw new DBusProtocolError("value nests too deep");
    this.align(ALIGN[t.code]);
    const le = this.littleEndian;
    switch (t.code) {
      case "y":
        return this.u8();
      case "b": {
        const v = this.u32();
        if (v > 1) throw new DBusProtocolError(`boolean value ${v}`);
        return v === 1;
      }
      case "n":
        return this.#view.getInt16(this.#need(2), le);
      case "q":
        return this.#view.getUint16(this.#need(2), le);
      case "i":
        return this.#view.getInt32(this.#need(4), le);
      case "u":
      case "h":
        return this.u32();
      case "x":
        return this.#view.getBigInt64(this.#need(8), le);
      case "t":
        return this.#view.getBigUint64(this.#need(8), le);
      case "d":
        return this.#view.getFloat64(this.#need(8), le);
      case "s":
      case "o":
        return this.#string(this.u32());
      case "g":
        return this.#string(this.u8());
      case "v": {
        const sig = this.#string(this.u8());
        const inner = parseSignature(sig);
        if (inner.length !== 1) throw new DBusProtocolError(`variant signature ${sig}`);
        return new Variant(sig, this.read(inner[0], depth + 1));
      }
      case "a": {
        const size = this.u32();
        if (size > MAX_ARRAY) throw new DBusProtocolError(`array of ${size} bytes is too long`);
        this.align(ALIGN[t.elem.code]);
        const end = this.pos + size;
        if (end > this.buf.length) throw new DBusProtocolError("message truncated");
        const out: DBusValue[] = [];
        while (this.pos < end) out.push(this.read(t.elem, depth + 1));
        if (this.pos !== end) throw new DBusProtocolError("array elements overrun its length");
        return out;
      }
      case "(":
        return t.fields.map((f) => this.read(f, depth + 1));
      case "{":
        return [this.read(t.key, depth + 1), this.read(t.value, depth + 1)];
    }
  }

  #string(len: number): string {
    const o = this.#need(len + 1);
    if (this.buf[o + len] !== 0) throw new DBusProtocolError("string not NUL-terminated");
    try {
      return decoder.decode(this.buf.subarray(o, o + len));
    } catch (err) {
      throw new DBusProtocolError("string is not UTF-8", { cause: err });
    }
  }
}

/** Encodes `values` by `signature` as a message body (little-endian). */
export function marshal(signature: string, values: readonly DBusValue[]): Uint8Array {
  const types = parseSignature(signature);
  if (types.length !== values.length) {
    throw new DBusProtocolError(
      `signature ${signature} has ${types.length} values, ${values.length} given`,
    );
  }
  const w = new Writer();
  types.forEach((t, i) => w.write(t, values[i]));
  return w.bytes();
}

/** Decodes a message body by `signature`; throws DBusProtocolError on malformed input. */
export function unmarshal(signature: string, body: Uint8Array, littleEndian = true): DBusValue[] {
  const r = new Reader(body, littleEndian);
  const out = parseSignature(signature).map((t) => r.read(t));
  if (r.pos !== body.length) throw new DBusProtocolError("bytes left after the body's values");
  return out;
}

function num(v: DBusValue, code: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw mismatch(code, v);
  return v;
}

function big(v: DBusValue, code: string): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  throw mismatch(code, v);
}

function str(v: DBusValue, code: string): string {
  if (typeof v !== "string") throw mismatch(code, v);
  if (v.includes("\0")) throw new DBusProtocolError(`a ${code} value cannot hold NUL`);
  return v;
}

function mismatch(code: string, v: DBusValue): DBusProtocolError {
  const shown = v instanceof Variant ? "a variant" : Array.isArray(v) ? "an array" : typeof v;
  return new DBusProtocolError(`cannot write ${shown} as D-Bus type ${code}`);
}
