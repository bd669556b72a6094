/**
 * A static pod's name is validated as upstream does it: after the node name is appended. Before
 * that only its presence is checked, so `web-` (becoming `web--node1`) is fine.
 */
import assert from "node:assert/strict";
import { staticPodFromManifest } from "../../src/sources/mod.ts";
import { InvalidManifestError } from "../../src/util/errors.ts";
import { podYaml } from "./_support.ts";

const origin = {
  path: "/etc/kubernetes/manifests/web.yaml",
  source: "file",
  nodeName: "node1",
} as const;

function refusedName(name: string, fragment: string) {
  assert.throws(() => staticPodFromManifest(podYaml(name), origin), (e: unknown) => {
    assert.ok(e instanceof InvalidManifestError, String(e));
    assert.equal(e.path, origin.path);
    assert.ok(e.message.startsWith(`${origin.path}: `), e.message);
    assert.ok(e.message.includes("metadata.name"), e.message);
    assert.ok(e.message.includes(fragment), e.message);
    return true;
  });
}

Deno.test("a name ending in '-' is valid once the node name is appended", () => {
  assert.equal(staticPodFromManifest(podYaml("web-"), origin).metadata?.name, "web--node1");
});

Deno.test("an invalid name is still refused, naming metadata.name and the file", () => {
  refusedName("Web", "Invalid value");
  refusedName("'web server'", "Invalid value");
  refusedName("web_1", "Invalid value");
  refusedName("-web", "Invalid value");
  // The name becomes part of paths (the pod log directory): a slash must never get through.
  refusedName("a/b", 'Invalid value: "a/b-node1"');
  refusedName("../x", "Invalid value");
  refusedName("''", "Required value");
});

Deno.test("a name too long once suffixed is refused", () => {
  refusedName("a".repeat(250), "must be no more than 253 characters");
  assert.equal(
    staticPodFromManifest(podYaml("a".repeat(247)), origin).metadata?.name?.length,
    253,
  );
});
