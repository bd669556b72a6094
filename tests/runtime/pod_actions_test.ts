import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { computePodActions, type PodActions } from "../../src/runtime/_pod_actions.ts";
import { containerHash } from "../../src/runtime/_labels.ts";
import type {
  RuntimeContainerStatus,
  RuntimePodStatus,
  RuntimeSandboxStatus,
} from "../../src/runtime/types.ts";

const T0 = Date.UTC(2026, 0, 1);

function pod(spec: Partial<NonNullable<V1Pod["spec"]>> = {}): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: { containers: [{ name: "app", image: "busybox:1.36" }], ...spec },
  };
}

function sandbox(over: Partial<RuntimeSandboxStatus> = {}): RuntimeSandboxStatus {
  return {
    id: "sb1",
    state: "ready",
    createdAt: T0,
    attempt: 0,
    ips: ["10.85.0.2"],
    hostNetwork: false,
    ...over,
  };
}

let seq = 0;
function ctr(
  spec: V1Container,
  over: Partial<RuntimeContainerStatus> = {},
): RuntimeContainerStatus {
  seq++;
  return {
    id: `c${seq}`,
    name: spec.name,
    sandboxId: "sb1",
    state: "running",
    createdAt: T0 + seq,
    image: spec.image ?? "",
    imageRef: "sha256:abc",
    restartCount: 0,
    hash: containerHash(spec),
    ...over,
  };
}

function status(
  sandboxes: RuntimeSandboxStatus[],
  containers: RuntimeContainerStatus[],
): RuntimePodStatus {
  return {
    uid: "uid-1",
    name: "web",
    namespace: "default",
    sandboxes,
    containers: [...containers].sort((a, b) => b.createdAt - a.createdAt),
    ips: sandboxes[0]?.ips ?? [],
    timestamp: T0,
  };
}

function exited(spec: V1Container, exitCode: number, over: Partial<RuntimeContainerStatus> = {}) {
  return ctr(spec, { state: "exited", exitCode, finishedAt: T0 + 100, ...over });
}

function summary(a: PodActions) {
  return {
    killPod: a.killPod,
    createSandbox: a.createSandbox,
    sandboxId: a.sandboxId,
    attempt: a.attempt,
    init: a.initContainersToStart,
    start: a.containersToStart,
    kill: [...a.containersToKill.keys()],
  };
}

Deno.test("computePodActions: a new pod gets a sandbox and all app containers", () => {
  const p = pod({ containers: [{ name: "a", image: "x" }, { name: "b", image: "y" }] });
  assert.deepEqual(summary(computePodActions(p, status([], []))), {
    killPod: true,
    createSandbox: true,
    sandboxId: "",
    attempt: 0,
    init: [],
    start: ["a", "b"],
    kill: [],
  });
});

Deno.test("computePodActions: a new pod with init containers starts the first init only", () => {
  const p = pod({ initContainers: [{ name: "i1", image: "x" }, { name: "i2", image: "x" }] });
  const a = computePodActions(p, status([], []));
  assert.equal(a.createSandbox, true);
  assert.deepEqual(a.initContainersToStart, ["i1"]);
  assert.deepEqual(a.containersToStart, []);
});

Deno.test("computePodActions: init containers run one by one, then the app containers", () => {
  const i1: V1Container = { name: "i1", image: "x" };
  const i2: V1Container = { name: "i2", image: "x" };
  const p = pod({ initContainers: [i1, i2] });
  const sb = [sandbox()];
  let a = computePodActions(p, status(sb, [ctr(i1)]));
  assert.deepEqual(summary(a).init, [], "i1 still running: wait");
  assert.deepEqual(a.containersToStart, []);
  assert.equal(a.killPod, false);

  a = computePodActions(p, status(sb, [exited(i1, 0)]));
  assert.deepEqual(a.initContainersToStart, ["i2"]);

  a = computePodActions(p, status(sb, [exited(i1, 0), exited(i2, 0)]));
  assert.deepEqual(a.initContainersToStart, []);
  assert.deepEqual(a.containersToStart, ["app"]);
});

Deno.test("computePodActions: a failed init container restarts unless restartPolicy is Never", () => {
  const i1: V1Container = { name: "i1", image: "x" };
  for (const policy of ["Always", "OnFailure"]) {
    const a = computePodActions(
      pod({ initContainers: [i1], restartPolicy: policy }),
      status([sandbox()], [exited(i1, 1)]),
    );
    assert.deepEqual(a.initContainersToStart, ["i1"], policy);
    assert.equal(a.killPod, false, policy);
  }
  const never = computePodActions(
    pod({ initContainers: [i1], restartPolicy: "Never" }),
    status([sandbox()], [exited(i1, 1)]),
  );
  assert.equal(never.killPod, true);
  assert.deepEqual(never.initContainersToStart, []);
  assert.deepEqual(never.containersToStart, []);
});

Deno.test("computePodActions: an OOM-killed init container counts as failed", () => {
  const i1: V1Container = { name: "i1", image: "x" };
  const a = computePodActions(
    pod({ initContainers: [i1], restartPolicy: "Never" }),
    status([sandbox()], [exited(i1, 0, { reason: "OOMKilled" })]),
  );
  assert.equal(a.killPod, true);
});

Deno.test("computePodActions: a running app container means init is done even if GC'd", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const p = pod({ initContainers: [{ name: "i1", image: "x" }], containers: [app] });
  const a = computePodActions(p, status([sandbox()], [ctr(app)]));
  assert.deepEqual(a.initContainersToStart, []);
  assert.deepEqual(summary(a).start, []);
  assert.equal(a.killPod, false);
});

Deno.test("computePodActions: restart policies against exit codes", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const cases: [string, number, boolean][] = [
    ["Always", 0, true],
    ["Always", 1, true],
    ["OnFailure", 0, false],
    ["OnFailure", 2, true],
    ["Never", 0, false],
    ["Never", 1, false],
  ];
  for (const [policy, code, restart] of cases) {
    const a = computePodActions(
      pod({ containers: [app], restartPolicy: policy }),
      status([sandbox()], [exited(app, code)]),
    );
    assert.deepEqual(a.containersToStart, restart ? ["app"] : [], `${policy}/${code}`);
    // Nothing running and nothing to start: the sandbox is stopped.
    assert.equal(a.killPod, !restart, `${policy}/${code} killPod`);
    assert.equal(a.createSandbox, false);
  }
});

Deno.test("computePodActions: restartPolicy Never starts a container that never ran", () => {
  const a: V1Container = { name: "a", image: "x" };
  const b: V1Container = { name: "b", image: "x" };
  const r = computePodActions(
    pod({ containers: [a, b], restartPolicy: "Never" }),
    status([sandbox()], [exited(a, 0)]),
  );
  assert.deepEqual(r.containersToStart, ["b"]);
});

Deno.test("computePodActions: a running pod with matching hashes needs nothing (adoption)", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const a = computePodActions(pod({ containers: [app] }), status([sandbox()], [ctr(app)]));
  assert.deepEqual(summary(a), {
    killPod: false,
    createSandbox: false,
    sandboxId: "sb1",
    attempt: 0,
    init: [],
    start: [],
    kill: [],
  });
});

Deno.test("computePodActions: a changed spec kills and restarts the container whatever the policy", () => {
  const old: V1Container = { name: "app", image: "busybox:1.35" };
  const running = ctr(old);
  const a = computePodActions(
    pod({ containers: [{ name: "app", image: "busybox:1.36" }], restartPolicy: "Never" }),
    status([sandbox()], [running]),
  );
  assert.deepEqual(a.containersToStart, ["app"]);
  assert.deepEqual([...a.containersToKill.keys()], [running.id]);
  assert.equal(
    a.containersToKill.get(running.id)?.message,
    "Container app definition changed, will be restarted",
  );
  assert.equal(a.killPod, false);
});

Deno.test("computePodActions: a liveness failure kills and restarts per policy", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const running = ctr(app);
  const probeFailure = (id: string) => id === running.id ? "LivenessProbe" as const : undefined;
  const always = computePodActions(pod(), status([sandbox()], [running]), { probeFailure });
  assert.deepEqual(always.containersToStart, ["app"]);
  assert.equal(always.containersToKill.get(running.id)?.reason, "LivenessProbe");
  const never = computePodActions(
    pod({ restartPolicy: "Never" }),
    status([sandbox()], [running]),
    { probeFailure },
  );
  assert.deepEqual(never.containersToStart, []);
  assert.equal(never.containersToKill.size, 1);
  assert.equal(never.killPod, true, "nothing left to keep");
});

Deno.test("computePodActions: a dead sandbox is replaced with attempt+1 and init restarts", () => {
  const i1: V1Container = { name: "i1", image: "x" };
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const p = pod({ initContainers: [i1], containers: [app] });
  const a = computePodActions(
    p,
    status([sandbox({ state: "notready", attempt: 2 })], [exited(i1, 0), exited(app, 137)]),
  );
  assert.deepEqual(summary(a), {
    killPod: true,
    createSandbox: true,
    sandboxId: "sb1",
    attempt: 3,
    init: ["i1"],
    start: [],
    kill: [],
  });
});

Deno.test("computePodActions: sandbox recreated when it lost its IP or hostNetwork toggled", () => {
  const noIp = computePodActions(pod(), status([sandbox({ ips: [] })], []));
  assert.equal(noIp.createSandbox, true);
  assert.equal(noIp.attempt, 1);
  const hostNet = computePodActions(
    pod({ hostNetwork: true }),
    status([sandbox({ hostNetwork: false })], []),
  );
  assert.equal(hostNet.createSandbox, true);
  const hostNetOk = computePodActions(
    pod({ hostNetwork: true }),
    status([sandbox({ hostNetwork: true, ips: [] })], []),
  );
  assert.equal(hostNetOk.createSandbox, false);
  assert.deepEqual(hostNetOk.containersToStart, ["app"]);
});

Deno.test("computePodActions: two ready sandboxes are reconciled into a new one", () => {
  const a = computePodActions(
    pod(),
    status([sandbox({ id: "sb2", attempt: 1, createdAt: T0 + 5 }), sandbox()], []),
  );
  assert.equal(a.createSandbox, true);
  assert.equal(a.sandboxId, "sb2");
  assert.equal(a.attempt, 2);
});

Deno.test("computePodActions: a finished Never pod does not get a new sandbox", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const a = computePodActions(
    pod({ restartPolicy: "Never" }),
    status([sandbox({ state: "notready" })], [exited(app, 0)]),
  );
  assert.equal(a.createSandbox, false);
  assert.equal(a.killPod, true);
  assert.deepEqual(a.containersToStart, []);
});

Deno.test("computePodActions: a Never pod whose sandbox failed before any container retries", () => {
  const a = computePodActions(
    pod({ restartPolicy: "Never" }),
    status([sandbox({ state: "notready" })], []),
  );
  assert.equal(a.createSandbox, true);
  assert.deepEqual(a.containersToStart, ["app"]);
});

Deno.test("computePodActions: OnFailure with a dead sandbox restarts only failed containers", () => {
  const a: V1Container = { name: "a", image: "x" };
  const b: V1Container = { name: "b", image: "x" };
  const p = pod({ containers: [a, b], restartPolicy: "OnFailure" });
  const r = computePodActions(
    p,
    status([sandbox({ state: "notready" })], [exited(a, 0), exited(b, 1)]),
  );
  assert.equal(r.createSandbox, true);
  assert.deepEqual(r.containersToStart, ["b"]);
  const done = computePodActions(
    p,
    status([sandbox({ state: "notready" })], [exited(a, 0), exited(b, 0)]),
  );
  assert.equal(done.createSandbox, false, "everything succeeded: no new sandbox");
});

Deno.test("computePodActions: a container in unknown state is killed before restart", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const unknown = ctr(app, { state: "unknown" });
  const a = computePodActions(pod(), status([sandbox()], [unknown]));
  assert.deepEqual(a.containersToStart, ["app"]);
  assert.equal(a.containersToKill.get(unknown.id)?.reason, "Unknown");
});

Deno.test("computePodActions: a deleted pod restarts nothing", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const p = pod();
  p.metadata!.deletionTimestamp = new Date(T0);
  const a = computePodActions(p, status([sandbox()], [exited(app, 1)]));
  assert.deepEqual(a.containersToStart, []);
  assert.equal(a.killPod, true);
});

Deno.test("computePodActions: the newest instance decides", () => {
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const old = exited(app, 1, { createdAt: T0 + 1 });
  const newer = ctr(app, { createdAt: T0 + 50, restartCount: 1 });
  const a = computePodActions(pod(), status([sandbox()], [old, newer]));
  assert.deepEqual(a.containersToStart, []);
  assert.equal(a.killPod, false);
});

// ---- sidecars: init containers with restartPolicy Always ----

const sidecar = (name: string, over: Partial<V1Container> = {}): V1Container => ({
  name,
  image: "x",
  restartPolicy: "Always",
  ...over,
});

Deno.test("computePodActions: sidecars and init containers start in spec order, then the apps", () => {
  const s1 = sidecar("s1");
  const i2: V1Container = { name: "i2", image: "x" };
  const s3 = sidecar("s3");
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const p = pod({ initContainers: [s1, i2, s3], containers: [app] });
  const sb = [sandbox()];
  const step = (cs: RuntimeContainerStatus[]) => {
    const a = computePodActions(p, status(sb, cs));
    assert.equal(a.killPod, false);
    return { init: a.initContainersToStart, start: a.containersToStart };
  };
  const s1Up = ctr(s1);
  assert.deepEqual(step([]), { init: ["s1"], start: [] });
  assert.deepEqual(step([s1Up]), { init: ["i2"], start: [] }, "a running sidecar lets i2 go");
  assert.deepEqual(step([s1Up, ctr(i2)]), { init: [], start: [] }, "i2 runs: wait");
  const i2Done = exited(i2, 0);
  assert.deepEqual(step([s1Up, i2Done]), { init: ["s3"], start: [] });
  const s3Up = ctr(s3);
  assert.deepEqual(step([s1Up, i2Done, s3Up]), { init: [], start: ["app"] }, "all started");
  assert.deepEqual(step([s1Up, i2Done, s3Up, ctr(app)]), { init: [], start: [] });
});

Deno.test("computePodActions: a sidecar's startup probe holds the next one until it succeeds", () => {
  const s1 = sidecar("s1", { startupProbe: { exec: { command: ["true"] } } });
  const i2: V1Container = { name: "i2", image: "x" };
  const p = pod({ initContainers: [s1, i2] });
  const up = ctr(s1);
  const st = status([sandbox()], [up]);
  const waiting = computePodActions(p, st, { startupSucceeded: () => false });
  assert.deepEqual(waiting.initContainersToStart, [], "not started yet: i2 waits");
  assert.deepEqual(waiting.containersToStart, []);
  const started = computePodActions(p, st, { startupSucceeded: (id) => id === up.id });
  assert.deepEqual(started.initContainersToStart, ["i2"]);
  // Without a prober nothing can ever succeed, so the probe holds nothing up.
  assert.deepEqual(computePodActions(p, st).initContainersToStart, ["i2"]);

  const failed = computePodActions(p, st, {
    startupSucceeded: () => false,
    probeFailure: () => "StartupProbe",
  });
  assert.deepEqual(failed.initContainersToStart, ["s1"], "a failed startup probe restarts it");
  assert.deepEqual(failed.containersToKill.get(up.id), {
    name: "s1",
    reason: "StartupProbe",
    message: "Init container s1 failed startup probe",
  });
});

Deno.test("computePodActions: an exited sidecar is restarted whatever the restart policy", () => {
  const s1 = sidecar("s1");
  const i2: V1Container = { name: "i2", image: "x" };
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  for (const restartPolicy of ["Always", "OnFailure", "Never"]) {
    const p = pod({ initContainers: [s1, i2], containers: [app], restartPolicy });
    for (const code of [0, 1]) {
      const what = `${restartPolicy}, exit ${code}`;
      const a = computePodActions(p, status([sandbox()], [exited(s1, code), ctr(app)]));
      assert.deepEqual(summary(a).init, ["s1"], what);
      assert.deepEqual(summary(a).start, [], what);
      assert.equal(a.killPod, false, what);
      // Before initialisation is over too: i2 keeps running meanwhile.
      const early = computePodActions(p, status([sandbox()], [exited(s1, code), ctr(i2)]));
      assert.deepEqual(early.initContainersToStart, ["s1"], what);
      assert.equal(early.killPod, false, what);
    }
  }
});

Deno.test("computePodActions: a sidecar whose record is gone after initialisation starts again", () => {
  const s1 = sidecar("s1");
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const p = pod({ initContainers: [{ name: "i1", image: "x" }, s1], containers: [app] });
  const a = computePodActions(p, status([sandbox()], [ctr(app)]));
  assert.deepEqual(a.initContainersToStart, ["s1"], "the regular init container does not rerun");
  assert.deepEqual(a.containersToStart, []);
});

Deno.test("computePodActions: a sidecar with a changed spec or failed liveness is replaced", () => {
  const s1 = sidecar("s1");
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const p = pod({ initContainers: [s1], containers: [app], restartPolicy: "Never" });
  const stale = ctr(s1, { hash: "old" });
  const changed = computePodActions(p, status([sandbox()], [stale, ctr(app)]));
  assert.deepEqual(changed.initContainersToStart, ["s1"]);
  assert.equal(
    changed.containersToKill.get(stale.id)?.message,
    "Init container s1 definition changed",
  );
  const live = ctr(s1);
  const dead = computePodActions(p, status([sandbox()], [live, ctr(app)]), {
    probeFailure: (id) => id === live.id ? "LivenessProbe" : undefined,
  });
  assert.deepEqual(dead.initContainersToStart, ["s1"]);
  assert.equal(dead.containersToKill.get(live.id)?.reason, "LivenessProbe");
});

Deno.test("computePodActions: finished app containers stop the pod; its sidecars are not restarted", () => {
  const s1 = sidecar("s1");
  const s2 = sidecar("s2");
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  for (
    const [restartPolicy, code] of [["Never", 0], ["Never", 1], ["OnFailure", 0]] as const
  ) {
    const what = `${restartPolicy}, exit ${code}`;
    const p = pod({ initContainers: [s1, s2], containers: [app], restartPolicy });
    const running = computePodActions(
      p,
      status([sandbox()], [ctr(s1), ctr(s2), exited(app, code)]),
    );
    assert.equal(running.killPod, true, what);
    assert.deepEqual(running.initContainersToStart, [], what);
    assert.deepEqual(running.containersToStart, [], what);
    // One sidecar had crashed meanwhile: still no restart.
    const crashed = computePodActions(
      p,
      status([sandbox()], [exited(s1, 1), ctr(s2), exited(app, code)]),
    );
    assert.equal(crashed.killPod, true, what);
    assert.deepEqual(crashed.initContainersToStart, [], what);
  }
  // Under Always the app container comes back and the sidecars keep running.
  const always = pod({ initContainers: [s1, s2], containers: [app] });
  const a = computePodActions(always, status([sandbox()], [ctr(s1), ctr(s2), exited(app, 0)]));
  assert.equal(a.killPod, false);
  assert.deepEqual(a.containersToStart, ["app"]);
});

Deno.test("computePodActions: a finished pod whose sidecars were killed gets no new sandbox", () => {
  const i1: V1Container = { name: "i1", image: "x" };
  const s2 = sidecar("s2");
  const app: V1Container = { name: "app", image: "busybox:1.36" };
  const p = pod({ initContainers: [i1, s2], containers: [app], restartPolicy: "OnFailure" });
  const dead = [sandbox({ state: "notready" })];
  // The sidecar died of SIGKILL (137): that is no failed initialisation to run again.
  const a = computePodActions(p, status(dead, [exited(i1, 0), exited(s2, 137), exited(app, 0)]));
  assert.equal(a.createSandbox, false);
  assert.deepEqual(a.initContainersToStart, []);
  // A failed app container does bring the whole pod back, initialisation included.
  const again = computePodActions(
    p,
    status(dead, [exited(i1, 0), exited(s2, 137), exited(app, 1)]),
  );
  assert.equal(again.createSandbox, true);
  assert.deepEqual(again.initContainersToStart, ["i1"]);
});

Deno.test("computePodActions: a container's own restart policy and exit-code rules come first", () => {
  const rules = [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }];
  const cases: [string, Partial<V1Container>, string, number, boolean][] = [
    ["own Never under Always", { restartPolicy: "Never" }, "Always", 1, false],
    ["own OnFailure under Never, failed", { restartPolicy: "OnFailure" }, "Never", 2, true],
    ["own OnFailure under Never, succeeded", { restartPolicy: "OnFailure" }, "Never", 0, false],
    ["own Always under Never", { restartPolicy: "Always" }, "Never", 0, true],
    ["rule matches 42", { restartPolicy: "Never", restartPolicyRules: rules }, "Never", 42, true],
    [
      "rule does not match 1",
      { restartPolicy: "Never", restartPolicyRules: rules },
      "Always",
      1,
      false,
    ],
  ];
  for (const [name, own, podPolicy, code, restart] of cases) {
    const app = { name: "app", image: "busybox:1.36", ...own } as V1Container;
    const a = computePodActions(
      pod({ containers: [app], restartPolicy: podPolicy }),
      status([sandbox()], [exited(app, code)]),
    );
    assert.deepEqual(a.containersToStart, restart ? ["app"] : [], name);
  }
});

Deno.test("computePodActions: a failed init container with its own OnFailure retries under Never", () => {
  const init = { name: "init", image: "x", restartPolicy: "OnFailure" } as V1Container;
  const app: V1Container = { name: "app", image: "x" };
  const a = computePodActions(
    pod({ initContainers: [init], containers: [app], restartPolicy: "Never" }),
    status([sandbox()], [exited(init, 1)]),
  );
  assert.equal(a.killPod, false);
  assert.deepEqual(a.initContainersToStart, ["init"]);
});
