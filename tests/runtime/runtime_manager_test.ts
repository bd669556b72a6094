import { fakeRuntimeManager } from "./_fake_manager.ts";
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import type { RuntimeManager } from "../../src/runtime/mod.ts";
import { ANNOTATION_POD_TERMINATION_GRACE_PERIOD } from "../../src/runtime/_labels.ts";
import type { VolumeManager } from "../../src/volumes/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { DenoletError, RuntimeUnavailableError } from "../../src/util/errors.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import type { EventRecorder } from "../../src/events/mod.ts";

const S = 1000;

interface Env {
  clock: FakeClock;
  cri: FakeRuntime;
  rm: RuntimeManager;
  logsDir: string;
  volumeCalls: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

async function setup(
  opts: {
    rootDir?: string;
    startupSucceeded?: (id: string) => boolean;
    events?: EventRecorder;
  } = {},
): Promise<Env> {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-rm-" });
  const volumeCalls: string[] = [];
  const volumes = {
    setUpPod: (pod: V1Pod) => {
      volumeCalls.push(`setUp ${pod.metadata?.uid}`);
      return Promise.resolve(new Map());
    },
    tearDownPod: (uid: string) => {
      volumeCalls.push(`tearDown ${uid}`);
      return Promise.resolve();
    },
  } as unknown as VolumeManager;
  const rm = fakeRuntimeManager({ cri, clock, logsDir, hostDNSServers: ["192.0.2.53"] }, {
    volumes,
    rootDir: opts.rootDir,
    startupSucceeded: opts.startupSucceeded,
    events: opts.events,
  });
  return {
    clock,
    cri,
    rm,
    logsDir,
    volumeCalls,
    async [Symbol.asyncDispose]() {
      await Deno.remove(logsDir, { recursive: true });
    },
  };
}

function makePod(spec: Partial<NonNullable<V1Pod["spec"]>> = {}, uid = "uid-1"): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid },
    spec: {
      nodeName: "node1",
      containers: [{ name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" }],
      ...spec,
    },
  };
}

async function sync(env: Env, pod: V1Pod) {
  const m = pod.metadata!;
  const status = await env.rm.getPodStatus(m.uid!, m.name!, m.namespace!);
  return await env.rm.syncPod(pod, status, {});
}

/** Mutating CRI calls since `from` (reads are free to happen). */
function writes(cri: FakeRuntime, from = 0): string[] {
  const reads = new Set([
    "listPodSandbox",
    "listContainers",
    "podSandboxStatus",
    "containerStatus",
    "imageStatus",
  ]);
  return cri.calls.slice(from).map((c) => c.method).filter((m) => !reads.has(m));
}

function running(cri: FakeRuntime, name: string) {
  return [...cri.containers.values()].filter((c) =>
    c.status.metadata.name === name && c.status.state === "CONTAINER_RUNNING"
  );
}

Deno.test("syncPod: first start creates the sandbox, runs init containers in order, then apps", async () => {
  await using env = await setup();
  const { cri } = env;
  const pod = makePod({
    initContainers: [{ name: "i1", image: "busybox:1.36" }, { name: "i2", image: "busybox:1.36" }],
    containers: [{ name: "a", image: "busybox:1.36" }, { name: "b", image: "nginx:1.25" }],
  });

  assert.deepEqual((await sync(env, pod)).errors, []);
  const [config] = cri.callsTo("runPodSandbox")[0] as [
    { metadata: { attempt: number }; logDirectory: string },
  ];
  assert.equal(config.metadata.attempt, 0);
  assert.equal(config.logDirectory, `${env.logsDir}/default_web_uid-1`);
  assert.equal((await Deno.stat(config.logDirectory)).isDirectory, true);
  assert.equal(running(cri, "i1").length, 1);
  assert.equal(cri.callsTo("createContainer").length, 1, "only the first init container");
  assert.deepEqual(env.volumeCalls, ["setUp uid-1"]);

  // i1 still running: nothing to do.
  let mark = cri.calls.length;
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.deepEqual(writes(cri, mark), []);

  cri.exitContainer(running(cri, "i1")[0].status.id, 0);
  await sync(env, pod);
  assert.equal(running(cri, "i2").length, 1);
  cri.exitContainer(running(cri, "i2")[0].status.id, 0);
  await sync(env, pod);
  assert.equal(running(cri, "a").length, 1);
  assert.equal(running(cri, "b").length, 1);
  assert.equal(cri.callsTo("runPodSandbox").length, 1);

  // Steady state: no writes at all.
  mark = cri.calls.length;
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.deepEqual(writes(cri, mark), []);
});

Deno.test("syncPod: a sidecar starts before the next init container and keeps running beside the apps", async () => {
  await using env = await setup();
  const { cri } = env;
  const pod = makePod({
    restartPolicy: "Never",
    initContainers: [
      { name: "side", image: "busybox:1.36", restartPolicy: "Always" },
      { name: "init", image: "busybox:1.36" },
    ],
  });
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.equal(running(cri, "side").length, 1);
  assert.equal(cri.callsTo("createContainer").length, 1, "only the sidecar so far");

  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.equal(running(cri, "init").length, 1, "the sidecar runs, so the next one starts");
  assert.equal(running(cri, "app").length, 0);

  cri.exitContainer(running(cri, "init")[0].status.id, 0);
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.equal(running(cri, "app").length, 1, "app after the init containers");
  assert.equal(running(cri, "side").length, 1, "the sidecar keeps running");

  const mark = cri.calls.length;
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.deepEqual(writes(cri, mark), [], "steady state");
});

Deno.test("syncPod: a crashed sidecar restarts with back-off under restartPolicy Never", async () => {
  await using env = await setup();
  const { clock, cri } = env;
  const pod = makePod({
    restartPolicy: "Never",
    initContainers: [{ name: "side", image: "busybox:1.36", restartPolicy: "Always" }],
  });
  await sync(env, pod);
  await sync(env, pod);
  assert.equal(running(cri, "app").length, 1);

  cri.exitContainer(running(cri, "side")[0].status.id, 0);
  assert.deepEqual((await sync(env, pod)).errors, [], "first exit: back at once");
  assert.equal(running(cri, "side").length, 1);
  cri.exitContainer(running(cri, "side")[0].status.id, 1);
  assert.deepEqual((await sync(env, pod)).errors, [{
    container: "side",
    reason: "CrashLoopBackOff",
    message: "back-off 10s restarting failed container=side pod=web_default(uid-1)",
  }]);
  assert.equal(running(cri, "app").length, 1, "the app is left alone");
  await clock.advance(10 * S);
  assert.deepEqual((await sync(env, pod)).errors, []);
  const status = await env.rm.getPodStatus("uid-1", "web", "default");
  const side = status.containers.find((c) => c.name === "side");
  assert.equal(side?.state, "running");
  assert.equal(side?.restartCount, 2);
});

Deno.test("syncPod: when the app containers of a Never pod finish, the sidecars stop for good", async () => {
  await using env = await setup();
  const { cri } = env;
  const pod = makePod({
    restartPolicy: "Never",
    initContainers: [
      { name: "s1", image: "busybox:1.36", restartPolicy: "Always" },
      { name: "s2", image: "busybox:1.36", restartPolicy: "Always" },
    ],
  });
  for (let i = 0; i < 3; i++) await sync(env, pod);
  assert.equal(running(cri, "app").length, 1);
  cri.exitContainer(running(cri, "app")[0].status.id, 0);
  await sync(env, pod);
  assert.equal(running(cri, "s1").length + running(cri, "s2").length, 0, "sidecars stopped");
  const [sb] = [...cri.sandboxes.values()];
  assert.equal(sb.status.state, "SANDBOX_NOTREADY");
  const mark = cri.calls.length;
  await sync(env, pod);
  await sync(env, pod);
  // (The sandbox is stopped again each time, as upstream, until the pod is found terminal.)
  const started = writes(cri, mark).filter((m) => m !== "stopPodSandbox");
  assert.deepEqual(started, [], "nothing comes back");
});

Deno.test("syncPod: a new sandbox runs initialisation again, sidecars first", async () => {
  await using env = await setup();
  const { clock, cri } = env;
  const pod = makePod({
    initContainers: [{ name: "side", image: "busybox:1.36", restartPolicy: "Always" }],
  });
  await sync(env, pod);
  await sync(env, pod);
  const before = running(cri, "app");
  assert.equal(before.length, 1);
  await cri.stopPodSandbox(before[0].podSandboxId);

  await sync(env, pod);
  assert.equal(cri.callsTo("runPodSandbox").length, 2);
  const side = running(cri, "side");
  assert.equal(side.length, 1, "the sidecar comes back first");
  assert.notEqual(side[0].podSandboxId, before[0].podSandboxId);
  assert.equal(running(cri, "app").length, 0, "the app waits for it");
  const sides = [...cri.containers.values()].filter((c) => c.status.metadata.name === "side");
  assert.equal(sides.length, 1, "the old sidecar instance was purged");

  // The app's killed instance counts as a crash: it comes back after the back-off.
  await clock.advance(10 * S);
  await sync(env, pod);
  const app = running(cri, "app");
  assert.equal(app.length, 1);
  assert.equal(app[0].podSandboxId, side[0].podSandboxId);
});

Deno.test("syncPod: the init container after a sidecar waits for its startup probe", async () => {
  const started = new Set<string>();
  await using env = await setup({ startupSucceeded: (id) => started.has(id) });
  const { cri } = env;
  const pod = makePod({
    initContainers: [
      {
        name: "side",
        image: "busybox:1.36",
        restartPolicy: "Always",
        startupProbe: { exec: { command: ["true"] } },
      },
      { name: "init", image: "busybox:1.36" },
    ],
  });
  await sync(env, pod);
  const mark = cri.calls.length;
  await sync(env, pod);
  assert.deepEqual(writes(cri, mark), [], "not started yet: nothing else starts");
  started.add(running(cri, "side")[0].status.id);
  await sync(env, pod);
  assert.equal(running(cri, "init").length, 1);
});

Deno.test("syncPod: an existing running pod is adopted with no CRI writes", async () => {
  await using env = await setup();
  const pod = makePod();
  await sync(env, pod);
  // A fresh manager, as after an agent restart, sees the same runtime state.
  const second = fakeRuntimeManager({ cri: env.cri, clock: env.clock, logsDir: env.logsDir });
  const status = await second.getPodStatus("uid-1", "web", "default");
  assert.equal(status.containers[0].state, "running");
  const mark = env.cri.calls.length;
  assert.deepEqual((await second.syncPod(pod, status, {})).errors, []);
  assert.deepEqual(env.cri.calls.slice(mark), []);
});

Deno.test("syncPod: crash-loop back-off grows 10s, 20s, ... 5m0s and restart counts increase", async () => {
  await using env = await setup();
  const { clock, cri } = env;
  const pod = makePod();
  await sync(env, pod);
  const windows: [string, number][] = [
    ["10s", 10],
    ["20s", 20],
    ["40s", 40],
    ["1m20s", 80],
    ["2m40s", 160],
    ["5m0s", 300],
    ["5m0s", 300],
  ];
  // First exit: restarted at once (upstream starts the back-off with this restart).
  cri.exitContainer(running(cri, "app")[0].status.id, 1);
  await sync(env, pod);
  assert.equal(running(cri, "app").length, 1);
  let restarts = 1;
  for (const [window, seconds] of windows) {
    cri.exitContainer(running(cri, "app")[0].status.id, 1);
    const { errors } = await sync(env, pod);
    assert.deepEqual(errors, [{
      container: "app",
      reason: "CrashLoopBackOff",
      message: `back-off ${window} restarting failed container=app pod=web_default(uid-1)`,
    }]);
    const ms = seconds * S;
    await clock.advance(ms - 1);
    assert.equal(
      (await sync(env, pod)).errors[0]?.reason,
      "CrashLoopBackOff",
      `still in ${window}`,
    );
    await clock.advance(1);
    assert.deepEqual((await sync(env, pod)).errors, []);
    restarts++;
    const status = await env.rm.getPodStatus("uid-1", "web", "default");
    assert.equal(status.containers[0].state, "running");
    assert.equal(status.containers[0].restartCount, restarts);
  }
});

Deno.test("syncPod: the crash-loop back-off resets after the container ran 10 minutes", async () => {
  await using env = await setup();
  const { clock, cri } = env;
  const pod = makePod();
  await sync(env, pod);
  cri.exitContainer(running(cri, "app")[0].status.id, 1);
  await sync(env, pod);
  cri.exitContainer(running(cri, "app")[0].status.id, 1);
  assert.equal((await sync(env, pod)).errors[0].reason, "CrashLoopBackOff");
  await clock.advance(10 * S);
  await sync(env, pod);
  await clock.advance(601 * S);
  cri.exitContainer(running(cri, "app")[0].status.id, 1);
  assert.deepEqual((await sync(env, pod)).errors, [], "ran > 2 x max: restarted at once");
  cri.exitContainer(running(cri, "app")[0].status.id, 1);
  assert.match((await sync(env, pod)).errors[0].message, /^back-off 10s /);
});

Deno.test("syncPod: restart policies decide whether exited containers come back", async () => {
  for (
    const [policy, code, restarted] of [
      ["Always", 0, true],
      ["OnFailure", 0, false],
      ["OnFailure", 3, true],
      ["Never", 1, false],
    ] as const
  ) {
    await using env = await setup();
    const pod = makePod({ restartPolicy: policy });
    await sync(env, pod);
    env.cri.exitContainer(running(env.cri, "app")[0].status.id, code);
    await sync(env, pod);
    assert.equal(running(env.cri, "app").length, restarted ? 1 : 0, `${policy}/${code}`);
    const sandboxes = [...env.cri.sandboxes.values()];
    assert.equal(sandboxes.length, 1);
    // A pod with nothing left to run has its sandbox stopped.
    assert.equal(sandboxes[0].status.state, restarted ? "SANDBOX_READY" : "SANDBOX_NOTREADY");
  }
});

Deno.test("syncPod: image errors surface as ErrImagePull, ImagePullBackOff, ErrImageNeverPull", async () => {
  await using env = await setup();
  const { clock, cri } = env;
  cri.pullErrors.set("docker.io/library/nope:1", new DenoletError("manifest unknown"));
  const pod = makePod({ containers: [{ name: "app", image: "nope:1" }] });
  let r = await sync(env, pod);
  assert.equal(r.errors[0].reason, "ErrImagePull");
  assert.match(r.errors[0].message, /manifest unknown/);
  r = await sync(env, pod);
  assert.deepEqual(r.errors[0], {
    container: "app",
    reason: "ImagePullBackOff",
    // Upstream adds the failure the back-off follows.
    message: `Back-off pulling image "nope:1": ErrImagePull: manifest unknown`,
  });
  cri.pullErrors.clear();
  await clock.advance(10 * S);
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.equal(running(cri, "app").length, 1);

  const never = makePod(
    { containers: [{ name: "app", image: "missing:2", imagePullPolicy: "Never" }] },
    "uid-2",
  );
  r = await sync(env, never);
  assert.equal(r.errors[0].reason, "ErrImageNeverPull");
});

Deno.test("syncPod: a changed container spec kills and restarts the container", async () => {
  await using env = await setup();
  const { cri } = env;
  const pod = makePod({ terminationGracePeriodSeconds: 7 });
  await sync(env, pod);
  const oldId = running(cri, "app")[0].status.id;
  const changed = makePod({
    terminationGracePeriodSeconds: 7,
    containers: [{ name: "app", image: "busybox:1.36", args: ["sleep", "100"] }],
  });
  const mark = cri.calls.length;
  assert.deepEqual((await sync(env, changed)).errors, []);
  assert.deepEqual(writes(cri, mark), ["stopContainer", "createContainer", "startContainer"]);
  const stop = cri.callsTo("stopContainer")[0];
  assert.equal(stop[0], oldId);
  assert.equal(stop[1], 7);
  assert.equal(running(cri, "app").length, 1);
  const status = await env.rm.getPodStatus("uid-1", "web", "default");
  assert.equal(status.containers[0].restartCount, 1);
  assert.equal(cri.callsTo("runPodSandbox").length, 1, "same sandbox");
});

Deno.test("syncPod: a dead sandbox is replaced with attempt+1 and old instances pruned", async () => {
  await using env = await setup();
  const { cri } = env;
  const pod = makePod();
  await sync(env, pod);
  const firstSandbox = [...cri.sandboxes.keys()][0];
  await cri.stopPodSandbox(firstSandbox);
  assert.deepEqual((await sync(env, pod)).errors, []);
  const configs = cri.callsTo("runPodSandbox").map((a) =>
    (a[0] as { metadata: { attempt: number } }).metadata.attempt
  );
  assert.deepEqual(configs, [0, 1]);
  const app = running(cri, "app");
  assert.equal(app.length, 1);
  assert.notEqual(app[0].podSandboxId, firstSandbox);
  // The dead instance stays as lastState, so its sandbox stays too.
  assert.equal(cri.sandboxes.size, 2);

  // Another round: the first sandbox is no longer referenced by any kept container.
  await cri.stopPodSandbox(app[0].podSandboxId);
  // The killed instance counts as a crash: the new sandbox comes up, the start waits 10s.
  assert.equal((await sync(env, pod)).errors[0].reason, "CrashLoopBackOff");
  await env.clock.advance(10 * S);
  assert.deepEqual((await sync(env, pod)).errors, []);
  const attempts = [...cri.sandboxes.values()].map((s) => s.status.metadata.attempt).sort();
  assert.deepEqual(attempts, [1, 2]);
  const instances = [...cri.containers.values()].filter((c) => c.status.metadata.name === "app");
  assert.equal(instances.length, 2, "running one plus one dead one");
});

Deno.test("syncPod: step failures map to upstream reasons", async () => {
  await using env = await setup();
  const { cri } = env;
  const pod = makePod();
  cri.failNext("runPodSandbox", new DenoletError("CNI failed"));
  let r = await sync(env, pod);
  assert.equal(r.errors[0].reason, "CreatePodSandboxError");
  assert.equal(r.errors[0].container, undefined);
  assert.match(r.errors[0].message, /^Failed to create pod sandbox: .*CNI failed/);

  cri.failNext("createContainer", new DenoletError("no space"));
  r = await sync(env, pod);
  assert.deepEqual(r.errors.map((e) => e.reason), ["CreateContainerError"]);

  cri.failNext("startContainer", new DenoletError("exec format error"));
  r = await sync(env, pod);
  assert.deepEqual(r.errors.map((e) => e.reason), ["RunContainerError"]);

  r = await sync(env, pod);
  assert.deepEqual(r.errors, []);
  assert.equal(running(cri, "app").length, 1);
});

Deno.test("syncPod: a bad container spec is CreateContainerConfigError, others still start", async () => {
  await using env = await setup();
  const pod = makePod({
    containers: [
      {
        name: "bad",
        image: "busybox:1.36",
        env: [{ name: "X", valueFrom: { fieldRef: { fieldPath: "metadata.nope" } } }],
      },
      { name: "good", image: "busybox:1.36" },
    ],
  });
  const r = await sync(env, pod);
  assert.deepEqual(r.errors.map((e) => [e.container, e.reason]), [[
    "bad",
    "CreateContainerConfigError",
  ]]);
  assert.match(r.errors[0].message, /metadata\.nope/);
  assert.equal(running(env.cri, "good").length, 1);
});

Deno.test("syncPod: with a root dir, containers get the managed /etc/hosts", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "denolet-root-" });
  try {
    await using env = await setup({ rootDir });
    assert.deepEqual((await sync(env, makePod())).errors, []);
    const [c] = running(env.cri, "app");
    const hosts = c.config.mounts?.find((m) => m.containerPath === "/etc/hosts");
    assert.equal(hosts?.hostPath, `${rootDir}/pods/uid-1/etc-hosts`);
    assert.match(await Deno.readTextFile(hosts!.hostPath), /10\.85\.\d+\.\d+\s+web/);
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});

Deno.test("syncPod: app containers start concurrently and failures are per container", async () => {
  await using env = await setup();
  const { cri } = env;
  const pod = makePod({
    containers: [{ name: "a", image: "busybox:1.36" }, { name: "b", image: "busybox:1.36" }],
  });
  cri.failNext("startContainer", new DenoletError("boom"));
  const r = await sync(env, pod);
  assert.equal(r.errors.length, 1);
  assert.equal(r.errors[0].reason, "RunContainerError");
  assert.equal(running(cri, "a").length + running(cri, "b").length, 1);
});

Deno.test("syncPod: an unreachable runtime rejects instead of returning step errors", async () => {
  await using env = await setup();
  const pod = makePod();
  const status = await env.rm.getPodStatus("uid-1", "web", "default");
  env.cri.unavailable = true;
  await assert.rejects(env.rm.syncPod(pod, status, {}), RuntimeUnavailableError);
});

Deno.test("killPod: grace periods from the pod, the override, annotations, and the 2s minimum", async () => {
  await using env = await setup();
  const { cri, rm } = env;
  const pod = makePod({
    terminationGracePeriodSeconds: 5,
    containers: [{ name: "a", image: "busybox:1.36" }, { name: "b", image: "busybox:1.36" }],
  });
  await sync(env, pod);
  const [runningPod] = await rm.getPods({ all: false });
  await rm.killPod(pod, runningPod, {});
  const stops = cri.callsTo("stopContainer");
  assert.deepEqual(stops.map((s) => s[1]), [5, 5]);
  assert.equal((stops[0][2] as { timeoutMs: number }).timeoutMs, 5 * S + 120 * S);
  assert.deepEqual(cri.callsTo("stopPodSandbox").length, 1);
  assert.equal(running(cri, "a").length + running(cri, "b").length, 0);
  // Idempotent.
  await rm.killPod(pod, runningPod, {});

  await using env2 = await setup();
  await sync(env2, pod);
  const [rp2] = await env2.rm.getPods({ all: true });
  await env2.rm.killPod(pod, rp2, { gracePeriodSeconds: 0 });
  assert.deepEqual(env2.cri.callsTo("stopContainer").map((s) => s[1]), [2, 2]);

  // Orphan: no pod, the grace period comes from the container annotation.
  await using env3 = await setup();
  await sync(env3, pod);
  const [rp3] = await env3.rm.getPods({ all: true });
  const annotated = [...env3.cri.containers.values()][0].status.annotations;
  assert.equal(annotated[ANNOTATION_POD_TERMINATION_GRACE_PERIOD], "5");
  await env3.rm.killPod(undefined, rp3, {});
  assert.deepEqual(env3.cri.callsTo("stopContainer").map((s) => s[1]), [5, 5]);
});

Deno.test("killPod: a failing stop still stops the sandbox and then throws", async () => {
  await using env = await setup();
  const pod = makePod();
  await sync(env, pod);
  const [rp] = await env.rm.getPods({ all: true });
  env.cri.failNext("stopContainer", new DenoletError("stuck"));
  await assert.rejects(env.rm.killPod(pod, rp, {}), /Cannot kill pod "default\/web"/);
  assert.equal(env.cri.callsTo("stopPodSandbox").length, 1);
});

Deno.test("getPods groups by pod UID and ignores sandboxes that are not ours", async () => {
  await using env = await setup();
  const { cri, rm } = env;
  await sync(env, makePod({}, "uid-1"));
  await sync(env, makePod({}, "uid-2"));
  await cri.runPodSandbox({ metadata: { name: "x", uid: "u", namespace: "n", attempt: 0 } });
  const pods = await rm.getPods({ all: true });
  assert.deepEqual(pods.map((p) => p.uid).sort(), ["uid-1", "uid-2"]);
  for (const p of pods) {
    assert.equal(p.sandboxes.length, 1);
    assert.deepEqual(p.containers.map((c) => [c.name, c.state]), [["app", "running"]]);
  }
  assert.equal(cri.callsTo("listPodSandbox").length >= 1, true);

  await rm.killPod(pods[0].uid === "uid-1" ? makePod() : makePod({}, "uid-2"), pods[0], {});
  assert.equal((await rm.getPods({ all: false })).length, 1, "only pods with something running");
});

Deno.test("getPodStatus: IPs of the newest ready sandbox, times in ms, newest first", async () => {
  await using env = await setup();
  const { clock, cri, rm } = env;
  const pod = makePod();
  await sync(env, pod);
  await clock.advance(5 * S);
  cri.exitContainer(running(cri, "app")[0].status.id, 0);
  await sync(env, pod);
  const st = await rm.getPodStatus("uid-1", "web", "default");
  assert.equal(st.sandboxes.length, 1);
  assert.match(st.ips[0], /^10\.85\./);
  assert.deepEqual(st.containers.map((c) => c.state), ["running", "exited"]);
  assert.equal(st.containers[1].finishedAt, clock.now());
  assert.equal(st.containers[1].exitCode, 0);
  assert.equal(st.containers[1].reason, "Completed");
  assert.equal(st.timestamp, clock.now());
  const unknown = await rm.getPodStatus("nope", "x", "y");
  assert.deepEqual([unknown.sandboxes, unknown.containers, unknown.ips], [[], [], []]);
});

Deno.test("removePod removes containers, sandboxes, volumes and the log directory", async () => {
  await using env = await setup();
  const { cri, rm } = env;
  const pod = makePod();
  await sync(env, pod);
  const [rp] = await rm.getPods({ all: true });
  await rm.killPod(pod, rp, {});
  await rm.removePod(rp);
  assert.equal(cri.containers.size, 0);
  assert.equal(cri.sandboxes.size, 0);
  assert.deepEqual(env.volumeCalls, ["setUp uid-1", "tearDown uid-1"]);
  await assert.rejects(Deno.stat(`${env.logsDir}/default_web_uid-1`), Deno.errors.NotFound);
  await rm.removePod(rp); // idempotent
});

Deno.test("forgetPod clears the crash-loop back-off of a deleted pod", async () => {
  await using env = await setup();
  const { cri, rm } = env;
  const pod = makePod();
  await sync(env, pod);
  cri.exitContainer(running(cri, "app")[0].status.id, 1);
  await sync(env, pod);
  cri.exitContainer(running(cri, "app")[0].status.id, 1);
  assert.equal((await sync(env, pod)).errors[0].reason, "CrashLoopBackOff");
  rm.forgetPod("uid-1");
  assert.equal(rm.crashBackoff.size, 0);
  assert.deepEqual((await sync(env, pod)).errors, []);
});

Deno.test("runtime manager records upstream's events: pull, create, start, back-off, kill, errors", async () => {
  const events: string[] = [];
  const recorder: EventRecorder = {
    event: (ref, type, reason, message) =>
      events.push(`${ref.fieldPath ?? ref.kind} ${type} ${reason}: ${message}`),
  };
  await using env = await setup({ events: recorder });
  env.cri.addImage("busybox:1.36");
  const pod = makePod();
  await sync(env, pod);
  assert.deepEqual(events, [
    'spec.containers{app} Normal Pulled: Container image "busybox:1.36" already present on machine',
    "spec.containers{app} Normal Created: Created container: app",
    "spec.containers{app} Normal Started: Started container app",
  ]);
  // Exits twice: the second restart waits out its back-off.
  events.length = 0;
  for (let i = 0; i < 2; i++) {
    env.cri.exitContainer(running(env.cri, "app")[0].status.id, 1);
    await env.clock.advance(1000);
    await sync(env, pod);
  }
  assert.ok(
    events.includes(
      "spec.containers{app} Warning BackOff: Back-off restarting failed container app in pod web_default(uid-1)",
    ),
    events.join("\n"),
  );
  // A missing image under Never and a pod kill.
  events.length = 0;
  const never = makePod({
    containers: [{ name: "app", image: "busybox:9.9", imagePullPolicy: "Never" }],
  }, "uid-2");
  await sync(env, never);
  assert.deepEqual(events, [
    'spec.containers{app} Warning ErrImageNeverPull: Container image "busybox:9.9" is not present with pull policy of Never',
    "spec.containers{app} Warning Failed: Error: ErrImageNeverPull",
  ]);
  const live = makePod({}, "uid-3");
  await sync(env, live);
  events.length = 0;
  const m = live.metadata!;
  const st = await env.rm.getPodStatus(m.uid!, m.name!, m.namespace!);
  await env.rm.killPod(live, {
    uid: st.uid,
    name: st.name,
    namespace: st.namespace,
    sandboxes: st.sandboxes.map((s) => ({ id: s.id, state: s.state, createdAt: 0 })),
    containers: st.containers.map((c) => ({
      id: c.id,
      name: c.name,
      sandboxId: "",
      state: c.state,
      createdAt: 0,
    })),
  }, {});
  assert.ok(events.length > 0, "a Killing event");
  assert.ok(
    events.every((e) => e.includes("Normal Killing: Stopping container app")),
    events.join("\n"),
  );
});

Deno.test("getPods: an item the CRI client hands back unchanged keeps its entry (issue 14)", async () => {
  await using env = await setup();
  await sync(env, makePod());
  // The real client returns the same frozen object for a sandbox or container that did not
  // change between two lists; the fake makes fresh ones, so repeat its first answer.
  const listC = env.cri.listContainers.bind(env.cri);
  const listS = env.cri.listPodSandbox.bind(env.cri);
  let containers: Awaited<ReturnType<typeof listC>> | undefined;
  let sandboxes: Awaited<ReturnType<typeof listS>> | undefined;
  env.cri.listContainers = async (
    f,
    o,
  ) => (containers ??= (await listC(f, o)).map((c) => Object.freeze(c)));
  env.cri.listPodSandbox = async (
    f,
    o,
  ) => (sandboxes ??= (await listS(f, o)).map((s) => Object.freeze(s)));
  const [a] = await env.rm.getPods({ all: true });
  const [b] = await env.rm.getPods({ all: true });
  assert.notEqual(b, a);
  assert.equal(b.containers[0], a.containers[0]);
  assert.equal(b.sandboxes[0], a.sandboxes[0]);
  assert.ok(Object.isFrozen(b.containers[0]), "shared entries cannot be changed by a reader");
  assert.deepEqual(b.containers.map((c) => [c.name, c.state]), [["app", "running"]]);
});

Deno.test("syncPod: sandboxes are created a few at a time, in the order the pods came (issue 14)", async () => {
  await using env = await setup();
  const run = env.cri.runPodSandbox.bind(env.cri);
  let inFlight = 0;
  let most = 0;
  const order: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  env.cri.runPodSandbox = async (config, handler, o) => {
    order.push(config.metadata.uid);
    most = Math.max(most, ++inFlight);
    await released;
    try {
      return await run(config, handler, o);
    } finally {
      inFlight--;
    }
  };
  const uids = Array.from({ length: 10 }, (_, i) => `uid-${i}`);
  const syncs: Promise<unknown>[] = [];
  for (const uid of uids) {
    syncs.push(sync(env, makePod({}, uid)));
    // Each pod's sync reaches the gate before the next one is written (its log directory is
    // made first: real I/O, so wait for the gate to see it).
    const before = env.rm.sandboxGate.state;
    for (let i = 0; i < 100_000; i++) {
      const now = env.rm.sandboxGate.state;
      if (now.running + now.waiting > before.running + before.waiting) break;
      await new Promise<void>((r) => queueMicrotask(r));
      if (i % 100 === 99) await Deno.stat(env.logsDir);
    }
  }
  assert.deepEqual(env.rm.sandboxGate.state, { running: 4, waiting: 6 });
  release();
  await Promise.all(syncs);
  assert.equal(most, 4);
  assert.deepEqual(order, uids);
  assert.deepEqual(env.rm.sandboxGate.state, { running: 0, waiting: 0 });
});

// ---- termination messages ----------------------------------------------------------------

/** Starts `pod` with a kubelet root dir; `fn` gets the env and the app container's host files. */
async function withExitedApp(
  pod: V1Pod,
  fn: (
    env: Env,
    app: { id: string; messageFile: string; logPath: string },
  ) => Promise<void>,
): Promise<void> {
  const rootDir = await Deno.makeTempDir({ prefix: "denolet-root-" });
  try {
    await using env = await setup({ rootDir });
    assert.deepEqual((await sync(env, pod)).errors, []);
    const [c] = running(env.cri, "app");
    const path = pod.spec!.containers[0].terminationMessagePath ?? "/dev/termination-log";
    const mount = c.config.mounts?.find((m) => m.containerPath === path);
    assert.ok(mount, "termination-log mount present");
    await Deno.mkdir(c.status.logPath.replace(/\/[^/]*$/, ""), { recursive: true });
    await fn(env, { id: c.status.id, messageFile: mount.hostPath, logPath: c.status.logPath });
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
}

async function appStatus(env: Env) {
  const status = await env.rm.getPodStatus("uid-1", "web", "default");
  return status.containers.find((x) => x.name === "app")!;
}

/** CRI log records as containerd writes them. */
const criLog = (...records: string[]) =>
  records.map((r) => `2026-01-01T10:00:00.000000000Z stdout ${r}\n`).join("");

Deno.test("termination message: the file the container wrote is read back into its status", async () => {
  await withExitedApp(makePod(), async (env, app) => {
    await Deno.writeTextFile(app.messageFile, "disk full");
    env.cri.exitContainer(app.id, 1);
    const exited = await appStatus(env);
    assert.equal(exited.state, "exited");
    assert.equal(exited.message, "disk full");
    // Read once: a later change to the file (or its removal) does not show.
    await Deno.remove(app.messageFile);
    assert.equal((await appStatus(env)).message, "disk full");
  });
});

Deno.test("termination message: at most the last 4096 bytes, after the runtime's message", async () => {
  await withExitedApp(makePod(), async (env, app) => {
    await Deno.writeTextFile(app.messageFile, "x".repeat(5000) + "END");
    env.cri.exitContainer(app.id, 137, { reason: "OOMKilled", message: "oom" });
    const message = (await appStatus(env)).message!;
    assert.equal(message.length, "oom: ".length + 4096);
    assert.ok(message.startsWith("oom: xxx") && message.endsWith("xEND"), message.slice(0, 10));
  });
});

Deno.test("termination message: FallbackToLogsOnError takes the log's tail after a failure", async () => {
  const pod = makePod({
    containers: [{
      name: "app",
      image: "busybox:1.36",
      imagePullPolicy: "IfNotPresent",
      terminationMessagePolicy: "FallbackToLogsOnError",
    }],
  });
  await withExitedApp(pod, async (env, app) => {
    // Long records first, so the tail is found across several reads from the end.
    const early = Array.from({ length: 300 }, () => `F ${"-".repeat(200)}`);
    const lines = Array.from({ length: 100 }, (_, i) => `F line ${i}`);
    await Deno.writeTextFile(app.logPath, criLog(...early, ...lines, "P partial ", "F end"));
    env.cri.exitContainer(app.id, 2);
    const message = (await appStatus(env)).message!;
    const want = Array.from({ length: 78 }, (_, i) => `line ${i + 22}\n`).join("") +
      "partial end\n";
    assert.equal(message, want);
  });
});

Deno.test("termination message: the log fallback keeps 2048 bytes and needs a failure and an empty file", async () => {
  const pod = makePod({
    containers: [{
      name: "app",
      image: "busybox:1.36",
      imagePullPolicy: "IfNotPresent",
      terminationMessagePolicy: "FallbackToLogsOnError",
    }],
  });
  await withExitedApp(pod, async (env, app) => {
    await Deno.writeTextFile(app.logPath, criLog(`F ${"a".repeat(3000)}`, "F bye"));
    env.cri.exitContainer(app.id, 1);
    const message = (await appStatus(env)).message!;
    assert.equal(message.length, 2048);
    assert.ok(message.endsWith("a\nbye\n"));
  });
  await withExitedApp(pod, async (env, app) => {
    await Deno.writeTextFile(app.logPath, criLog("F all good"));
    env.cri.exitContainer(app.id, 0);
    assert.equal((await appStatus(env)).message, undefined);
  });
  await withExitedApp(pod, async (env, app) => {
    await Deno.writeTextFile(app.logPath, criLog("F from the log"));
    await Deno.writeTextFile(app.messageFile, "from the file");
    env.cri.exitContainer(app.id, 1);
    assert.equal((await appStatus(env)).message, "from the file");
  });
});

Deno.test("termination message: the default File policy never reads the log", async () => {
  await withExitedApp(makePod(), async (env, app) => {
    await Deno.writeTextFile(app.logPath, criLog("F oops"));
    env.cri.exitContainer(app.id, 1);
    assert.equal((await appStatus(env)).message, undefined);
  });
});
