/**
 * Just enough ASN.1 DER to write X.509 certificates and PKCS#10 requests: each function returns
 * one encoded element. The readers, `certificateVersion` and `requestParts`, look at the first
 * fields of a certificate or a request; everything else about a certificate is read through
 * node:crypto.
 */

import { concatBytes } from "../../util/bytes.ts";

export type Der = Uint8Array<ArrayBuffer>;

function length(n: number): number[] {
  if (n < 0x80) return [n];
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

/** An element with tag byte `tag` around `content`. */
export function tlv(tag: number, content: Uint8Array): Der {
  const len = length(content.length);
  const out = new Uint8Array(1 + len.length + content.length);
  out[0] = tag;
  out.set(len, 1);
  out.set(content, 1 + len.length);
  return out;
}

export function concat(parts: readonly Uint8Array[]): Der {
  return concatBytes(parts);
}

export const sequence = (...items: Der[]): Der => tlv(0x30, concat(items));
export const set = (...items: Der[]): Der => tlv(0x31, concat(items));
export const nullValue = (): Der => tlv(0x05, new Uint8Array());
export const octetString = (bytes: Uint8Array): Der => tlv(0x04, bytes);
export const utf8String = (s: string): Der => tlv(0x0c, new TextEncoder().encode(s));
export const boolean = (v: boolean): Der => tlv(0x01, new Uint8Array([v ? 0xff : 0]));

/** `[n] EXPLICIT`: a constructed context tag wrapping a whole element. */
export const explicit = (n: number, inner: Der): Der => tlv(0xa0 | n, inner);
/** `[n] IMPLICIT` of a primitive: the context tag replaces the element's own. */
export const implicitPrimitive = (n: number, content: Uint8Array): Der => tlv(0x80 | n, content);
/** `[n] IMPLICIT` of a constructed element (SET OF ...): `content` is its inner encoding. */
export const implicitConstructed = (n: number, content: Uint8Array): Der => tlv(0xa0 | n, content);

/** A non-negative INTEGER from big-endian bytes (a leading zero is added when the top bit is set). */
export function unsignedInteger(bytes: Uint8Array): Der {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const trimmed = bytes.subarray(start);
  const content = trimmed.length > 0 && trimmed[0] & 0x80
    ? concat([new Uint8Array([0]), trimmed])
    : trimmed.length === 0
    ? new Uint8Array([0])
    : trimmed;
  return tlv(0x02, content);
}

export const smallInteger = (n: number): Der => unsignedInteger(new Uint8Array([n]));

/** A BIT STRING holding whole bytes (keys, signatures). */
export const bitString = (bytes: Uint8Array): Der =>
  tlv(0x03, concat([new Uint8Array([0]), bytes]));

/**
 * A named-bit-list BIT STRING (keyUsage) from the numbers of the bits set, bit 0 first, with
 * trailing zero bits dropped as DER requires.
 */
export function namedBits(bits: readonly number[]): Der {
  const highest = Math.max(...bits);
  const bytes = new Uint8Array(Math.floor(highest / 8) + 1);
  for (const b of bits) bytes[Math.floor(b / 8)] |= 0x80 >> (b % 8);
  const unused = 7 - (highest % 8);
  return tlv(0x03, concat([new Uint8Array([unused]), bytes]));
}

export function objectId(dotted: string): Der {
  const arcs = dotted.split(".").map(Number);
  const out = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) {
      chunk.unshift(0x80 | (v & 0x7f));
    }
    out.push(...chunk);
  }
  return tlv(0x06, new Uint8Array(out));
}

/** UTCTime through 2049, GeneralizedTime after, as RFC 5280 requires; whole seconds, UTC. */
export function time(ms: number): Der {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString(); // 2026-01-02T03:04:05.000Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, ""); // 20260102030405
  const year = Number(digits.slice(0, 4));
  if (year < 2050) return tlv(0x17, new TextEncoder().encode(`${digits.slice(2)}Z`));
  return tlv(0x18, new TextEncoder().encode(`${digits}Z`));
}

/** DER bytes as PEM with `label` (CERTIFICATE, PRIVATE KEY, CERTIFICATE REQUEST). */
export function pem(label: string, der: Uint8Array): string {
  let bin = "";
  for (const b of der) bin += String.fromCharCode(b);
  const b64 = btoa(bin).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

/** The tag, where the content starts and its length, of the element at `at`; undefined if cut. */
function header(
  der: Uint8Array,
  at: number,
): { tag: number; start: number; length: number } | undefined {
  if (at + 2 > der.length) return undefined;
  const first = der[at + 1];
  if (first < 0x80) return { tag: der[at], start: at + 2, length: first };
  const n = first & 0x7f;
  if (n === 0 || n > 4 || at + 2 + n > der.length) return undefined;
  let length = 0;
  for (let i = 0; i < n; i++) length = length * 256 + der[at + 2 + i];
  return { tag: der[at], start: at + 2 + n, length };
}

/**
 * The X.509 version of a DER certificate (1, 2 or 3): the TBSCertificate's `[0] EXPLICIT`
 * version field, absent for v1. Undefined for bytes that are no certificate.
 */
export function certificateVersion(der: Uint8Array): number | undefined {
  const cert = header(der, 0);
  if (cert?.tag !== 0x30) return undefined;
  const tbs = header(der, cert.start);
  if (tbs?.tag !== 0x30) return undefined;
  const first = header(der, tbs.start);
  if (first === undefined) return undefined;
  if (first.tag !== 0xa0) return 1;
  const int = header(der, first.start);
  if (int?.tag !== 0x02 || int.length !== 1) return undefined;
  return der[int.start] + 1;
}

/** The elements inside the constructed element `el`, in order; undefined if any is cut. */
function children(
  der: Uint8Array,
  el: { start: number; length: number },
): { tag: number; at: number; start: number; length: number; end: number }[] | undefined {
  const out = [];
  for (let at = el.start; at < el.start + el.length;) {
    const h = header(der, at);
    if (h === undefined || h.start + h.length > el.start + el.length) return undefined;
    const end = h.start + h.length;
    out.push({ ...h, at, end });
    at = end;
  }
  return out;
}

/**
 * A PKCS#10 request's subject, as (attribute OID, text) pairs in order, and its public key as
 * DER SubjectPublicKeyInfo. Undefined for bytes that are no request.
 */
export function requestParts(
  der: Uint8Array,
): { subject: [string, string][]; spki: Uint8Array } | undefined {
  const req = header(der, 0);
  if (req?.tag !== 0x30) return undefined;
  const info = header(der, req.start);
  if (info?.tag !== 0x30) return undefined;
  const fields = children(der, info);
  if (!fields || fields.length < 3 || fields[1].tag !== 0x30 || fields[2].tag !== 0x30) {
    return undefined;
  }
  const subject: [string, string][] = [];
  for (const rdn of children(der, fields[1]) ?? []) {
    for (const atv of children(der, rdn) ?? []) {
      const [oid, value] = children(der, atv) ?? [];
      if (oid?.tag !== 0x06 || value === undefined) return undefined;
      subject.push([
        oidText(der.subarray(oid.start, oid.end)),
        new TextDecoder().decode(der.subarray(value.start, value.end)),
      ]);
    }
  }
  return { subject, spki: der.slice(fields[2].at, fields[2].end) };
}

function oidText(content: Uint8Array): string {
  const arcs: number[] = [];
  let v = 0;
  for (const b of content) {
    v = v * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      arcs.push(v);
      v = 0;
    }
  }
  const first = Math.min(Math.floor(arcs[0] / 40), 2);
  return [first, arcs[0] - first * 40, ...arcs.slice(1)].join(".");
}
