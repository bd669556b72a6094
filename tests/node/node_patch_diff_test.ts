/**
 * The Node status patch carries only what differs from the API server's Node (upstream's two-way
 * merge patch): on a metered uplink the report every 5 minutes is heartbeats alone.
 */
import assert from "node:assert/strict";
import type { V1Node } from "@kubernetes/client-node";
import { readyStatus, statusUpdate, withConditions } from "../../src/node/_node_patch.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { agentNode } from "./_fakes.ts";

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const LATER = T0 + 300_000;
const state = { ready: true, memoryPressure: false, memory: "1900Mi" };

/** The agent's Node as the API server sends it back (JSON: times as strings). */
function asServer(n: V1Node): V1Node {
  return JSON.parse(JSON.stringify(n));
}

Deno.test("an unchanged status patch is each condition's type and heartbeat, nothing else", () => {
  const ours = agentNode("edge-1", new FakeClock(T0), state);
  const update = statusUpdate(asServer(ours), ours, LATER);
  assert.equal(update.changed, false);
  assert.deepEqual(update.patch, {
    status: {
      conditions: [
        { type: "MemoryPressure", lastHeartbeatTime: "2026-01-01T12:05:00Z" },
        { type: "Ready", lastHeartbeatTime: "2026-01-01T12:05:00Z" },
      ],
    },
  });
});

Deno.test("a changed status patch carries the changed entries and conditions only", () => {
  const clock = new FakeClock(T0);
  const server = asServer(agentNode("edge-1", clock, state));
  const ours = agentNode("edge-1", clock, { ...state, memoryPressure: true, memory: "1800Mi" });
  ours.status!.nodeInfo!.kernelVersion = "6.2";
  const update = statusUpdate(server, ours, LATER);
  assert.equal(update.changed, true);
  assert.deepEqual(update.patch, {
    status: {
      conditions: [
        {
          type: "MemoryPressure",
          status: "True",
          reason: "KubeletHasInsufficientMemory",
          message: "kubelet has insufficient memory available",
          lastHeartbeatTime: "2026-01-01T12:05:00Z",
          lastTransitionTime: "2026-01-01T12:05:00Z",
        },
        { type: "Ready", lastHeartbeatTime: "2026-01-01T12:05:00Z" },
      ],
      allocatable: { memory: "1800Mi" },
      nodeInfo: { kernelVersion: "6.2" },
    },
  });
  assert.deepEqual(update.transitions, [{ type: "MemoryPressure", status: "True" }]);
});

Deno.test("a Node with swap is unchanged against the API server's copy of itself", () => {
  const ours = agentNode("edge-1", new FakeClock(T0), state);
  // NodeSwapStatus: a struct inside nodeInfo, a new object at every computation.
  (ours.status!.nodeInfo as unknown as Record<string, unknown>).swap = { capacity: 2 ** 30 };
  const update = statusUpdate(asServer(ours), ours, LATER);
  assert.equal(update.changed, false, "not posted every period");
  assert.equal((update.patch.status as Record<string, unknown>).nodeInfo, undefined);
});

Deno.test("withConditions: the server's Node as the patch leaves its conditions", () => {
  const clock = new FakeClock(T0);
  const server = asServer(agentNode("edge-1", clock, { ...state, ready: false }));
  const ours = agentNode("edge-1", clock, state);
  const { patch } = statusUpdate(server, ours, LATER);
  const after = withConditions(server, patch);
  assert.equal(readyStatus(server), "False");
  assert.equal(readyStatus(after), "True");
  const ready = after.status?.conditions?.find((c) => c.type === "Ready");
  assert.equal(ready?.reason, "KubeletReady");
  // A condition the patch only heartbeats keeps the rest of what the server had.
  const mp = after.status?.conditions?.find((c) => c.type === "MemoryPressure");
  assert.equal(mp?.reason, "KubeletHasSufficientMemory");
  assert.equal(String(mp?.lastHeartbeatTime), "2026-01-01T12:05:00Z");
  assert.deepEqual(after.status?.allocatable, server.status?.allocatable);
});
