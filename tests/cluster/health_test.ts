/** The `apiserver` health check: failing only while the pods the cluster wants are unknown. */
import assert from "node:assert/strict";
import { apiServerCheck } from "../../src/cluster/_health.ts";

const ctx = { server: "https://10.0.0.1:6443", nodeName: "edge-1" };

Deno.test("apiserver check: passes once listed, and while the checkpoint's pods run", () => {
  assert.deepEqual(apiServerCheck({ listed: true, fromCheckpoint: false }, ctx), {
    name: "apiserver",
    ok: true,
  });
  const offline = { listed: false, fromCheckpoint: true, lastListError: "connection refused" };
  assert.equal(apiServerCheck(offline, ctx).ok, true, "an outage the node rides out");
});

Deno.test("apiserver check: says why while no list worked and no checkpoint runs", () => {
  const failing = apiServerCheck(
    { listed: false, fromCheckpoint: false, lastListError: "connect ECONNREFUSED" },
    ctx,
  );
  assert.equal(failing.ok, false);
  assert.equal(
    failing.message,
    'cannot list the pods bound to node "edge-1" from the API server at https://10.0.0.1:6443: ' +
      "connect ECONNREFUSED; no checkpoint of them to run meanwhile (static pods run); retrying",
  );
  const starting = apiServerCheck({ listed: false, fromCheckpoint: false }, ctx);
  assert.equal(starting.ok, false);
  assert.match(starting.message ?? "", /^waiting for the first list of the pods bound to node/);
});
