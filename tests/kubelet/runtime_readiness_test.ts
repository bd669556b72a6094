import assert from "node:assert/strict";
import { RUNTIME_SYNC_THRESHOLD_MS, RuntimeState } from "../../src/kubelet/runtime_state.ts";
import type { RuntimeCondition } from "../../src/cri/types.ts";
import { FakeClock } from "../../src/util/clock.ts";

const st = (...conditions: RuntimeCondition[]) => ({ status: { conditions }, runtimeHandlers: [] });
const ready = (type: string): RuntimeCondition => ({ type, status: true, reason: "", message: "" });
const CNI_MISSING: RuntimeCondition = {
  type: "NetworkReady",
  status: false,
  reason: "NetworkPluginNotReady",
  message: "Network plugin returns error: cni plugin not initialized",
};

Deno.test("runtime readiness: nothing known before the first Status, in upstream's words", () => {
  const state = new RuntimeState({ clock: new FakeClock() });
  assert.deepEqual(state.readinessErrors(), [
    "container runtime status check may not have completed yet",
    "network state unknown",
  ]);
});

Deno.test("runtime readiness: NetworkReady false (no CNI yet) keeps the node not ready with the runtime's reason", () => {
  const state = new RuntimeState({ clock: new FakeClock() });
  state.updateStatus(st(ready("RuntimeReady"), CNI_MISSING));
  assert.deepEqual(state.readinessErrors(), [
    "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady " +
    "message:Network plugin returns error: cni plugin not initialized",
  ]);
  state.updateStatus(st(ready("RuntimeReady"), ready("NetworkReady")));
  assert.deepEqual(state.readinessErrors(), []);
});

Deno.test("runtime readiness: RuntimeReady false or missing, a runtime silent for 30 s, a failing PLEG", async () => {
  const clock = new FakeClock();
  const state = new RuntimeState({ clock });
  state.updateStatus(st(
    { type: "RuntimeReady", status: false, reason: "Starting", message: "wait" },
    ready("NetworkReady"),
  ));
  assert.deepEqual(state.readinessErrors(), [
    "container runtime status check may not have completed yet",
    "container runtime not ready: RuntimeReady=false reason:Starting message:wait",
  ]);
  state.updateStatus(st(ready("NetworkReady")));
  assert.deepEqual(state.readinessErrors().slice(1), ["container runtime not ready: <nil>"]);
  state.updateStatus(st(ready("RuntimeReady")));
  assert.deepEqual(state.readinessErrors(), ["container runtime network not ready: <nil>"]);
  state.updateStatus(st(ready("RuntimeReady"), ready("NetworkReady")));
  await clock.advance(RUNTIME_SYNC_THRESHOLD_MS - 1);
  assert.deepEqual(state.readinessErrors(), []);
  // No Status answered since (the runtime is gone): down once the threshold passed.
  await clock.advance(1);
  assert.deepEqual(state.readinessErrors(), ["container runtime is down"]);
  state.updateStatus(st(ready("RuntimeReady"), ready("NetworkReady")));
  assert.deepEqual(
    state.readinessErrors([{ name: "PLEG", ok: false, message: "pleg has yet to be successful" }]),
    ["PLEG is not healthy: pleg has yet to be successful"],
  );
});
