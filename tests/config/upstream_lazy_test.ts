/**
 * The upstream-settings table (decisions for ~130 upstream fields and flags) is loaded only when
 * a file or flag gives one of those settings: most nodes give none, and what the agent evaluates
 * at start stays in memory for its whole life.
 */
import assert from "node:assert/strict";
import { staticClosure } from "../support/static_imports.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("the agent's start does not import the upstream-settings table", async () => {
  const closure = await staticClosure("main.ts", { root: ROOT });
  assert.ok(closure.has("src/config/_upstream_flags.ts"), "the closure is main.ts's");
  for (const mod of closure) {
    assert.doesNotMatch(mod, /^src\/config\/_upstream_(check|rules|table)/, mod);
  }
});
