import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { isRestartableInit, isSidecar } from "../../src/util/sidecar.ts";

Deno.test("isSidecar: an init container with restartPolicy Always, and only that", () => {
  const sidecar: V1Container = { name: "log", restartPolicy: "Always" };
  const init: V1Container = { name: "setup" };
  // A regular container with a restartPolicy (ContainerRestartRules) is no sidecar.
  const app: V1Container = { name: "app", restartPolicy: "Always" };
  const pod: V1Pod = { spec: { initContainers: [sidecar, init], containers: [app] } };
  assert.equal(isRestartableInit(sidecar), true);
  assert.equal(isRestartableInit(init), false);
  assert.equal(isSidecar(pod, sidecar), true);
  assert.equal(isSidecar(pod, init), false);
  assert.equal(isSidecar(pod, app), false);
});
