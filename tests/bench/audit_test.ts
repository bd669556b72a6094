import assert from "node:assert/strict";
import { auditCounts } from "./_audit.ts";

const event = (o: Record<string, unknown>) =>
  JSON.stringify({
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: "Metadata",
    user: { username: "system:node:n1", groups: ["system:nodes"] },
    stageTimestamp: "2026-11-28T10:00:30.000000Z",
    ...o,
  });

Deno.test("auditCounts counts a node's requests in a window by verb and resource", () => {
  const t = Date.parse("2026-11-28T10:00:00Z");
  const log = [
    event({
      stage: "ResponseComplete",
      verb: "update",
      objectRef: { resource: "leases", name: "n1" },
    }),
    event({
      stage: "ResponseComplete",
      verb: "patch",
      objectRef: { resource: "pods", subresource: "status" },
    }),
    event({
      stage: "ResponseComplete",
      verb: "patch",
      objectRef: { resource: "pods", subresource: "status" },
    }),
    // A watch counts when it starts, not again when it ends.
    event({ stage: "ResponseStarted", verb: "watch", objectRef: { resource: "pods" } }),
    event({ stage: "ResponseComplete", verb: "watch", objectRef: { resource: "pods" } }),
    // Non-resource request: keyed by its path.
    event({ stage: "ResponseComplete", verb: "get", requestURI: "/livez?verbose" }),
    // Another node, outside the window, a cut line.
    event({
      stage: "ResponseComplete",
      verb: "get",
      user: { username: "system:node:n2" },
      objectRef: { resource: "nodes" },
    }),
    event({
      stage: "ResponseComplete",
      verb: "get",
      stageTimestamp: "2026-11-28T10:02:00Z",
      objectRef: { resource: "nodes" },
    }),
    '{"kind":"Event","user":{"username":"system:node:n1"',
  ].join("\n");
  assert.deepEqual(
    auditCounts(log, { user: "system:node:n1", fromMs: t, toMs: t + 60_000 }),
    { "update leases": 1, "patch pods/status": 2, "watch pods": 1, "get /livez": 1 },
  );
});
