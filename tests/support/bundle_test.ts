/**
 * What the package's bundle of main.ts holds (issue 13) and leaves out (issue 14): the bundle is
 * what the single file runs, and V8 keeps its whole text for as long as the agent runs.
 */
import assert from "node:assert/strict";
import { bundleAgent } from "./package.ts";

Deno.test("bundleAgent: main.ts bundles to the same bytes twice and reads no proto file", async () => {
  const info = JSON.stringify({ commit: "test", compiled: true, packed: true });
  const a = await bundleAgent({ info });
  const b = await bundleAgent({ info });
  assert.deepEqual(a, b);
  const text = new TextDecoder().decode(a);
  assert.doesNotMatch(
    text,
    /["'][./]*\/proto\//,
    "a proto/ path means a file read beside the bundle",
  );
  // The CRI codec is compiled in (generated from proto/ by proto_codec.ts).
  assert.match(text, /\/runtime\.v1\.RuntimeService\/ListContainers/);
  assert.match(text, /"packed": true|packed: ?(true|!0)/);
  assert.doesNotMatch(text, /\/root\/\.cache|denolet-package-/, "no host path in the bundle");
  // Minified and one byte per character in V8: no comments, no non-ASCII character anywhere.
  assert.ok(a.every((byte) => byte < 0x80), "the bundle is ASCII");
  assert.doesNotMatch(text, /^\s*\/\*\*/m, "no doc comment survives");
  // protobufjs comes only with @grpc/proto-loader, which stays out (grpc-js channelz/ORCA only).
  assert.doesNotMatch(text, /no such type: /, "protobufjs's reflection is not bundled");
  assert.match(text, /"@grpc\/proto-loader"\)/, "grpc-js's lazy require is left external");
  // Every static node: import is evaluated at start: these are loaded only where used.
  for (const mod of ["node:crypto", "node:https"]) {
    assert.doesNotMatch(text, new RegExp(`from ?"${mod}"`), `${mod} is not imported statically`);
  }
});
