/**
 * Content digests without node:crypto. A bundle evaluates every static `node:` import when it
 * starts, and node:crypto alone kept ~0.8 MB resident in the idle agent (issue 14) for two
 * hashes: MD5, which upstream uses for static pod UIDs and which Web Crypto does not offer, and
 * SHA-256, which Web Crypto does.
 */

/** Lower-case hex of `bytes`. */
export function hex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += HEX[b];
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Hex SHA-256 of `data` (a string is hashed as UTF-8). */
export async function sha256Hex(data: Uint8Array | string): Promise<string> {
  // Read files and response bodies are never shared memory, which Web Crypto would refuse.
  const bytes = typeof data === "string"
    ? new TextEncoder().encode(data)
    : data as Uint8Array<ArrayBuffer>;
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/** Hex MD5 (RFC 1321) of the UTF-8 of `parts` written in order. */
export function md5Hex(...parts: string[]): string {
  const enc = new TextEncoder();
  const chunks = parts.map((p) => enc.encode(p));
  const length = chunks.reduce((n, c) => n + c.length, 0);
  // The message, 0x80, zeros up to 56 mod 64, then the length in bits (64-bit little-endian).
  const padded = new Uint8Array((((length + 8) >>> 6) + 1) * 64);
  let at = 0;
  for (const c of chunks) {
    padded.set(c, at);
    at += c.length;
  }
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, (length * 8) >>> 0, true);
  view.setUint32(padded.length - 4, Math.floor(length / 0x20000000), true);

  const state = new Int32Array([0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476]);
  const m = new Int32Array(16);
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) m[i] = view.getInt32(off + i * 4, true);
    md5Block(state, m);
  }
  const out = new Uint8Array(16);
  const outView = new DataView(out.buffer);
  for (let i = 0; i < 4; i++) outView.setInt32(i * 4, state[i], true);
  return hex(out);
}

/** The per-round shift amounts, four per round. */
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
/** K[i] = floor(|sin(i + 1)| * 2^32), as the RFC defines them. */
const K = Int32Array.from(
  { length: 64 },
  (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32),
);

function md5Block(state: Int32Array, m: Int32Array): void {
  let [a, b, c, d] = state;
  for (let i = 0; i < 64; i++) {
    const round = i >>> 4;
    let f: number;
    let g: number;
    if (round === 0) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (round === 1) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) & 15;
    } else if (round === 2) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    const sum = (f + a + K[i] + m[g]) | 0;
    const s = SHIFTS[round * 4 + (i & 3)];
    a = d;
    d = c;
    c = b;
    b = (b + ((sum << s) | (sum >>> (32 - s)))) | 0;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
}
