/** Readiness and startup answers belong to one container instance, not to its name. */
import assert from "node:assert/strict";
import { execProbe, probePod, setupManager as setup, tick, UID } from "./_fakes.ts";

Deno.test("prober: a restarted container is not ready before its own readiness probe runs", async () => {
  const { clock, statuses, manager } = setup();
  const pod = probePod({ readinessProbe: execProbe({ periodSeconds: 10 }) });
  statuses.running("c1", clock.now());
  manager.addPod(pod);
  await tick(clock, 0);
  assert.equal(manager.readiness(UID).get("app", "containerd://c1"), true);
  // c1 crashes and comes back as c2 within one period (a first restart has no back-off); the
  // kubelet computes the status of c2 before the worker has seen it.
  await tick(clock, 2_000);
  statuses.running("c2", clock.now());
  assert.equal(manager.readiness(UID).get("app", "containerd://c2"), false);
  manager.stop();
});

Deno.test("prober: asking about an unprobed container triggers its readiness probe at once", async () => {
  const { clock, statuses, exec, manager } = setup();
  const pod = probePod({ readinessProbe: execProbe({ periodSeconds: 10 }) });
  statuses.running("c1", clock.now());
  manager.addPod(pod);
  await tick(clock, 0);
  await tick(clock, 2_000);
  statuses.running("c2", clock.now());
  assert.equal(manager.readiness(UID).get("app", "c2"), false);
  await tick(clock, 0);
  assert.deepEqual(exec.calls, ["c1", "c2"], "c2 probed without waiting for the next tick");
  assert.equal(manager.readiness(UID).get("app", "c2"), true);
  manager.stop();
});

Deno.test("prober: a restarted container's initial readiness is announced", async () => {
  const { clock, statuses, exec, updates, manager } = setup();
  const pod = probePod({ readinessProbe: execProbe({ periodSeconds: 10 }) });
  statuses.running("c1", clock.now());
  manager.addPod(pod);
  await tick(clock, 0);
  assert.deepEqual(updates.map((u) => [u.containerId, u.result]), [["c1", "success"]]);
  await tick(clock, 2_000);
  statuses.running("c2", clock.now());
  exec.next = () => 1;
  manager.addPod(pod); // the sync that saw c2 triggers the worker
  await tick(clock, 0);
  await tick(clock, 10_000);
  assert.equal(manager.readiness(UID).get("app", "c2"), false);
  // The failures stay below failureThreshold; the status is corrected by the initial value.
  assert.deepEqual(updates.map((u) => [u.containerId, u.result]), [
    ["c1", "success"],
    ["c2", "failure"],
  ]);
  manager.stop();
});

Deno.test("prober: a restarted container has not started before its own startup probe runs", async () => {
  const { clock, statuses, manager } = setup();
  const pod = probePod({ startupProbe: execProbe({ periodSeconds: 10 }) });
  statuses.running("c1", clock.now());
  manager.addPod(pod);
  await tick(clock, 0);
  assert.equal(manager.startup(UID).get("app", "c1"), true);
  await tick(clock, 2_000);
  statuses.running("c2", clock.now());
  assert.equal(manager.startup(UID).get("app", "c2"), false);
  assert.equal(manager.startupSucceeded("c2"), false);
  manager.stop();
});

Deno.test("prober: a container without the probe kind has no answer", async () => {
  const { clock, statuses, manager } = setup();
  statuses.running("c1", clock.now());
  manager.addPod(probePod({ livenessProbe: execProbe() }));
  await tick(clock, 0);
  assert.equal(manager.readiness(UID).get("app", "c1"), undefined);
  assert.equal(manager.startup(UID).get("app", "c1"), undefined);
  assert.equal(manager.readiness("other-uid").get("app", "c1"), undefined);
  manager.stop();
});
