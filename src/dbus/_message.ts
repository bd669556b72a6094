/**
 * D-Bus messages ("Message Format" in the specification): a fixed header (endianness, type,
 * flags, version, body length, serial), the header fields as `a(yv)`, padding to 8, the body.
 * Written little-endian; read in either byte order, since the bus forwards each message in its
 * sender's.
 */
import { DBusProtocolError } from "./_errors.ts";
import { type DBusValue, parseSignature, Reader, Variant, Writer } from "./_marshal.ts";

export const MessageType = {
  METHOD_CALL: 1,
  METHOD_RETURN: 2,
  ERROR: 3,
  SIGNAL: 4,
} as const;
export type MessageType = typeof MessageType[keyof typeof MessageType];

export const Flags = {
  NO_REPLY_EXPECTED: 0x1,
  NO_AUTO_START: 0x2,
  ALLOW_INTERACTIVE_AUTHORIZATION: 0x4,
} as const;

export interface DBusMessage {
  type: MessageType;
  flags?: number;
  serial: number;
  path?: string;
  interface?: string;
  member?: string;
  errorName?: string;
  replySerial?: number;
  destination?: string;
  sender?: string;
  /** The body's signature; "" for no body. */
  signature: string;
  body: DBusValue[];
  /** How many unix fds travel with the message (type `h` values index them). */
  unixFds?: number;
}

/** Header field codes and their types. */
const FIELDS = [
  [1, "path", "o"],
  [2, "interface", "s"],
  [3, "member", "s"],
  [4, "errorName", "s"],
  [5, "replySerial", "u"],
  [6, "destination", "s"],
  [7, "sender", "s"],
  [8, "signature", "g"],
  [9, "unixFds", "u"],
] as const;

const HEADER_FIELDS = parseSignature("a(yv)")[0];
/** The specification's maximum message size. */
export const MAX_MESSAGE = 128 << 20;

/** Encodes a message (little-endian). Throws DBusProtocolError for a body that does not fit. */
export function encodeMessage(m: DBusMessage): Uint8Array {
  const body = new Writer();
  const types = parseSignature(m.signature);
  if (types.length !== m.body.length) {
    throw new DBusProtocolError(
      `signature ${JSON.stringify(m.signature)} has ${types.length} values, ${m.body.length} given`,
    );
  }
  types.forEach((t, i) => body.write(t, m.body[i]));
  const fields: DBusValue[] = [];
  for (const [code, key, sig] of FIELDS) {
    const v = m[key];
    if (v === undefined || (key === "signature" && v === "")) continue;
    fields.push([code, new Variant(sig, v)]);
  }
  const w = new Writer();
  w.u8(0x6c); // 'l': little-endian
  w.u8(m.type);
  w.u8(m.flags ?? 0);
  w.u8(1); // protocol version
  w.raw(u32le(body.length));
  w.raw(u32le(m.serial));
  w.write(HEADER_FIELDS, fields);
  w.align(8);
  w.raw(body.bytes());
  if (w.length > MAX_MESSAGE) throw new DBusProtocolError(`message of ${w.length} bytes`);
  return w.bytes();
}

/**
 * The length of the message at the start of `buf`, or 0 while fewer than 16 bytes are there.
 * Throws DBusProtocolError for a header that cannot start a message.
 */
export function messageLength(buf: Uint8Array): number {
  if (buf.length < 16) return 0;
  const le = endianness(buf[0]);
  const view = new DataView(buf.buffer, buf.byteOffset, 16);
  const bodyLen = view.getUint32(4, le);
  const fieldsLen = view.getUint32(12, le);
  const total = 16 + fieldsLen + ((8 - (fieldsLen % 8)) % 8) + bodyLen;
  if (total > MAX_MESSAGE) throw new DBusProtocolError(`message of ${total} bytes`);
  return total;
}

/** Decodes one whole message (`messageLength` bytes). */
export function decodeMessage(buf: Uint8Array): DBusMessage {
  const le = endianness(buf[0]);
  const r = new Reader(buf, le);
  r.pos = 1;
  const type = r.u8();
  const flags = r.u8();
  const version = r.u8();
  if (version !== 1) throw new DBusProtocolError(`protocol version ${version}`);
  const bodyLen = r.u32();
  const serial = r.u32();
  if (serial === 0) throw new DBusProtocolError("message serial 0");
  const m: DBusMessage = { type: type as MessageType, flags, serial, signature: "", body: [] };
  for (const f of r.read(HEADER_FIELDS) as [number, Variant][]) {
    const def = FIELDS.find(([code]) => code === f[0]);
    if (!def) continue; // unknown fields are ignored, as the specification requires
    if (f[1].signature !== def[2]) {
      throw new DBusProtocolError(`header field ${def[1]} has type ${f[1].signature}`);
    }
    (m as unknown as Record<string, DBusValue>)[def[1]] = f[1].value;
  }
  r.align(8);
  if (r.pos + bodyLen !== buf.length) throw new DBusProtocolError("body length mismatch");
  const body = new Reader(buf.subarray(r.pos), le);
  m.body = parseSignature(m.signature).map((t) => body.read(t));
  if (body.pos !== bodyLen) throw new DBusProtocolError("bytes left after the body's values");
  checkRequired(m);
  return m;
}

function checkRequired(m: DBusMessage): void {
  const need: Record<number, (keyof DBusMessage)[]> = {
    [MessageType.METHOD_CALL]: ["path", "member"],
    [MessageType.METHOD_RETURN]: ["replySerial"],
    [MessageType.ERROR]: ["errorName", "replySerial"],
    [MessageType.SIGNAL]: ["path", "interface", "member"],
  };
  for (const key of need[m.type] ?? []) {
    if (m[key] === undefined) {
      throw new DBusProtocolError(`message of type ${m.type} lacks its ${key} header field`);
    }
  }
}

function endianness(b: number): boolean {
  if (b === 0x6c) return true;
  if (b === 0x42) return false;
  throw new DBusProtocolError(`bad endianness byte 0x${b.toString(16)}`);
}

function u32le(v: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, v, true);
  return b;
}
