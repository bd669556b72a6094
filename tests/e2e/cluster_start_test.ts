/**
 * The agent in API-server mode starts against a real control plane, and a kubeconfig it cannot
 * use stops the start with an error naming the file and field.
 */
import assert from "node:assert/strict";
import { startAgent } from "../support/agent.ts";
import { E2E_TEST, setupCluster } from "./_cluster.ts";

Deno.test({
  name: "API mode: the agent starts with --kubeconfig and is healthy",
  ...E2E_TEST,
  async fn() {
    const c = await setupCluster();
    try {
      const res = await c.agent.get("/healthz");
      assert.equal(res.status, 200, await res.text());
      assert.match(await c.agent.logTail(200), /API-server mode/);
    } finally {
      await c.close();
    }
  },
});

Deno.test({
  name: "API mode: an unusable kubeconfig ends the start with its path and field",
  ...E2E_TEST,
  async fn() {
    const dir = await Deno.makeTempDir();
    const path = `${dir}/kubeconfig`;
    await Deno.writeTextFile(path, "apiVersion: v1\nkind: Config\nclusters: []\n");
    await using agent = await startAgent({ extraArgs: ["--kubeconfig", path] });
    const status = await agent.exited;
    assert.equal(status.code, 1);
    assert.match(await agent.logTail(20), new RegExp(`${path}: current-context: is not set`));
    await Deno.remove(dir, { recursive: true });
  },
});
