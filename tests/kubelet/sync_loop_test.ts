/**
 * The kubelet core wired to the real runtime manager and PLEG over the in-memory CRI, driven by a
 * fake clock: sources → sync loop → pod workers → CRI, restart adoption and orphan clean-up.
 */
import { assert, assertEquals } from "./_assert.ts";
import type { V1Pod } from "@kubernetes/client-node";
import { Kubelet } from "../../src/kubelet/mod.ts";
import { createPleg, createPodStatusCache } from "../../src/pleg/mod.ts";
import { createRuntimeManager } from "../../src/runtime/mod.ts";
import type { PodSource, PodSourceUpdate } from "../../src/sources/types.ts";
import type { VolumeManager } from "../../src/volumes/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

const NODE = "node1";

class ManualSource implements PodSource {
  readonly name = "file" as const;
  #emit?: (u: PodSourceUpdate) => void;
  run(onUpdate: (u: PodSourceUpdate) => void, opts: { signal: AbortSignal }): Promise<void> {
    this.#emit = onUpdate;
    return new Promise((resolve) => opts.signal.addEventListener("abort", () => resolve()));
  }
  emit(pods: V1Pod[]) {
    this.#emit!({ source: "file", pods, problems: [] });
  }
}

const volumes: VolumeManager = {
  setUpPod: () => Promise.resolve(new Map()),
  tearDownPod: () => Promise.resolve(),
};

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
function startKubelet(cri: FakeRuntime, clock: FakeClock, logsDir: string) {
  const runtime = createRuntimeManager({
    runtime: cri,
    image: cri,
    volumes,
    clock,
    logger: nullLogger,
    nodeName: NODE,
    podLogsDir: logsDir,
    sandboxOptions: {
      podLogsDir: logsDir,
      clusterDNS: [],
      clusterDomain: "cluster.local",
      hostDNS: { servers: [], searches: [], options: [] },
    },
  });
  const cache = createPodStatusCache({ clock });
  const source = new ManualSource();
  const kubelet = new Kubelet({
    sources: [source],
    runtime,
    pleg: createPleg({ runtime, cache, clock, logger: nullLogger }),
    cache,
    clock,
    logger: nullLogger,
    syncFrequencyMs: 60_000,
    checkRuntime: async () => {
      await cri.status();
    },
  });
  const ac = new AbortController();
  const done = kubelet.run(ac.signal);
  return {
    kubelet,
    source,
    async stop() {
      ac.abort();
      await done;
    },
  };
}

/** Lets time pass in small steps, yielding to real I/O (log dirs) in between. */
async function pass(clock: FakeClock, ms: number) {
  for (let t = 0; t < ms; t += 250) {
    await clock.advance(250);
    await new Promise((r) => setTimeout(r, 0));
  }
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
