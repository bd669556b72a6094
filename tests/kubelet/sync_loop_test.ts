/**
 * The kubelet core wired to the real runtime manager and PLEG over the in-memory CRI, driven by a
 * fake clock: sources → sync loop → pod workers → CRI, restart adoption and orphan clean-up.
 */
import { assert, assertEquals } from "./_assert.ts";
import type { V1Pod } from "@kubernetes/client-node";
import type { Kubelet, KubeletDeps } from "../../src/kubelet/mod.ts";
import type { PodSource } from "../../src/sources/types.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { pass, startKubeletCore } from "./_core.ts";

const NODE = "node1";

function pod(uid: string, name: string): V1Pod {
  return {
    metadata: { uid, name, namespace: "default" },
    spec: {
      nodeName: NODE,
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 2,
      containers: [{ name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" }],
    },
  };
}

/** Starts an agent's core over `cri`; a new call is an agent restart (fresh in-memory state). */
function startKubelet(
  cri: FakeRuntime,
  clock: FakeClock,
  logsDir: string,
  deps: Partial<KubeletDeps> = {},
) {
  return startKubeletCore(cri, { clock, logsDir, nodeName: NODE, deps });
}

const writes = (cri: FakeRuntime, from: number) =>
  cri.calls.slice(from).map((c) => c.method).filter((m) =>
    /^(runPodSandbox|createContainer|startContainer|stopContainer|stopPodSandbox|remove)/.test(m)
  );

Deno.test("kubelet starts a source's pod, adopts it after a restart and removes it when gone", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  cri.addImage("busybox:1.36");
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-kubelet-" });
  try {
    // First agent: the pod starts and shows Running.
    let agent = startKubelet(cri, clock, logsDir);
    agent.source.emit([pod("uid-a", "a"), pod("uid-b", "b")]);
    await pass(clock, 4000);
    const running = [...cri.containers.values()].filter((c) =>
      c.status.state === "CONTAINER_RUNNING"
    );
    assertEquals(running.length, 2);
    const phases = agent.kubelet.podsWithStatus().map((p) => p.status?.phase);
    assertEquals(phases, ["Running", "Running"]);
    await agent.stop();
    assert(
      [...cri.containers.values()].every((c) => c.status.state === "CONTAINER_RUNNING"),
      "stopping the agent leaves containers running",
    );

    // Second agent: same pods → adopted without a single CRI write; nothing is cleaned up before
    // the source has spoken, even after several housekeeping rounds.
    agent = startKubelet(cri, clock, logsDir);
    const mark = cri.calls.length;
    await pass(clock, 6000);
    assertEquals(writes(cri, mark), [], "no orphan clean-up before the sources are seen");
    agent.source.emit([pod("uid-a", "a")]);
    await pass(clock, 6000);
    const w = writes(cri, mark);
    assert(!w.includes("runPodSandbox") && !w.includes("createContainer"), w.join(","));
    // b is gone from the source: its container and sandbox are stopped and removed.
    const left = [...cri.sandboxes.values()].map((s) => s.status.metadata.uid);
    assertEquals(left, ["uid-a"]);
    assert(w.includes("stopContainer") && w.includes("removePodSandbox"), w.join(","));
    await agent.stop();
  } finally {
    await Deno.remove(logsDir, { recursive: true });
  }
});

/** Runs `body` with a fresh fake runtime (busybox present), clock and log dir. */
async function withRuntime(
  body: (cri: FakeRuntime, clock: FakeClock, logs: string) => Promise<void>,
) {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  cri.addImage("busybox:1.36");
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-kubelet-" });
  try {
    await body(cri, clock, logsDir);
  } finally {
    await Deno.remove(logsDir, { recursive: true });
  }
}

const statusOf = (k: Kubelet, name: string) =>
  k.podsWithStatus().find((p) => p.metadata?.name === name)?.status;

Deno.test("kubelet admits at most maxPods pods; the rest are Failed with OutOfpods", async () => {
  await withRuntime(async (cri, clock, logs) => {
    const events: string[] = [];
    const agent = startKubelet(cri, clock, logs, {
      maxPods: 2,
      events: { event: (ref, type, reason) => events.push(`${ref.name} ${type} ${reason}`) },
    });
    agent.source.emit([pod("uid-a", "a"), pod("uid-b", "b"), pod("uid-c", "c")]);
    await pass(clock, 4000);
    assertEquals(statusOf(agent.kubelet, "a")?.phase, "Running");
    assertEquals(statusOf(agent.kubelet, "b")?.phase, "Running");
    const c = statusOf(agent.kubelet, "c");
    assertEquals([c?.phase, c?.reason], ["Failed", "OutOfpods"]);
    assertEquals(
      c?.message,
      "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 2, capacity: 2",
    );
    assertEquals(cri.sandboxes.size, 2, "the refused pod never reached the runtime");
    assertEquals(events, ["c Warning OutOfpods"]);
    await agent.stop();
  });
});

Deno.test("an evicted pod stays Failed/Evicted with its DisruptionTarget after termination", async () => {
  await withRuntime(async (cri, clock, logs) => {
    const agent = startKubelet(cri, clock, logs);
    agent.source.emit([pod("uid-a", "a")]);
    await pass(clock, 3000);
    assertEquals(statusOf(agent.kubelet, "a")?.phase, "Running");
    cri.stopExitCode = 0; // the app exits cleanly on SIGTERM: still an eviction, not a success
    const evicted = agent.kubelet.evictPod("uid-a", {
      reason: "Evicted",
      message: "The node was low on resource: memory.",
      gracePeriodSeconds: 1,
      condition: {
        type: "DisruptionTarget",
        status: "True",
        reason: "TerminationByKubelet",
        message: "The node was low on resource: memory.",
      },
    });
    await pass(clock, 3000);
    await evicted;
    await pass(clock, 3000);
    assertEquals(agent.kubelet.podWorkState("uid-a"), "terminated");
    const st = statusOf(agent.kubelet, "a");
    assertEquals([st?.phase, st?.reason, st?.message], [
      "Failed",
      "Evicted",
      "The node was low on resource: memory.",
    ]);
    const dt = st?.conditions?.find((c) => c.type === "DisruptionTarget");
    assertEquals([dt?.status, dt?.reason], ["True", "TerminationByKubelet"]);
    assertEquals(st?.containerStatuses?.[0].state?.terminated?.exitCode, 0);
    await agent.stop();
  });
});

Deno.test("a source that fails is logged and started again; its pods still run", async () => {
  await withRuntime(async (cri, clock, logs) => {
    let attempts = 0;
    const flaky: PodSource = {
      name: "file",
      run(onUpdate, { signal }) {
        attempts++;
        if (attempts === 1) {
          return Promise.reject(new RangeError("Maximum call stack size exceeded"));
        }
        onUpdate({ source: "file", pods: [pod("uid-a", "a")], problems: [] });
        return new Promise((resolve) => signal.addEventListener("abort", () => resolve()));
      },
    };
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l), now: () => clock.now() });
    const agent = startKubelet(cri, clock, logs, { sources: [flaky], logger });
    await pass(clock, 4000);
    assertEquals(attempts, 2);
    assert(
      lines.some((l) => l.includes("level=error") && l.includes('loop="source file"')),
      lines.join("\n"),
    );
    assertEquals(statusOf(agent.kubelet, "a")?.phase, "Running");
    await agent.stop();
  });
});

Deno.test("kubelet_running_pods counts pods with a ready sandbox, containers by state", async () => {
  await withRuntime(async (cri, clock, logs) => {
    const agent = startKubelet(cri, clock, logs);
    agent.source.emit([pod("uid-a", "a"), pod("uid-b", "b")]);
    await pass(clock, 3000);
    // b's container crashes twice: the second time it waits out its crash back-off, with no
    // running container while its sandbox stays ready.
    const runningB = () =>
      [...cri.containers.values()].find((c) =>
        c.status.labels?.["io.kubernetes.pod.uid"] === "uid-b" &&
        c.status.state === "CONTAINER_RUNNING"
      )!;
    cri.exitContainer(runningB().status.id, 1);
    await pass(clock, 2000);
    cri.exitContainer(runningB().status.id, 1);
    await pass(clock, 2000);
    assertEquals(
      statusOf(agent.kubelet, "b")?.containerStatuses?.[0].state?.waiting?.reason,
      "CrashLoopBackOff",
    );
    const counts = agent.kubelet.runningCounts();
    assertEquals(counts.pods, 2);
    assertEquals(counts.containers.running, 1);
    assert(counts.containers.exited >= 1);
    await agent.stop();
  });
});

Deno.test("a pod being deleted is stopped with its deletion grace, then reported terminated", async () => {
  await withRuntime(async (cri, clock, logs) => {
    const changes: string[] = [];
    const terminated: string[] = [];
    const agent = startKubelet(cri, clock, logs, {
      statusSink: {
        statusChanged: (p, st) => changes.push(`${p.metadata?.name}:${st.phase}`),
        podTerminated: (p) => terminated.push(p.metadata!.uid!),
      },
    });
    const a = pod("uid-a", "a");
    a.metadata!.annotations = { "kubernetes.io/config.source": "api" };
    agent.source.emit([a]);
    await pass(clock, 3000);
    assert(changes.includes("a:Running"), changes.join(","));
    const mark = cri.calls.length;
    const deleting = structuredClone(a);
    deleting.metadata!.deletionTimestamp = new Date(clock.now());
    deleting.metadata!.deletionGracePeriodSeconds = 7;
    agent.source.emit([deleting]);
    await pass(clock, 3000);
    const stops = cri.calls.slice(mark).filter((c) => c.method === "stopContainer");
    assertEquals(stops.map((c) => c.args[1]), [7], "stopped with the deletion grace period");
    assertEquals(terminated, ["uid-a"]);
    assertEquals(agent.kubelet.podWorkState("uid-a"), "terminated");
    // restartPolicy Always, yet stopped for good: the API sees a terminal phase (137: Failed).
    assertEquals(changes.at(-1), "a:Failed");
    // It is not started again while the API still lists it.
    await pass(clock, 3000);
    assertEquals(
      [...cri.containers.values()].filter((c) => c.status.state === "CONTAINER_RUNNING").length,
      0,
    );
    await agent.stop();
  });
});

Deno.test("requestSync syncs a pod at once (a configMap it uses changed)", async () => {
  await withRuntime(async (cri, clock, logs) => {
    const ops: string[] = [];
    const agent = startKubelet(cri, clock, logs, {
      observe: { podWorker: (op) => ops.push(op) },
    });
    agent.source.emit([pod("uid-a", "a")]);
    await pass(clock, 3000);
    const before = ops.filter((o) => o === "sync").length;
    agent.kubelet.requestSync("uid-a");
    await pass(clock, 250);
    assertEquals(ops.filter((o) => o === "sync").length, before + 1);
    await agent.stop();
  });
});

Deno.test("activeDeadlineSeconds ends the pod Failed/DeadlineExceeded when it falls due", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  cri.addImage("busybox:1.36");
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-kubelet-" });
  try {
    const agent = startKubelet(cri, clock, logsDir);
    const p = pod("uid-d", "d");
    p.spec!.activeDeadlineSeconds = 5;
    agent.source.emit([p]);
    await pass(clock, 3000);
    assertEquals(agent.kubelet.podsWithStatus().map((x) => x.status?.phase), ["Running"]);
    // Well before the 60 s resync: the pod is synced when its deadline falls due.
    await pass(clock, 4000);
    const st = agent.kubelet.podsWithStatus()[0].status;
    const stillRunning = [...cri.containers.values()].filter((c) =>
      c.status.state === "CONTAINER_RUNNING"
    ).length;
    assertEquals({ phase: st?.phase, reason: st?.reason, message: st?.message, stillRunning }, {
      phase: "Failed",
      reason: "DeadlineExceeded",
      message: "Pod was active on the node longer than the specified deadline",
      stillRunning: 0,
    });
    // Finished for good: later resyncs neither restart it nor change its status.
    await pass(clock, 70_000);
    assertEquals(agent.kubelet.podsWithStatus()[0].status?.reason, "DeadlineExceeded");
    assertEquals(
      [...cri.containers.values()].filter((c) => c.status.state === "CONTAINER_RUNNING").length,
      0,
    );
    await agent.stop();
  } finally {
    await Deno.remove(logsDir, { recursive: true });
  }
});
