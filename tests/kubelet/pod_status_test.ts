import { deepStrictEqual as assertEquals } from "node:assert/strict";
import type {
  V1ContainerStatus,
  V1Pod,
  V1PodCondition,
  V1PodSpec,
  V1PodStatus,
} from "@kubernetes/client-node";
import { computePodStatus, getPhase, qosClass } from "../../src/kubelet/_pod_status.ts";
import type { PodStatusOptions } from "../../src/kubelet/_pod_status.ts";
import type { RuntimeContainerStatus, RuntimePodStatus } from "../../src/runtime/types.ts";

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const sec = (n: number) => T0 + n * 1000;
const date = (n: number) => new Date(sec(n));

function mkPod(spec: Partial<V1PodSpec>, extra: Partial<V1Pod> = {}): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "u1", ...extra.metadata },
    spec: { containers: [{ name: "app", image: "busybox" }], ...spec },
    status: extra.status,
  };
}

function ctr(
  name: string,
  state: RuntimeContainerStatus["state"],
  extra: Partial<RuntimeContainerStatus> = {},
): RuntimeContainerStatus {
  return {
    id: `${name}-${extra.restartCount ?? 0}`,
    name,
    sandboxId: "sb1",
    state,
    createdAt: sec(1 + (extra.restartCount ?? 0)),
    startedAt: state === "created" ? undefined : sec(2 + (extra.restartCount ?? 0)) + 400,
    finishedAt: state === "exited" ? sec(3 + (extra.restartCount ?? 0)) : undefined,
    exitCode: state === "exited" ? 0 : undefined,
    image: "busybox",
    imageRef: "sha256:beef",
    restartCount: 0,
    hash: "h",
    ...extra,
  };
}

function mkRs(
  containers: RuntimeContainerStatus[],
  opts: { sandbox?: "ready" | "notready" | "none"; ips?: string[]; hostNetwork?: boolean } = {},
): RuntimePodStatus {
  const ips = opts.ips ?? (opts.hostNetwork ? [] : ["10.88.0.7"]);
  const sandbox = opts.sandbox ?? "ready";
  return {
    uid: "u1",
    name: "web",
    namespace: "default",
    sandboxes: sandbox === "none" ? [] : [{
      id: "sb1",
      state: sandbox,
      createdAt: sec(0),
      attempt: 0,
      ips,
      hostNetwork: opts.hostNetwork ?? false,
    }],
    containers,
    ips: sandbox === "none" ? [] : ips,
    timestamp: sec(5),
  };
}

function compute(
  pod: V1Pod,
  rs: RuntimePodStatus,
  opts: Partial<PodStatusOptions> = {},
): V1PodStatus {
  return computePodStatus(pod, rs, {
    reasons: new Map(),
    now: sec(10) + 700,
    hostIP: "192.168.1.10",
    ...opts,
  });
}

function cond(s: V1PodStatus, type: string): Omit<V1PodCondition, "lastTransitionTime"> {
  const c = s.conditions?.find((x) => x.type === type);
  if (!c) throw new Error(`no ${type} condition`);
  const { lastTransitionTime: _, ...rest } = c;
  return rest;
}

function cs(s: V1PodStatus, name: string): V1ContainerStatus {
  const all = [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])];
  const found = all.find((c) => c.name === name);
  if (!found) throw new Error(`no status for ${name}`);
  return found;
}

// ---- getPhase ---------------------------------------------------------------------------

const running = (name: string, started = true): V1ContainerStatus => ({
  name,
  image: "i",
  imageID: "",
  ready: false,
  restartCount: 0,
  started,
  state: { running: {} },
});
const exited = (name: string, exitCode: number): V1ContainerStatus => ({
  name,
  image: "i",
  imageID: "",
  ready: false,
  restartCount: 0,
  state: { terminated: { exitCode } },
});
const waiting = (name: string, lastExit?: number): V1ContainerStatus => ({
  name,
  image: "i",
  imageID: "",
  ready: false,
  restartCount: 0,
  state: { waiting: { reason: "x" } },
  lastState: lastExit === undefined ? undefined : { terminated: { exitCode: lastExit } },
});

const RESTART_ON_42 = [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }];

Deno.test("getPhase follows upstream's rules", () => {
  const two = { containers: [{ name: "a" }, { name: "b" }] };
  const init = { initContainers: [{ name: "i" }], containers: [{ name: "a" }] };
  const sidecar = {
    initContainers: [{ name: "s", restartPolicy: "Always" }],
    containers: [{ name: "a" }],
  };
  const table: [string, Partial<V1PodSpec>, V1ContainerStatus[], string, boolean?, boolean?][] = [
    ["no statuses yet", two, [], "Pending"],
    ["all running", two, [running("a"), running("b")], "Running"],
    ["one still waiting", two, [running("a"), waiting("b")], "Pending"],
    ["one status unknown", two, [running("a")], "Pending"],
    [
      "Always, all exited",
      { ...two, restartPolicy: "Always" },
      [exited("a", 0), exited("b", 1)],
      "Running",
    ],
    ["OnFailure, all succeeded", { ...two, restartPolicy: "OnFailure" }, [
      exited("a", 0),
      exited("b", 0),
    ], "Succeeded"],
    ["OnFailure, one failed", { ...two, restartPolicy: "OnFailure" }, [
      exited("a", 0),
      exited("b", 1),
    ], "Running"],
    [
      "Never, one failed",
      { ...two, restartPolicy: "Never" },
      [exited("a", 0), exited("b", 1)],
      "Failed",
    ],
    [
      "Never, all succeeded",
      { ...two, restartPolicy: "Never" },
      [exited("a", 0), exited("b", 0)],
      "Succeeded",
    ],
    ["Never, one running one failed", { ...two, restartPolicy: "Never" }, [
      running("a"),
      exited("b", 1),
    ], "Running"],
    ["crash looping counts as stopped", two, [running("a"), waiting("b", 1)], "Running"],
    ["all crash looping, Always", two, [waiting("a", 1), waiting("b", 1)], "Running"],
    ["init running", init, [running("i"), waiting("a")], "Pending"],
    ["init not started", init, [waiting("i"), waiting("a")], "Pending"],
    [
      "init failed, Never",
      { ...init, restartPolicy: "Never" },
      [exited("i", 1), waiting("a")],
      "Failed",
    ],
    ["init failed and restarting, Always", init, [waiting("i", 1), waiting("a")], "Pending"],
    ["init done, app running", init, [exited("i", 0), running("a")], "Running"],
    ["terminal, all succeeded", two, [exited("a", 0), exited("b", 0)], "Succeeded", true],
    ["terminal, one failed", two, [exited("a", 0), exited("b", 137)], "Failed", true],
    [
      "terminal static pod keeps the policy rule",
      two,
      [exited("a", 0), exited("b", 1)],
      "Running",
      true,
      true,
    ],
    ["sidecar started, app running", sidecar, [running("s"), running("a")], "Running"],
    ["sidecar not started yet", sidecar, [running("s", false), waiting("a")], "Pending"],
    ["sidecar restarting after app ran", sidecar, [waiting("s"), running("a")], "Pending"],
    ["sidecar crash looping after app ran", sidecar, [waiting("s", 1), running("a")], "Running"],
    ["sidecar stopped, app succeeded", { ...sidecar, restartPolicy: "Never" }, [
      exited("s", 137),
      exited("a", 0),
    ], "Succeeded"],

    // ContainerRestartRules: a container's own policy and exit-code rules come first.
    [
      "own Never under a pod's Always, it failed",
      {
        containers: [{ name: "a", restartPolicy: "Never" }],
        restartPolicy: "Always",
      },
      [exited("a", 1)],
      "Failed",
    ],
    [
      "own OnFailure under a pod's Never, it failed",
      {
        containers: [{ name: "a", restartPolicy: "OnFailure" }],
        restartPolicy: "Never",
      },
      [exited("a", 3)],
      "Running",
    ],
    [
      "a Restart rule on exit 42, exited 42",
      {
        containers: [{ name: "a", restartPolicy: "Never", restartPolicyRules: RESTART_ON_42 }],
      },
      [exited("a", 42)],
      "Running",
    ],
    [
      "a Restart rule on exit 42, exited 1",
      {
        containers: [{ name: "a", restartPolicy: "Never", restartPolicyRules: RESTART_ON_42 }],
      },
      [waiting("a", 1)],
      "Failed",
    ],
    [
      "an init container retried by its own policy under Never",
      {
        initContainers: [{ name: "i", restartPolicy: "OnFailure" }],
        containers: [{ name: "a" }],
        restartPolicy: "Never",
      },
      [exited("i", 1), waiting("a")],
      "Pending",
    ],
  ];
  for (const [name, spec, statuses, want, terminal, isStatic] of table) {
    const annotations = isStatic ? { "kubernetes.io/config.source": "file" } : undefined;
    const pod = mkPod(spec, { metadata: { annotations } });
    // Here an app container that ran counts as having run in the current sandbox.
    const podHasInitialized = statuses.some((s) =>
      s.name === "a" && (s.state?.running || s.state?.terminated)
    );
    assertEquals(getPhase(pod, statuses, { terminal, podHasInitialized }), want, name);
  }
});

// ---- qosClass -----------------------------------------------------------------------------

Deno.test("qosClass is Guaranteed, Burstable or BestEffort as upstream computes it", () => {
  const res = (requests?: Record<string, string>, limits?: Record<string, string>) => ({
    name: "c",
    resources: { requests, limits },
  });
  const table: [string, V1PodSpec["containers"], V1PodSpec["initContainers"], string][] = [
    ["nothing set", [{ name: "c" }], undefined, "BestEffort"],
    ["zero requests", [res({ cpu: "0" })], undefined, "BestEffort"],
    [
      "equal limits and requests",
      [res({ cpu: "100m", memory: "64Mi" }, { cpu: "0.1", memory: "67108864" })],
      undefined,
      "Guaranteed",
    ],
    [
      "limits only (requests default to limits)",
      [res(undefined, { cpu: "1", memory: "1Gi" })],
      undefined,
      "Guaranteed",
    ],
    [
      "requests below limits",
      [res({ cpu: "100m", memory: "64Mi" }, { cpu: "200m", memory: "64Mi" })],
      undefined,
      "Burstable",
    ],
    ["memory limit missing", [res({ cpu: "1" }, { cpu: "1" })], undefined, "Burstable"],
    ["requests only", [res({ memory: "1G" })], undefined, "Burstable"],
    [
      "one container without resources",
      [res(undefined, { cpu: "1", memory: "1Gi" }), { name: "d" }],
      undefined,
      "Burstable",
    ],
    ["init container counts too", [res(undefined, { cpu: "1", memory: "1Gi" })], [{
      name: "i",
      resources: { requests: { cpu: "1" } },
    }], "Burstable"],
    [
      "extended resources are ignored",
      [res({ "nvidia.com/gpu": "1" }, { "nvidia.com/gpu": "1" })],
      undefined,
      "BestEffort",
    ],
  ];
  for (const [name, containers, initContainers, want] of table) {
    assertEquals(qosClass(mkPod({ containers, initContainers })), want, name);
  }
});

// ---- computePodStatus -------------------------------------------------------------------

Deno.test("a pod with nothing in the runtime is Pending with ContainerCreating", () => {
  const s = compute(mkPod({}), mkRs([], { sandbox: "none" }));
  assertEquals(s.phase, "Pending");
  assertEquals(cs(s, "app"), {
    name: "app",
    image: "busybox",
    imageID: "",
    ready: false,
    restartCount: 0,
    started: false,
    state: { waiting: { reason: "ContainerCreating" } },
  });
  assertEquals(cond(s, "PodReadyToStartContainers"), {
    type: "PodReadyToStartContainers",
    status: "False",
  });
  assertEquals(cond(s, "Initialized"), { type: "Initialized", status: "True" });
  const notReady = {
    status: "False",
    reason: "ContainersNotReady",
    message: "containers with unready status: [app]",
  };
  assertEquals(cond(s, "Ready"), { type: "Ready", ...notReady });
  assertEquals(cond(s, "ContainersReady"), { type: "ContainersReady", ...notReady });
  assertEquals(cond(s, "PodScheduled"), { type: "PodScheduled", status: "True" });
  assertEquals(s.conditions?.map((c) => c.type), [
    "PodReadyToStartContainers",
    "Initialized",
    "Ready",
    "ContainersReady",
    "PodScheduled",
  ]);
  assertEquals(s.startTime, date(10));
  assertEquals([s.hostIP, s.hostIPs, s.podIP, s.qosClass], [
    "192.168.1.10",
    [{ ip: "192.168.1.10" }],
    undefined,
    "BestEffort",
  ]);
});

Deno.test("a running container is ready and started, with runtime-prefixed id and whole-second times", () => {
  const s = compute(mkPod({}), mkRs([ctr("app", "running")]));
  assertEquals(s.phase, "Running");
  assertEquals(cs(s, "app"), {
    name: "app",
    image: "busybox",
    imageID: "sha256:beef",
    containerID: "containerd://app-0",
    ready: true,
    started: true,
    restartCount: 0,
    state: { running: { startedAt: date(2) } },
    // In-place resize (GA): a container the runtime has shows its resources, here none.
    resources: {},
  });
  assertEquals(
    JSON.stringify(cs(s, "app").state?.running?.startedAt),
    '"2026-01-01T10:00:02.000Z"',
  );
  for (const t of ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"]) {
    assertEquals(cond(s, t), { type: t, status: "True" });
  }
  assertEquals([s.podIP, s.podIPs], ["10.88.0.7", [{ ip: "10.88.0.7" }]]);
  assertEquals(
    compute(mkPod({}), mkRs([ctr("app", "running")]), { runtimeName: "cri-o" })
      .containerStatuses?.[0].containerID,
    "cri-o://app-0",
  );
});

Deno.test("readiness and startup probes gate ready and started", () => {
  const probe = { exec: { command: ["true"] } };
  const pod = mkPod({ containers: [{ name: "app", image: "busybox", readinessProbe: probe }] });
  const rs = mkRs([ctr("app", "running")]);
  assertEquals(cs(compute(pod, rs), "app").ready, false, "no result yet: not ready");
  const ready = compute(pod, rs, { readiness: new Map([["app", true]]) });
  assertEquals(cs(ready, "app").ready, true);
  assertEquals(cond(ready, "Ready").status, "True");
  assertEquals(cs(compute(pod, rs, { readiness: new Map([["app", false]]) }), "app").ready, false);

  const slow = mkPod({ containers: [{ name: "app", image: "busybox", startupProbe: probe }] });
  assertEquals([cs(compute(slow, rs), "app").started, cs(compute(slow, rs), "app").ready], [
    false,
    false,
  ]);
  const up = compute(slow, rs, { startup: new Map([["app", true]]) });
  assertEquals([cs(up, "app").started, cs(up, "app").ready], [true, true]);
});

Deno.test("probe results are asked for the current container instance", () => {
  const probe = { exec: { command: ["true"] } };
  const pod = mkPod({
    containers: [{ name: "app", image: "busybox", readinessProbe: probe, startupProbe: probe }],
  });
  // The instance before the restart passed both probes; the new one has no result yet.
  const byId = { get: (_name: string, id: string) => id === "containerd://app-0" };
  const rs = mkRs([ctr("app", "running", { restartCount: 1 }), ctr("app", "exited")]);
  const s = compute(pod, rs, { readiness: byId, startup: byId });
  assertEquals([cs(s, "app").started, cs(s, "app").ready], [false, false]);
  const before = compute(pod, mkRs([ctr("app", "running")]), { readiness: byId, startup: byId });
  assertEquals([cs(before, "app").started, cs(before, "app").ready], [true, true]);
});

Deno.test("a crash-looping container shows waiting CrashLoopBackOff with the last termination", () => {
  const rs = mkRs([
    ctr("app", "exited", { restartCount: 1, exitCode: 2, reason: "Error" }),
    ctr("app", "exited", { restartCount: 0, exitCode: 1, reason: "Error" }),
  ]);
  const reasons = new Map([["app", {
    reason: "CrashLoopBackOff",
    message: "back-off 10s restarting failed container=app pod=web_default(u1)",
  }]]);
  const s = compute(mkPod({}), rs, { reasons });
  const app = cs(s, "app");
  assertEquals(app.state, {
    waiting: {
      reason: "CrashLoopBackOff",
      message: "back-off 10s restarting failed container=app pod=web_default(u1)",
    },
  });
  assertEquals(app.lastState, {
    terminated: {
      exitCode: 2,
      reason: "Error",
      message: undefined,
      startedAt: date(3),
      finishedAt: date(4),
      containerID: "containerd://app-1",
    },
  });
  assertEquals([app.restartCount, app.ready, app.started], [1, false, false]);
  assertEquals(s.phase, "Running");
  assertEquals(cond(s, "ContainersReady").reason, "ContainersNotReady");
});

Deno.test("a restarted container's lastState is its previous instance", () => {
  const rs = mkRs([
    ctr("app", "exited", { restartCount: 0, exitCode: 137, reason: "OOMKilled" }),
    ctr("app", "running", { restartCount: 1 }),
  ]);
  const app = cs(compute(mkPod({}), rs), "app");
  assertEquals(app.state, { running: { startedAt: date(3) } });
  assertEquals(app.lastState?.terminated?.reason, "OOMKilled");
  assertEquals(app.lastState?.terminated?.exitCode, 137);
  assertEquals(app.restartCount, 1);
});

Deno.test("an image pull failure shows the reason; Never-restarted containers keep terminated", () => {
  const reasons = new Map([["app", { reason: "ErrImagePull", message: "pull access denied" }]]);
  const s = compute(mkPod({}), mkRs([]), { reasons });
  assertEquals(cs(s, "app").state, {
    waiting: { reason: "ErrImagePull", message: "pull access denied" },
  });
  assertEquals(s.phase, "Pending");

  const never = mkPod({ restartPolicy: "Never" });
  const done = compute(never, mkRs([ctr("app", "exited", { exitCode: 3 })]), {
    reasons: new Map([["app", { reason: "CrashLoopBackOff", message: "x" }]]),
  });
  assertEquals(cs(done, "app").state?.terminated?.exitCode, 3, "not going to restart: no waiting");
  assertEquals(done.phase, "Failed");
  assertEquals(cond(done, "Ready"), { type: "Ready", status: "False", reason: "PodFailed" });
  assertEquals(cond(done, "ContainersReady"), {
    type: "ContainersReady",
    status: "False",
    reason: "PodFailed",
  });
});

Deno.test("init containers progress in order and hold app containers in PodInitializing", () => {
  const pod = mkPod({
    initContainers: [{ name: "init1", image: "busybox" }, { name: "init2", image: "busybox" }],
  });
  const s = compute(pod, mkRs([ctr("init1", "exited", { exitCode: 0 }), ctr("init2", "running")]));
  assertEquals(s.initContainerStatuses?.map((c) => c.name), ["init1", "init2"]);
  assertEquals([cs(s, "init1").ready, cs(s, "init1").state?.terminated?.exitCode], [true, 0]);
  assertEquals([cs(s, "init2").ready, cs(s, "init2").started], [false, true]);
  assertEquals(cs(s, "app").state, { waiting: { reason: "PodInitializing" } });
  assertEquals(s.phase, "Pending");
  assertEquals(cond(s, "Initialized"), {
    type: "Initialized",
    status: "False",
    reason: "ContainersNotInitialized",
    message: "containers with incomplete status: [init2]",
  });

  const none = compute(pod, mkRs([], { sandbox: "none" }));
  assertEquals(cs(none, "init1").state, { waiting: { reason: "PodInitializing" } });
  assertEquals(
    cond(none, "Initialized").message,
    "containers with incomplete status: [init1 init2]",
  );

  const done = compute(
    pod,
    mkRs([
      ctr("init1", "exited", { exitCode: 0 }),
      ctr("init2", "exited", { exitCode: 0 }),
      ctr("app", "running"),
    ]),
  );
  assertEquals(done.phase, "Running");
  assertEquals(cond(done, "Initialized"), { type: "Initialized", status: "True" });
  assertEquals(cond(done, "Ready").status, "True");
});

Deno.test("a failed init container fails a Never pod and crash-loops an Always pod", () => {
  const spec = { initContainers: [{ name: "init", image: "busybox" }] };
  const rs = mkRs([ctr("init", "exited", { exitCode: 1, reason: "Error" })]);
  assertEquals(compute(mkPod({ ...spec, restartPolicy: "Never" }), rs).phase, "Failed");
  const s = compute(mkPod(spec), rs, {
    reasons: new Map([["init", { reason: "CrashLoopBackOff", message: "back-off" }]]),
  });
  assertEquals(s.phase, "Pending");
  assertEquals(cs(s, "init").state?.waiting?.reason, "CrashLoopBackOff");
  assertEquals(cs(s, "init").lastState?.terminated?.exitCode, 1);
});

Deno.test("a completed pod is Succeeded with PodCompleted conditions", () => {
  const pod = mkPod({ restartPolicy: "OnFailure", initContainers: [{ name: "init", image: "b" }] });
  const rs = mkRs([ctr("init", "exited"), ctr("app", "exited")], { sandbox: "notready" });
  const s = compute(pod, rs);
  assertEquals(s.phase, "Succeeded");
  assertEquals(cond(s, "Initialized"), {
    type: "Initialized",
    status: "True",
    reason: "PodCompleted",
  });
  assertEquals(cond(s, "ContainersReady"), {
    type: "ContainersReady",
    status: "False",
    reason: "PodCompleted",
  });
  assertEquals(cond(s, "Ready"), { type: "Ready", status: "False", reason: "PodCompleted" });
  assertEquals(cond(s, "PodReadyToStartContainers").status, "False");
});

Deno.test("a terminal phase never goes back, and keeps its reason and message", () => {
  const rs = mkRs([ctr("app", "running")]);
  const previous: V1PodStatus = { phase: "Failed", reason: "Evicted", message: "low on memory" };
  const s = compute(mkPod({}), rs, { previous });
  assertEquals([s.phase, s.reason, s.message], ["Failed", "Evicted", "low on memory"]);
  const fromApi = compute(mkPod({}, { status: { phase: "Succeeded" } }), rs);
  assertEquals(fromApi.phase, "Succeeded");
  const noFlip = compute(
    mkPod({ restartPolicy: "Never" }, { status: { phase: "Succeeded" } }),
    mkRs([ctr("app", "exited", { exitCode: 1 })]),
  );
  assertEquals(noFlip.phase, "Succeeded", "the API's terminal phase wins over the other one");
  const changed = compute(mkPod({}), rs, { previous: { phase: "Pending", reason: "Old" } });
  assertEquals([changed.phase, changed.reason], ["Running", undefined]);
});

Deno.test("condition lastTransitionTime is kept until the status flips; startTime is kept", () => {
  const pod = mkPod({});
  const first = compute(pod, mkRs([ctr("app", "created")]), { now: sec(10) });
  assertEquals(first.conditions?.every((c) => +c.lastTransitionTime! === sec(10)), true);
  const second = compute(pod, mkRs([ctr("app", "running")]), { now: sec(20), previous: first });
  const times = Object.fromEntries(second.conditions!.map((c) => [c.type, +c.lastTransitionTime!]));
  assertEquals(times, {
    PodReadyToStartContainers: sec(10),
    Initialized: sec(10),
    Ready: sec(20),
    ContainersReady: sec(20),
    PodScheduled: sec(10),
  });
  assertEquals(second.startTime, date(10));
});

Deno.test("conditions owned by others are preserved and readiness gates are honoured", () => {
  const scheduled = { type: "PodScheduled", status: "True", lastTransitionTime: date(-100) };
  const gate = { type: "example.com/lb", status: "False" };
  const pod = mkPod({
    readinessGates: [{ conditionType: "example.com/lb" }, { conditionType: "example.com/x" }],
  }, {
    status: { conditions: [scheduled, gate, { type: "Ready", status: "True" }] },
  });
  const s = compute(pod, mkRs([ctr("app", "running")]));
  assertEquals(s.conditions?.filter((c) => c.type === "PodScheduled"), [scheduled]);
  assertEquals(s.conditions?.filter((c) => c.type === "Ready").length, 1);
  assertEquals(cond(s, "Ready"), {
    type: "Ready",
    status: "False",
    reason: "ReadinessGatesNotReady",
    message:
      `the status of pod readiness gate "example.com/lb" is not "True", but False, corresponding condition of pod readiness gate "example.com/x" does not exist.`,
  });
  assertEquals(cond(s, "ContainersReady").status, "True");
});

Deno.test("a container that vanished after running is shown as terminated with unknown status", () => {
  const pod = mkPod({});
  const before = compute(pod, mkRs([ctr("app", "running")]));
  const gone = compute(pod, mkRs([]), { previous: before });
  assertEquals(cs(gone, "app").state, { waiting: { reason: "ContainerCreating" } });
  assertEquals(cs(gone, "app").lastState?.terminated?.reason, "ContainerStatusUnknown");
  assertEquals(cs(gone, "app").lastState?.terminated?.exitCode, 137);
  assertEquals(cs(gone, "app").restartCount, 1);
  assertEquals(gone.phase, "Running");

  const unknown = compute(pod, mkRs([ctr("app", "unknown")]), { previous: before });
  assertEquals(cs(unknown, "app").state?.terminated?.reason, "ContainerStatusUnknown");
  assertEquals(cs(unknown, "app").restartCount, 1);
});

Deno.test("app container statuses are sorted by name, init containers keep spec order", () => {
  const pod = mkPod({
    initContainers: [{ name: "zinit", image: "b" }, { name: "ainit", image: "b" }],
    containers: [{ name: "web", image: "b" }, { name: "log", image: "b" }],
  });
  const s = compute(pod, mkRs([]));
  assertEquals(s.initContainerStatuses?.map((c) => c.name), ["zinit", "ainit"]);
  assertEquals(s.containerStatuses?.map((c) => c.name), ["log", "web"]);
  assertEquals(cond(s, "Initialized").message, "containers with incomplete status: [zinit ainit]");
  assertEquals(cond(s, "ContainersReady").message, "containers with unready status: [web log]");
});

Deno.test("pod IPs: node family first, host-network pods get the host IP", () => {
  const dual = compute(
    mkPod({}),
    mkRs([ctr("app", "running")], { ips: ["fd00::7", "10.88.0.7", "10.88.0.8"] }),
  );
  assertEquals(dual.podIPs, [{ ip: "10.88.0.7" }, { ip: "fd00::7" }]);
  const v6 = compute(mkPod({}), mkRs([], { ips: ["10.88.0.7", "fd00::7"] }), { hostIP: "fd00::1" });
  assertEquals(v6.podIP, "fd00::7");

  const host = mkPod({ hostNetwork: true });
  const s = compute(host, mkRs([ctr("app", "running")], { hostNetwork: true }));
  assertEquals([s.podIP, s.podIPs], ["192.168.1.10", [{ ip: "192.168.1.10" }]]);
  assertEquals(cond(s, "PodReadyToStartContainers").status, "True");
});

Deno.test("PodReadyToStartContainers needs one ready sandbox with an IP", () => {
  const pod = mkPod({});
  assertEquals(cond(compute(pod, mkRs([])), "PodReadyToStartContainers").status, "True");
  assertEquals(
    cond(compute(pod, mkRs([], { sandbox: "notready" })), "PodReadyToStartContainers").status,
    "False",
  );
  assertEquals(
    cond(compute(pod, mkRs([], { ips: [] })), "PodReadyToStartContainers").status,
    "False",
  );
});

// ---- a new sandbox re-runs initialisation ------------------------------------------------

/** The first sandbox (sb1) died; sb2 replaced it and has `containers` of its own. */
function rsAfterNewSandbox(containers: RuntimeContainerStatus[]): RuntimePodStatus {
  const rs = mkRs(containers);
  const sb1 = { ...rs.sandboxes[0], state: "notready" as const };
  rs.sandboxes = [{ ...sb1, id: "sb2", state: "ready", createdAt: sec(4), attempt: 1 }, sb1];
  return rs;
}

const wasRunning = (name: string, restartCount = 0): V1ContainerStatus => ({
  name,
  image: "busybox",
  imageID: "",
  ready: true,
  restartCount,
  state: { running: {} },
});

Deno.test("a new sandbox re-running a regular init container is Pending, though the app ran", () => {
  const pod = mkPod({ initContainers: [{ name: "i", image: "busybox" }] });
  const rs = rsAfterNewSandbox([
    ctr("i", "running", { sandboxId: "sb2", restartCount: 1, createdAt: sec(4) }),
    ctr("app", "exited", { exitCode: 137 }),
  ]);
  const s = compute(pod, rs, {
    previous: {
      phase: "Running",
      initContainerStatuses: [{ ...wasRunning("i"), state: { terminated: { exitCode: 0 } } }],
      containerStatuses: [wasRunning("app")],
    },
  });
  assertEquals(s.phase, "Pending");
});

Deno.test("an unstarted sidecar is Pending in a new sandbox and Running once its app is there", () => {
  const pod = mkPod({
    initContainers: [{
      name: "s",
      image: "busybox",
      restartPolicy: "Always",
      startupProbe: { exec: { command: ["true"] } },
    }],
  });
  const previous = {
    phase: "Running",
    initContainerStatuses: [wasRunning("s")],
    containerStatuses: [wasRunning("app")],
  };
  const sidecar = ctr("s", "running", { sandboxId: "sb2", restartCount: 1, createdAt: sec(4) });
  const initialising = rsAfterNewSandbox([sidecar, ctr("app", "exited", { exitCode: 137 })]);
  assertEquals(compute(pod, initialising, { previous }).phase, "Pending");
  // The sidecar restarted after the app came up in this sandbox: the pod stays Running.
  const appUp = rsAfterNewSandbox([
    { ...sidecar, createdAt: sec(6), id: "s-2", restartCount: 2 },
    ctr("app", "running", { sandboxId: "sb2", createdAt: sec(5), id: "app-1", restartCount: 1 }),
  ]);
  assertEquals(compute(pod, appUp, { previous }).phase, "Running");
});

// ---- activeDeadlineSeconds ----------------------------------------------------------------

Deno.test("past activeDeadlineSeconds the pod is Failed with DeadlineExceeded", () => {
  const pod = mkPod({ activeDeadlineSeconds: 5 });
  const rs = mkRs([ctr("app", "running")]);
  const started = (n: number): V1PodStatus => ({ phase: "Running", startTime: date(n) });
  // now is 10.7 s: started at 6 s it has 0.3 s left, at 5 s none.
  assertEquals(compute(pod, rs, { previous: started(6) }).phase, "Running");
  const late = compute(pod, rs, { previous: started(5) });
  assertEquals([late.phase, late.reason, late.message], [
    "Failed",
    "DeadlineExceeded",
    "Pod was active on the node longer than the specified deadline",
  ]);
  // A start time read back from JSON counts the same.
  const json = compute(pod, rs, { previous: { phase: "Running", startTime: "x" as never } });
  assertEquals(json.phase, "Running");
  const fromJson = { phase: "Running", startTime: date(0).toISOString() as never };
  assertEquals(compute(pod, rs, { previous: fromJson }).reason, "DeadlineExceeded");
  // A pod that finished before stays as it finished.
  const done = { phase: "Succeeded", startTime: date(0) };
  assertEquals(compute(pod, mkRs([ctr("app", "exited")]), { previous: done }).phase, "Succeeded");
  // No start time yet: nothing to measure from.
  assertEquals(compute(pod, rs).phase, "Running");
});

Deno.test("a dual-stack node gives hostIPs both addresses, primary first; host-network pods both as pod IPs", () => {
  const opts = { hostIP: "192.168.1.10", hostIPs: ["192.168.1.10", "fd00::10"] };
  const s = compute(mkPod({}), mkRs([ctr("app", "running")]), opts);
  assertEquals([s.hostIP, s.hostIPs], ["192.168.1.10", [{ ip: "192.168.1.10" }, {
    ip: "fd00::10",
  }]]);
  const h = compute(
    mkPod({ hostNetwork: true }),
    mkRs([ctr("app", "running")], { hostNetwork: true }),
    opts,
  );
  assertEquals([h.podIP, h.podIPs], ["192.168.1.10", [{ ip: "192.168.1.10" }, { ip: "fd00::10" }]]);
});
