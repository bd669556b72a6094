import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { hex, md5Hex, sha256Hex } from "../../src/util/digest.ts";

const nodeHash = (alg: string, s: string) => createHash(alg).update(s).digest("hex");

Deno.test("md5Hex: the RFC 1321 test suite", () => {
  const suite: [string, string][] = [
    ["", "d41d8cd98f00b204e9800998ecf8427e"],
    ["a", "0cc175b9c0f1b6a831c399e269772661"],
    ["abc", "900150983cd24fb0d6963f7d28e17f72"],
    ["message digest", "f96b697d7cb7938d525a2f31aaf161d0"],
    ["abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"],
    [
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
      "d174ab98d277d9f5a5611c2c9f419d9f",
    ],
    ["1234567890".repeat(8), "57edf4a22be3c955ac49da2e2107b67a"],
  ];
  for (const [input, want] of suite) assert.equal(md5Hex(input), want, JSON.stringify(input));
});

Deno.test("md5Hex: agrees with node:crypto around every padding boundary and for UTF-8", () => {
  for (let n = 0; n <= 200; n++) {
    const s = "x".repeat(n);
    assert.equal(md5Hex(s), nodeHash("md5", s), `length ${n}`);
  }
  const text = "pod ünïcødé 🚀 " + "€".repeat(50);
  assert.equal(md5Hex(text), nodeHash("md5", text));
  const big = JSON.stringify({ spec: { containers: Array(500).fill({ name: "c", image: "i" }) } });
  assert.equal(md5Hex(big), nodeHash("md5", big));
});

Deno.test("md5Hex: parts hash as their concatenation", () => {
  assert.equal(md5Hex('{"a":1}', "node-1"), nodeHash("md5", '{"a":1}node-1'));
  assert.equal(md5Hex("", "abc", ""), md5Hex("abc"));
});

Deno.test("sha256Hex: agrees with node:crypto for bytes and strings", async () => {
  for (const s of ["", "abc", "a".repeat(1000), "ünïcødé"]) {
    assert.equal(await sha256Hex(s), nodeHash("sha256", s));
    assert.equal(await sha256Hex(new TextEncoder().encode(s)), nodeHash("sha256", s));
  }
});

Deno.test("hex: two lower-case digits per byte", () => {
  assert.equal(hex(new Uint8Array([0, 9, 10, 255])), "00090aff");
});
