/**
 * The packed file's payload: a ustar archive, gzip-compressed. Written here rather than with the
 * host's tar so that the same inputs give the same bytes anywhere (no mtimes, owners or
 * tar-version quirks); read by `tar -xf -` on the node (GNU tar and busybox tar both take it),
 * and by `readTar` for the structural checks. Also reads npm's tarballs (pax headers skipped).
 */
import { gunzipSync, gzipSync } from "node:zlib";

export interface TarEntry {
  /** Path inside the archive, at most 100 bytes (no prefix field is written). */
  name: string;
  mode: number;
  data: Uint8Array;
}

const BLOCK = 512;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A ustar archive of regular files, owned by 0:0 with mtime 0, in the order given. */
export function writeTar(entries: readonly TarEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    parts.push(tarHeader(e), e.data, new Uint8Array(padding(e.data.length)));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  return concat(parts);
}

function tarHeader(e: TarEntry): Uint8Array {
  const name = encoder.encode(e.name);
  if (name.length > 100) throw new Error(`tar: name too long: ${e.name}`);
  const h = new Uint8Array(BLOCK);
  h.set(name, 0);
  field(h, 100, 8, e.mode);
  field(h, 108, 8, 0);
  field(h, 116, 8, 0);
  field(h, 124, 12, e.data.length);
  field(h, 136, 12, 0);
  h.set(encoder.encode("        "), 148);
  h[156] = "0".charCodeAt(0);
  h.set(encoder.encode("ustar\u000000"), 257);
  h.set(encoder.encode("root"), 265);
  h.set(encoder.encode("root"), 297);
  const sum = h.reduce((a, b) => a + b, 0);
  h.set(encoder.encode(sum.toString(8).padStart(6, "0") + "\u0000 "), 148);
  return h;
}

/** An octal number, zero-padded, NUL-terminated, filling `width` bytes. */
function field(h: Uint8Array, offset: number, width: number, value: number): void {
  const text = value.toString(8).padStart(width - 1, "0");
  if (text.length > width - 1) throw new Error(`tar: ${value} does not fit ${width} bytes`);
  h.set(encoder.encode(text + "\u0000"), offset);
}

/** The regular files of a ustar/pax archive. */
export function readTar(bytes: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  let off = 0;
  while (off + BLOCK <= bytes.length) {
    const h = bytes.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) break;
    const size = octal(h.subarray(124, 136));
    const type = String.fromCharCode(h[156] || 0x30);
    const prefix = cString(h.subarray(345, 500));
    const base = cString(h.subarray(0, 100));
    const start = off + BLOCK;
    if (start + size > bytes.length) throw new Error("tar: truncated archive");
    if (type === "0") {
      entries.push({
        name: prefix ? `${prefix}/${base}` : base,
        mode: octal(h.subarray(100, 108)),
        data: bytes.slice(start, start + size),
      });
    }
    off = start + size + padding(size);
  }
  return entries;
}

function octal(b: Uint8Array): number {
  const text = cString(b).trim();
  return text ? parseInt(text, 8) : 0;
}

function cString(b: Uint8Array): string {
  const end = b.indexOf(0);
  return decoder.decode(end < 0 ? b : b.subarray(0, end));
}

function padding(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}

/** gzip at level 9; the header carries no name and mtime 0, so the bytes depend on the input only. */
export function gzip(data: Uint8Array): Uint8Array {
  return new Uint8Array(gzipSync(data, { level: 9 }));
}

export function gunzip(data: Uint8Array): Uint8Array {
  return new Uint8Array(gunzipSync(data));
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
