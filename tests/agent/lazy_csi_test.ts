/**
 * The agent's CSI part in API mode (src/agent/_csi.ts): the CSINode is made at start, before
 * any plugin registers, and the node is not Ready until then (upstream's storage error).
 */
import assert from "node:assert/strict";
import { lazyCsi } from "../../src/agent/_csi.ts";
// Loaded ahead, so the agent's dynamic import of it resolves within the fake clock's steps.
import "../../src/csi/csinode.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeCsiApi } from "../csi/_fakes.ts";

Deno.test("lazy CSI: the CSINode is made at start with no plugin; not Ready until it is", async () => {
  const root = await Deno.makeTempDir({ prefix: "denolet-lazy-csi-" });
  const api = new FakeCsiApi();
  api.objects.set("/api/v1/nodes/n1", { metadata: { name: "n1", uid: "node-uid" } });
  const clock = new FakeClock();
  let changes = 0;
  const csi = lazyCsi({
    rootDir: root,
    nodeName: "n1",
    client: api,
    clock,
    logger: nullLogger,
    onChange: () => {},
    onReadinessChange: () => changes++,
    nodeUid: () => "node-uid",
  });
  assert.deepEqual(csi.readinessErrors(), ["CSINode is not yet initialized"]);
  const stop = new AbortController();
  const running = csi.run({ signal: stop.signal });
  try {
    for (let i = 0; i < 100 && !api.objects.has("/apis/storage.k8s.io/v1/csinodes/n1"); i++) {
      await clock.advance(100);
    }
    assert.ok(api.objects.has("/apis/storage.k8s.io/v1/csinodes/n1"), "the CSINode made");
    assert.deepEqual(csi.readinessErrors(), []);
    assert.equal(changes, 1, "the node status told");
  } finally {
    stop.abort();
    await running;
    await Deno.remove(root, { recursive: true });
  }
});
