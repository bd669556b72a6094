/**
 * In-place resize through the kubelet core (sources → allocation → pod workers → runtime
 * manager → fake CRI), driven by a fake clock: a new spec's cpu is applied to the running
 * container without a restart, the status shows what it has and what it was allocated, the
 * resize conditions come and go with their events, and a resize the node can never hold is
 * Infeasible, also after an agent restart (the allocation checkpoint).
 */
import { assert, assertEquals } from "./_assert.ts";
import type { V1Pod } from "@kubernetes/client-node";
import type { Kubelet } from "../../src/kubelet/mod.ts";
import { PodResourceState } from "../../src/allocation/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { pass, startKubeletCore } from "./_core.ts";

function pod(cpu: string): V1Pod {
  return {
    metadata: { uid: "uid-a", name: "a", namespace: "default" },
    spec: {
      nodeName: "node1",
      containers: [{
        name: "app",
        image: "busybox:1.36",
        imagePullPolicy: "IfNotPresent",
        resources: { requests: { cpu, memory: "64Mi" }, limits: { cpu, memory: "64Mi" } },
      }],
    },
  };
}

function start(cri: FakeRuntime, clock: FakeClock, logsDir: string, allocated: PodResourceState) {
  const events: string[] = [];
  const core = startKubeletCore(cri, {
    clock,
    logsDir,
    nodeName: "node1",
    deps: {
      allocated,
      nodeAllocatable: { cpuMilli: 4000, memoryBytes: 8 * 2 ** 30 },
      events: {
        event: (_ref, type, reason, message) => events.push(`${type} ${reason} ${message}`),
      },
    },
  });
  return { ...core, events };
}

const status = (k: Kubelet) => k.podsWithStatus()[0].status!;

Deno.test("kubelet resizes a running container in place and reports it; an impossible resize is Infeasible", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  cri.addImage("busybox:1.36");
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-kubelet-resize-" });
  const allocated = await PodResourceState.open({
    path: `${logsDir}/allocated_pods_state`,
    logger: nullLogger,
  });
  let agent = start(cri, clock, logsDir, allocated);
  try {
    agent.source.emit([pod("250m")]);
    await pass(clock, 3000);
    const [c] = [...cri.containers.values()];
    assertEquals(c.status.state, "CONTAINER_RUNNING");
    assertEquals(status(agent.kubelet).containerStatuses?.[0].resources, {
      requests: { cpu: "250m", memory: "64Mi" },
      limits: { cpu: "250m", memory: "64Mi" },
    });

    agent.source.emit([pod("500m")]);
    await pass(clock, 3000);
    assertEquals(cri.callsTo("updateContainerResources").length, 1);
    assertEquals(c.status.state, "CONTAINER_RUNNING", "not restarted");
    assertEquals(cri.containers.size, 1);
    const s = status(agent.kubelet);
    assertEquals(s.containerStatuses?.[0].restartCount, 0);
    assertEquals(s.containerStatuses?.[0].resources, {
      requests: { cpu: "500m", memory: "64Mi" },
      limits: { cpu: "500m", memory: "64Mi" },
    });
    assertEquals(s.containerStatuses?.[0].allocatedResources, { cpu: "500m", memory: "64Mi" });
    assert(!s.conditions?.some((x) => x.type.startsWith("PodResize")), "resize done");
    assertEquals(agent.events.filter((e) => /Resize/.test(e)).map((e) => e.split(" ")[1]), [
      "ResizeStarted",
      "ResizeCompleted",
    ]);

    agent.source.emit([pod("100")]);
    await pass(clock, 2000);
    const pending = status(agent.kubelet).conditions?.find((x) => x.type === "PodResizePending");
    assertEquals(pending?.reason, "Infeasible");
    assertEquals(
      pending?.message,
      "Node didn't have enough capacity: cpu, requested: 100000, capacity: 4000",
    );
    assertEquals(cri.callsTo("updateContainerResources").length, 1, "not applied");
    assertEquals(status(agent.kubelet).containerStatuses?.[0].allocatedResources?.cpu, "500m");

    // A restarted agent still knows what the pod was given, and says the same.
    await agent.stop();
    await allocated.flush();
    const reopened = await PodResourceState.open({
      path: `${logsDir}/allocated_pods_state`,
      logger: nullLogger,
    });
    agent = start(cri, clock, logsDir, reopened);
    agent.source.emit([pod("100")]);
    await pass(clock, 3000);
    const again = status(agent.kubelet);
    assertEquals(
      again.conditions?.find((x) => x.type === "PodResizePending")?.reason,
      "Infeasible",
    );
    assertEquals(again.containerStatuses?.[0].allocatedResources?.cpu, "500m");
    assertEquals(cri.callsTo("stopContainer").length, 0);
  } finally {
    await agent.stop();
    await Deno.remove(logsDir, { recursive: true });
  }
});
