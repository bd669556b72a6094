/**
 * What the package's bundle of main.ts holds (issue 13) and leaves out (issue 14): the bundle is
 * what the single file runs, and V8 keeps the text of every file it loads for as long as the
 * agent runs.
 */
import assert from "node:assert/strict";
import { bundleAgent, type BundleFile } from "./package.ts";
import { BUNDLE_FILE } from "./_package_header.ts";

/** The files `name` imports statically (minified: `from"./x.js"`, `import"./x.js"`). */
function staticImports(files: readonly BundleFile[], name: string, seen = new Set<string>()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const file = files.find((f) => f.name === name);
  assert.ok(file, `${name} is in the bundle`);
  const text = new TextDecoder().decode(file.data);
  for (const m of text.matchAll(/(?:from|import)\s*"\.\/([^"]+)"/g)) {
    staticImports(files, m[1], seen);
  }
  return seen;
}

Deno.test("bundleAgent: main.ts bundles to the same bytes twice and reads no proto file", async () => {
  const info = JSON.stringify({ commit: "test", compiled: true, packed: true });
  const a = await bundleAgent({ info });
  const b = await bundleAgent({ info });
  assert.deepEqual(a, b);
  assert.equal(a[0].name, BUNDLE_FILE);
  const text = a.map((f) => new TextDecoder().decode(f.data)).join("\n");
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
  for (const f of a) assert.ok(f.data.every((byte) => byte < 0x80), `${f.name} is ASCII`);
  assert.doesNotMatch(text, /^\s*\/\*\*/m, "no doc comment survives");
  // protobufjs comes only with @grpc/proto-loader, which stays out (grpc-js channelz/ORCA only).
  assert.doesNotMatch(text, /no such type: /, "protobufjs's reflection is not bundled");
  assert.match(text, /"@grpc\/proto-loader"\)/, "grpc-js's lazy require is left external");
  // Every static node: import is evaluated at start: these are loaded only where used.
  for (const mod of ["node:crypto", "node:https"]) {
    assert.doesNotMatch(text, new RegExp(`from ?"${mod}"`), `${mod} is not imported statically`);
  }
});

Deno.test("bundleAgent: what only dynamic imports reach is in chunks the entry does not load", async () => {
  const info = JSON.stringify({ commit: "test", compiled: true, packed: true });
  const files = await bundleAgent({ info });
  assert.ok(files.length > 1, "split into chunks");
  const loaded = staticImports(files, BUNDLE_FILE);
  const holder = (needle: string) => {
    const found = files.filter((f) => new TextDecoder().decode(f.data).includes(needle));
    assert.equal(found.length, 1, `one file holds ${JSON.stringify(needle)}`);
    return found[0].name;
  };
  // The upstream-settings table, the feature-gate table and API mode's start.
  for (
    const needle of [
      "another stats housekeeping interval",
      "has no decision for",
      "closing every connection to the API server",
    ]
  ) {
    const name = holder(needle);
    assert.ok(!loaded.has(name), `${name} (${JSON.stringify(needle)}) is loaded at start`);
  }
  // The agent's start itself is in the entry's static closure or one dynamic import away.
  assert.ok(loaded.has(holder("Run 'denolet --help' for the flags.")));
});
