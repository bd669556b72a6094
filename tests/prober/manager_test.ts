import assert from "node:assert/strict";
import { createProbeManager } from "../../src/prober/mod.ts";
import { nullLogger } from "../../src/util/log.ts";
import { createMetricsRegistry } from "../../src/util/metrics.ts";
import { execProbe, FakeExec, probePod, setupManager as setup, tick, UID } from "./_fakes.ts";

Deno.test("prober: readiness is not ready until the first success, then updates once", async () => {
  const { clock, statuses, exec, updates, manager } = setup();
  exec.next = () => 1;
  manager.addPod(probePod({ readinessProbe: execProbe({ periodSeconds: 10 }) }));
  assert.equal(manager.readiness(UID).get("app", "c1"), false, "probed, no result yet");
  statuses.running("c1", clock.now());
  await tick(clock, 0);
  assert.equal(manager.readiness(UID).get("app", "containerd://c1"), false);
  assert.equal(exec.calls.length, 1);
  assert.deepEqual(updates, [], "a failure equal to the initial value is not announced");
  exec.next = () => 0;
  await tick(clock, 10_000);
  assert.equal(manager.readiness(UID).get("app", "c1"), true);
  await tick(clock, 10_000);
  await tick(clock, 10_000);
  assert.equal(exec.calls.length, 4);
  assert.deepEqual(updates, [{
    uid: UID,
    containerName: "app",
    containerId: "c1",
    kind: "readiness",
    result: "success",
  }]);
  manager.stop();
});

Deno.test("prober: liveness fails only after failureThreshold, then holds until a new container", async () => {
  const { clock, statuses, exec, updates, manager } = setup();
  statuses.running("c1", clock.now());
  exec.next = () => 1;
  manager.addPod(probePod({ livenessProbe: execProbe({ periodSeconds: 5, failureThreshold: 3 }) }));
  await tick(clock, 0);
  await tick(clock, 5_000);
  assert.equal(exec.calls.length, 2);
  assert.equal(manager.probeFailure("c1"), undefined);
  assert.equal(updates.length, 0);
  await tick(clock, 5_000);
  assert.equal(manager.probeFailure("c1"), "LivenessProbe");
  assert.equal(manager.probeFailure("containerd://c1"), "LivenessProbe");
  assert.deepEqual(updates.map((u) => [u.kind, u.result]), [["liveness", "failure"]]);
  await tick(clock, 20_000);
  assert.equal(exec.calls.length, 3, "on hold: the failed container is not probed again");

  // The restarted container gets a fresh worker state and is probed again.
  exec.next = () => 0;
  statuses.running("c2", clock.now());
  await tick(clock, 5_000);
  assert.equal(exec.calls.at(-1), "c2");
  assert.equal(manager.probeFailure("c2"), undefined);
  assert.equal(manager.probeFailure("c1"), undefined, "results of the old container are dropped");
  manager.stop();
});

Deno.test("prober: readiness successThreshold counts consecutive successes", async () => {
  const { clock, statuses, exec, manager } = setup();
  statuses.running("c1", clock.now());
  const replies = [0, 1, 0, 0];
  exec.next = () => replies.shift() ?? 0;
  manager.addPod(
    probePod({ readinessProbe: execProbe({ periodSeconds: 1, successThreshold: 2 }) }),
  );
  await tick(clock, 0); // success (run 1)
  assert.equal(manager.readiness(UID).get("app", "c1"), false);
  await tick(clock, 1_000); // failure (run 1 < 3): unchanged
  await tick(clock, 1_000); // success (run 1)
  assert.equal(manager.readiness(UID).get("app", "c1"), false);
  await tick(clock, 1_000); // success (run 2)
  assert.equal(manager.readiness(UID).get("app", "c1"), true);
  manager.stop();
});

Deno.test("prober: no probe before initialDelaySeconds after the container started", async () => {
  const { clock, statuses, exec, manager } = setup();
  statuses.running("c1", clock.now());
  manager.addPod(
    probePod({ livenessProbe: execProbe({ periodSeconds: 1, initialDelaySeconds: 5 }) }),
  );
  await tick(clock, 0);
  for (let i = 0; i < 4; i++) await tick(clock, 1_000);
  assert.equal(exec.calls.length, 0);
  await tick(clock, 1_000);
  assert.equal(exec.calls.length, 1);
  manager.stop();
});

Deno.test("prober: periodSeconds defaults to 10 and sets the probe rate", async () => {
  const { clock, statuses, exec, manager } = setup();
  statuses.running("c1", clock.now());
  manager.addPod(probePod({ livenessProbe: execProbe() }));
  await tick(clock, 0);
  await tick(clock, 9_999);
  assert.equal(exec.calls.length, 1);
  await tick(clock, 1);
  assert.equal(exec.calls.length, 2);
  await tick(clock, 30_000);
  assert.equal(exec.calls.length, 5);
  manager.stop();
});

Deno.test("prober: the startup probe gates liveness and readiness until it succeeds", async () => {
  const { clock, statuses, manager } = setup();
  const perProbe = new Map<string, number>();
  const startupReplies = [1, 1, 0];
  const exec = new FakeExec();
  const m = createProbeManager({
    runtime: {
      execSync(id, cmd, t) {
        perProbe.set(cmd[0], (perProbe.get(cmd[0]) ?? 0) + 1);
        exec.next = () => cmd[0] === "startup" ? startupReplies.shift() ?? 0 : 0;
        return exec.execSync(id, cmd, t);
      },
    },
    clock,
    logger: nullLogger,
    getStatus: statuses.get,
    onUpdate: () => {},
    random: () => 0,
  });
  manager.stop();
  statuses.running("c1", clock.now());
  m.addPod(probePod({
    startupProbe: { exec: { command: ["startup"] }, periodSeconds: 1, failureThreshold: 10 },
    livenessProbe: { exec: { command: ["live"] }, periodSeconds: 1 },
    readinessProbe: { exec: { command: ["ready"] }, periodSeconds: 1 },
  }));
  await tick(clock, 0);
  await tick(clock, 1_000);
  assert.deepEqual([...perProbe], [["startup", 2]]);
  assert.equal(m.startup(UID).get("app", "c1"), false);
  assert.equal(m.startupSucceeded("containerd://c1"), false);
  await tick(clock, 1_000); // startup succeeds; the others probe in the same tick
  assert.equal(m.startup(UID).get("app", "c1"), true);
  assert.equal(m.startupSucceeded("c1"), true, "by container id, as the runtime asks");
  assert.deepEqual([...perProbe], [["startup", 3], ["ready", 1], ["live", 1]]);
  assert.equal(m.readiness(UID).get("app", "c1"), true);
  await tick(clock, 1_000);
  assert.equal(perProbe.get("startup"), 3, "startup stops probing once started");
  assert.equal(perProbe.get("live"), 2);
  m.stop();
});

Deno.test("prober: a failed startup probe is reported and the container put on hold", async () => {
  const { clock, statuses, exec, manager } = setup();
  statuses.running("c1", clock.now());
  exec.next = () => 1;
  manager.addPod(probePod({ startupProbe: execProbe({ periodSeconds: 1, failureThreshold: 2 }) }));
  await tick(clock, 0);
  await tick(clock, 1_000);
  assert.equal(manager.probeFailure("c1"), "StartupProbe");
  await tick(clock, 5_000);
  assert.equal(exec.calls.length, 2);
  manager.stop();
});

Deno.test("prober: a restarted container resets readiness to not ready", async () => {
  const { clock, statuses, manager } = setup();
  statuses.running("c1", clock.now());
  manager.addPod(
    probePod({ readinessProbe: execProbe({ periodSeconds: 10, initialDelaySeconds: 3 }) }),
  );
  await tick(clock, 3_000);
  await tick(clock, 10_000);
  assert.equal(manager.readiness(UID).get("app", "c1"), true);
  statuses.running("c2", clock.now());
  await tick(clock, 10_000); // within the new container's initial delay? no: 10 s > 3 s
  assert.equal(manager.readiness(UID).get("app", "c2"), true);
  statuses.running("c3", clock.now());
  // Seen at the next tick, still inside initialDelaySeconds: back to the initial value.
  await tick(clock, 1);
  manager.addPod(
    probePod({ readinessProbe: execProbe({ periodSeconds: 10, initialDelaySeconds: 3 }) }),
  );
  await tick(clock, 0);
  assert.equal(manager.readiness(UID).get("app", "c3"), false);
  manager.stop();
});

Deno.test("prober: removePod stops every worker, leaves no timer and forgets results", async () => {
  const { clock, statuses, exec, manager } = setup();
  statuses.running("c1", clock.now());
  exec.next = () => 1;
  manager.addPod(probePod({
    livenessProbe: execProbe({ failureThreshold: 1 }),
    readinessProbe: execProbe(),
  }));
  await tick(clock, 0);
  assert.equal(manager.probeFailure("c1"), "LivenessProbe");
  assert.equal(clock.pendingTimers, 2);
  manager.removePod(UID);
  manager.removePod(UID);
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 0);
  assert.equal(manager.probeFailure("c1"), undefined);
  assert.equal(manager.readiness(UID).get("app", "c1"), undefined);
  const before = exec.calls.length;
  await tick(clock, 60_000);
  assert.equal(exec.calls.length, before);
});

Deno.test("prober: cleanupPods keeps desired pods only", async () => {
  const { clock, manager } = setup();
  manager.addPod(probePod({ livenessProbe: execProbe() }));
  manager.addPod({ ...probePod({ livenessProbe: execProbe() }), metadata: { uid: "uid-2" } });
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 2);
  manager.cleanupPods(new Set(["uid-2"]));
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 1);
  manager.stop();
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 0);
});

Deno.test("prober: pods without probes cost no timer; addPod is idempotent", async () => {
  const { clock, manager } = setup();
  manager.addPod(probePod({}));
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 0);
  manager.addPod(probePod({ livenessProbe: execProbe() }, { name: "app" }));
  manager.addPod(probePod({ livenessProbe: execProbe() }));
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 1);
  manager.stop();
});

Deno.test("prober: workers end when the pod is terminal", async () => {
  const { clock, statuses, manager } = setup();
  statuses.running("c1", clock.now());
  manager.addPod(probePod({ livenessProbe: execProbe() }));
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 1);
  statuses.byUid.get(UID)!.phase = "Succeeded";
  await tick(clock, 10_000);
  assert.equal(clock.pendingTimers, 0);
  manager.stop();
});

Deno.test("prober: an exited container under restartPolicy Never ends the worker", async () => {
  const { clock, statuses, manager } = setup();
  statuses.exited("c1");
  const pod = probePod({ readinessProbe: execProbe() });
  pod.spec!.restartPolicy = "Never";
  manager.addPod(pod);
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 0);
  assert.equal(manager.readiness(UID).get("app", "c1"), false);
  manager.stop();
});

Deno.test("prober: an exited sidecar keeps its worker under restartPolicy Never", async () => {
  const { clock, statuses, exec, manager } = setup();
  statuses.exited("c1");
  // "app" is a sidecar here: an init container with restartPolicy Always, restarted whatever
  // the pod's policy, so its probes must carry on with the next instance.
  const pod = probePod({});
  pod.spec = {
    restartPolicy: "Never",
    initContainers: [{
      name: "app",
      image: "busybox",
      restartPolicy: "Always",
      readinessProbe: execProbe({ periodSeconds: 10 }),
    }],
    containers: [{ name: "main", image: "busybox" }],
  };
  manager.addPod(pod);
  await tick(clock, 0);
  assert.equal(clock.pendingTimers, 1, "the worker waits for the restarted sidecar");
  statuses.running("c2", clock.now());
  await tick(clock, 10_000);
  assert.deepEqual(exec.calls, ["c2"]);
  assert.equal(manager.readiness(UID).get("app", "c2"), true);
  manager.stop();
});

Deno.test("prober: a pod being deleted passes liveness and startup quietly and stops", async () => {
  const { clock, statuses, exec, updates, manager } = setup();
  statuses.running("c1", clock.now());
  exec.next = () => 1;
  const pod = probePod({
    startupProbe: execProbe({ periodSeconds: 1, failureThreshold: 10 }),
    livenessProbe: execProbe({ periodSeconds: 1 }),
  });
  manager.addPod(pod);
  await tick(clock, 0);
  assert.equal(exec.calls.length, 1);
  manager.addPod({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date() } });
  await tick(clock, 10_000);
  assert.equal(exec.calls.length, 1);
  assert.equal(clock.pendingTimers, 0);
  assert.equal(manager.probeFailure("c1"), undefined);
  assert.deepEqual(updates.map((u) => [u.kind, u.result]), [["startup", "success"]]);
  manager.stop();
});

Deno.test("prober: an exec timeout is a failure, a runtime error is discarded", async () => {
  const { clock, statuses, exec, manager } = setup();
  statuses.running("c1", clock.now());
  const deadline = Object.assign(new Error("CRI ExecSync failed"), {
    cause: Object.assign(new Error("deadline"), { code: 4 }),
  });
  exec.next = () => deadline;
  manager.addPod(probePod({ livenessProbe: execProbe({ failureThreshold: 1 }) }));
  await tick(clock, 0);
  assert.equal(manager.probeFailure("c1"), "LivenessProbe");
  manager.stop();

  const s2 = setup();
  s2.statuses.running("c1", s2.clock.now());
  s2.exec.next = () => new Error("container not found");
  s2.manager.addPod(probePod({ livenessProbe: execProbe({ failureThreshold: 1 }) }));
  await tick(s2.clock, 0);
  assert.equal(s2.exec.calls.length, 3, "prober errors are retried 3 times");
  assert.equal(s2.manager.probeFailure("c1"), undefined);
  s2.manager.stop();
});

Deno.test("prober: a new running container triggers readiness at once on addPod", async () => {
  const { clock, statuses, exec, manager } = setup();
  const pod = probePod({ readinessProbe: execProbe({ periodSeconds: 30 }) });
  manager.addPod(pod);
  await tick(clock, 0); // no status yet: waits a period
  statuses.running("c1", clock.now());
  manager.addPod(pod);
  await tick(clock, 0);
  assert.equal(exec.calls.length, 1);
  assert.equal(manager.readiness(UID).get("app", "c1"), true);
  manager.addPod(pod); // ready: no more triggers
  await tick(clock, 0);
  assert.equal(exec.calls.length, 1);
  manager.stop();
});

Deno.test("prober: prober_probe_total counts results with upstream labels", async () => {
  const metrics = createMetricsRegistry();
  const { clock, statuses, exec, manager } = setup({ metrics });
  statuses.running("c1", clock.now());
  const replies = [0, 1, 0];
  exec.next = () => replies.shift() ?? 0;
  manager.addPod(probePod({ readinessProbe: execProbe({ periodSeconds: 1 }) }));
  await tick(clock, 0);
  await tick(clock, 1_000);
  await tick(clock, 1_000);
  const text = metrics.render();
  assert.match(text, /# HELP prober_probe_total \[ALPHA\] Cumulative number of a liveness/);
  assert.match(
    text,
    /prober_probe_total\{probe_type="Readiness",result="successful",container="app",pod="web",namespace="default",pod_uid="uid-1"\} 2/,
  );
  assert.match(text, /prober_probe_total\{probe_type="Readiness",result="failed",.*\} 1/);
  manager.stop();
});
