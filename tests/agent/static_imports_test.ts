/**
 * What the agent evaluates at start stays in memory for its whole life (and, split into chunks
 * by the package, its text is not even read until used): API mode's client and the
 * authenticated node API load only when a kubeconfig or --port asks for them.
 */
import assert from "node:assert/strict";
import { staticClosure } from "../support/static_imports.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("the agent's start does not import API mode's client or the authenticated node API", async () => {
  const closure = await staticClosure("src/agent/mod.ts", { root: ROOT });
  assert.ok(closure.has("src/server/handler.ts"), "the closure is the agent's");
  const lazy = [
    /^src\/apiclient\/(client|_kubeconfig|reflector|protobuf|request_metrics)\.ts$/,
    /^src\/server\/(node_api|secure_handler|secure_serve)\.ts$/,
    /^src\/server\/(auth|tls)\//,
    /^src\/(cluster|certificate|credentials\/plugins|csi|nodeshutdown|dbus)\//,
  ];
  for (const mod of closure) {
    for (const re of lazy) assert.doesNotMatch(mod, re, `${mod} is imported at start`);
  }
});
