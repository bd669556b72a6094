/**
 * The API server's protobuf wire form (application/vnd.kubernetes.protobuf): a 4-byte magic,
 * then a runtime.Unknown holding the object's apiVersion and kind and its own protobuf bytes.
 * The kubelet speaks it for its steadiest traffic; so does denolet where the bytes add up on a
 * metered uplink (the Lease renewed every 10 s). Codecs are written per object kind.
 */
import { ProtoReader, ProtoWriter } from "../cri/_wire.ts";
import { DenoletError } from "../util/errors.ts";

export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";
const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"

/** Encodes and decodes one kind of object in its protobuf form (without the envelope). */
export interface ProtobufCodec<T> {
  apiVersion: string;
  kind: string;
  encode(w: ProtoWriter, obj: T): void;
  decode(r: ProtoReader, end: number): T;
}

/** `obj` as the API server takes it: magic + runtime.Unknown{typeMeta, raw}. */
export function encodeEnvelope<T>(codec: ProtobufCodec<T>, obj: T): Uint8Array<ArrayBuffer> {
  const inner = new ProtoWriter();
  codec.encode(inner, obj);
  const w = new ProtoWriter();
  for (const b of MAGIC) w.buf[w.pos++] = b;
  w.tag(1, 2);
  const tm = w.open();
  w.tag(1, 2);
  w.string(codec.apiVersion);
  w.tag(2, 2);
  w.string(codec.kind);
  w.close(tm);
  w.tag(2, 2);
  w.bytes(inner.buf.subarray(0, inner.pos));
  return w.buf.slice(0, w.pos);
}

/** The envelope's kind and raw bytes; throws when the bytes are not one. */
export function decodeEnvelope(bytes: Uint8Array): { kind: string; raw: Uint8Array } {
  if (bytes.length < 4 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new DenoletError("not a Kubernetes protobuf message (no k8s magic)");
  }
  const r = new ProtoReader(bytes.subarray(4));
  let kind = "";
  let raw: Uint8Array = new Uint8Array();
  while (r.pos < r.buf.length) {
    const t = r.uint32();
    if (t === 10) {
      const end = r.end();
      while (r.pos < end) {
        const u = r.uint32();
        if (u === 18) kind = r.string();
        else r.skip(u & 7);
      }
    } else if (t === 18) raw = r.bytes();
    else r.skip(t & 7);
  }
  return { kind, raw };
}

/** An object of `codec`'s kind from a protobuf answer. */
export function decodeObject<T>(codec: ProtobufCodec<T>, bytes: Uint8Array): T {
  const { kind, raw } = decodeEnvelope(bytes);
  if (kind !== codec.kind) {
    throw new DenoletError(
      `expected a ${codec.kind} in the protobuf answer, got ${kind || "none"}`,
    );
  }
  const r = new ProtoReader(raw);
  return codec.decode(r, r.buf.length);
}

/** A Status (an error answer) in protobuf: its reason and message. */
export function decodeStatus(bytes: Uint8Array): { reason: string; message: string } {
  const { raw } = decodeEnvelope(bytes);
  const r = new ProtoReader(raw);
  let reason = "";
  let message = "";
  while (r.pos < r.buf.length) {
    const t = r.uint32();
    if (t === 26) message = r.string();
    else if (t === 34) reason = r.string();
    else r.skip(t & 7);
  }
  return { reason, message };
}
