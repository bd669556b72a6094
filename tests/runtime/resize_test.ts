/**
 * In-place resize through the runtime manager, over the fake CRI and a cgroup v1 tree on plain
 * files: the pod cgroup grows before the containers and shrinks after them (memory, then cpu),
 * a memory limit is not lowered below use, RestartContainer restarts only its container, and a
 * resize is applied once (the actuated state), across a new manager too.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { type CgroupFs, openPodCgroups } from "../../src/cm/mod.ts";
import { PodResourceState } from "../../src/allocation/mod.ts";
import type { LinuxContainerResources } from "../../src/cri/types.ts";
import type { RuntimeManager } from "../../src/runtime/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { fs, v1Fixture } from "../cm/_fixtures.ts";
import { fakeRuntimeManager } from "./_fake_manager.ts";

interface Env {
  cri: FakeRuntime;
  rm: RuntimeManager;
  root: string;
  /** Pod cgroup writes and CRI resource updates, in the order they happened. */
  steps: string[];
  actuated: PodResourceState;
  newManager(): Promise<RuntimeManager>;
  [Symbol.asyncDispose](): Promise<void>;
}

const POD_CG = "kubepods/burstable/poduid-1";

async function setup(): Promise<Env> {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const root = await v1Fixture();
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-resize-" });
  const steps: string[] = [];
  const recording: CgroupFs = {
    ...fs,
    async writeFile(path, data) {
      if (path.includes(`/${POD_CG}/`)) steps.push(`cgroup ${path.split("/").at(-1)}=${data}`);
      await fs.writeFile(path, data);
    },
  };
  const update = cri.updateContainerResources.bind(cri);
  cri.updateContainerResources = (id: string, linux: LinuxContainerResources, o) => {
    const c = cri.containers.get(id)?.status.metadata.name;
    steps.push(
      `update ${c} shares=${linux.cpuShares} quota=${linux.cpuQuota} memory=${linux.memoryLimitInBytes}`,
    );
    return update(id, linux, o);
  };
  const actuated = PodResourceState.inMemory();
  const make = async () =>
    fakeRuntimeManager({ cri, clock, logsDir }, {
      actuated,
      podCgroups: await openPodCgroups(
        { cgroupsPerQOS: true, cgroupRoot: "/", cgroupDriver: "cgroupfs", mountRoot: root },
        {
          logger: nullLogger,
          fs: recording,
          nodeAllocatable: { cpuMilli: 4000, memoryBytes: 2 ** 33 },
        },
      ),
    });
  return {
    cri,
    rm: await make(),
    root,
    steps,
    actuated,
    newManager: make,
    async [Symbol.asyncDispose]() {
      await Deno.remove(logsDir, { recursive: true });
      await Deno.remove(root, { recursive: true });
    },
  };
}

function container(name: string, cpu: [string, string], mem: [string, string]): V1Container {
  return {
    name,
    image: "busybox:1.36",
    imagePullPolicy: "IfNotPresent",
    resources: {
      requests: { cpu: cpu[0], memory: mem[0] },
      limits: { cpu: cpu[1], memory: mem[1] },
    },
  };
}

function pod(...containers: V1Container[]): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: { nodeName: "node1", containers },
  };
}

async function sync(env: Env, p: V1Pod, rm = env.rm) {
  const status = await rm.getPodStatus("uid-1", "web", "default");
  return await rm.syncPod(p, status, {});
}

function ids(cri: FakeRuntime): Record<string, string> {
  return Object.fromEntries(
    [...cri.containers.values()].filter((c) => c.status.state === "CONTAINER_RUNNING")
      .map((c) => [c.status.metadata.name, c.status.id]),
  );
}

const MI = 2 ** 20;

Deno.test("resize: growing widens the pod cgroup before the container, shrinking after", async () => {
  await using env = await setup();
  const small = pod(container("app", ["100m", "200m"], ["64Mi", "128Mi"]));
  assert.deepEqual((await sync(env, small)).errors, []);
  const before = ids(env.cri);
  env.steps.length = 0;

  const big = pod(container("app", ["200m", "400m"], ["128Mi", "256Mi"]));
  const grown = await sync(env, big);
  assert.deepEqual(grown.errors, []);
  assert.equal(grown.resized, true);
  assert.deepEqual(env.steps, [
    `cgroup memory.limit_in_bytes=${256 * MI}`,
    `update app shares=102 quota=20000 memory=${256 * MI}`,
    "cgroup cpu.cfs_period_us=100000",
    "cgroup cpu.cfs_quota_us=40000",
    "cgroup cpu.shares=204",
    `update app shares=204 quota=40000 memory=${256 * MI}`,
  ]);
  assert.deepEqual(ids(env.cri), before, "same container, not restarted");
  assert.deepEqual(env.actuated.container("uid-1", "app"), {
    requests: { cpu: "200m", memory: "128Mi" },
    limits: { cpu: "400m", memory: "256Mi" },
  });
  // The runtime reports what it applied; the memory request comes from the actuated state.
  const status = await env.rm.getPodStatus("uid-1", "web", "default");
  assert.deepEqual(status.containers[0].resources, {
    cpuRequest: "200m",
    cpuLimit: "400m",
    memoryLimit: "256Mi",
    memoryRequest: "128Mi",
  });
  assert.equal(env.rm.resizeInProgress(big, status), false);

  env.steps.length = 0;
  assert.deepEqual((await sync(env, big)).errors, []);
  assert.deepEqual(env.steps, [], "applied once");

  await Deno.writeTextFile(`${env.root}/memory/${POD_CG}/memory.usage_in_bytes`, `${10 * MI}`);
  assert.deepEqual((await sync(env, small)).errors, []);
  assert.deepEqual(env.steps, [
    `update app shares=204 quota=40000 memory=${128 * MI}`,
    `cgroup memory.limit_in_bytes=${128 * MI}`,
    `update app shares=102 quota=20000 memory=${128 * MI}`,
    "cgroup cpu.shares=102",
    "cgroup cpu.cfs_period_us=100000",
    "cgroup cpu.cfs_quota_us=20000",
  ]);
  assert.deepEqual(ids(env.cri), before);
});

Deno.test("resize: a memory limit below what is in use is refused before anything changes", async () => {
  await using env = await setup();
  await sync(env, pod(container("app", ["100m", "200m"], ["64Mi", "128Mi"])));
  const id = ids(env.cri).app;
  await Deno.writeTextFile(`${env.root}/memory/${POD_CG}/memory.usage_in_bytes`, `${100 * MI}`);
  env.cri.memoryUsage.set(id, 90 * MI);
  env.steps.length = 0;
  const smaller = pod(container("app", ["100m", "200m"], ["32Mi", "64Mi"]));
  const result = await sync(env, smaller);
  assert.equal(
    result.resizeError,
    `cannot decrease memory limits: [attempting to set pod memory limit (${64 * MI}) below ` +
      `current usage (${100 * MI}), attempting to set container "app" memory limit ` +
      `(${64 * MI}) below current usage (${90 * MI})]`,
  );
  assert.deepEqual(env.steps, []);
  const status = await env.rm.getPodStatus("uid-1", "web", "default");
  assert.equal(env.rm.resizeInProgress(smaller, status), true, "still to be applied");
});

Deno.test("resize: RestartContainer restarts that container only, the pod cgroup first", async () => {
  await using env = await setup();
  const restarting = (c: V1Container): V1Container => ({
    ...c,
    resizePolicy: [{ resourceName: "cpu", restartPolicy: "RestartContainer" }],
  });
  await sync(
    env,
    pod(
      restarting(container("a", ["100m", "200m"], ["64Mi", "128Mi"])),
      container("b", ["100m", "200m"], ["64Mi", "128Mi"]),
    ),
  );
  const before = ids(env.cri);
  env.steps.length = 0;
  const mark = env.cri.calls.length;
  const resized = pod(
    restarting(container("a", ["300m", "600m"], ["64Mi", "128Mi"])),
    container("b", ["100m", "200m"], ["64Mi", "128Mi"]),
  );
  assert.deepEqual((await sync(env, resized)).errors, []);
  const after = ids(env.cri);
  assert.notEqual(after.a, before.a, "a restarted");
  assert.equal(after.b, before.b, "b kept");
  const writes = env.cri.calls.slice(mark).map((c) => c.method)
    .filter((m) =>
      !["listPodSandbox", "listContainers", "podSandboxStatus", "containerStatus", "imageStatus"]
        .includes(m)
    );
  assert.deepEqual(writes, [
    "stopContainer",
    "updatePodSandboxResources",
    "updatePodSandboxResources",
    "createContainer",
    "startContainer",
  ]);
  assert.deepEqual(env.steps, [
    "cgroup cpu.cfs_period_us=100000",
    "cgroup cpu.cfs_quota_us=80000",
    "cgroup cpu.shares=409",
  ]);
  const created = env.cri.containers.get(after.a)!.config.linux?.resources;
  assert.equal(created?.cpuQuota, 60000);
});

Deno.test("resize: a new manager (an agent restart) carries on from the actuated state", async () => {
  await using env = await setup();
  await sync(env, pod(container("app", ["100m", "200m"], ["64Mi", "128Mi"])));
  const second = await env.newManager();
  env.steps.length = 0;
  const big = pod(container("app", ["200m", "200m"], ["64Mi", "128Mi"]));
  assert.deepEqual((await sync(env, big, second)).errors, []);
  assert.deepEqual(env.steps, [
    "cgroup cpu.shares=204",
    `update app shares=204 quota=20000 memory=${128 * MI}`,
  ]);
});

Deno.test("resize: pod-level resources resize the pod cgroup and the containers that use them", async () => {
  await using env = await setup();
  const withPodLevel = (cpu: string): V1Pod => ({
    ...pod({ name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" }),
    spec: {
      nodeName: "node1",
      resources: {
        requests: { cpu: "200m", memory: "64Mi" },
        limits: { cpu, memory: "128Mi" },
      },
      containers: [{ name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" }],
    },
  });
  assert.deepEqual((await sync(env, withPodLevel("400m"))).errors, []);
  const before = ids(env.cri);
  env.steps.length = 0;
  assert.deepEqual((await sync(env, withPodLevel("800m"))).errors, []);
  assert.deepEqual(env.steps, [
    "cgroup cpu.cfs_period_us=100000",
    "cgroup cpu.cfs_quota_us=80000",
    // The container has no limit of its own: it runs with the pod's.
    `update app shares=2 quota=80000 memory=${128 * MI}`,
  ]);
  assert.deepEqual(ids(env.cri), before);
  assert.deepEqual(env.actuated.podLevel("uid-1"), {
    requests: { cpu: "200m", memory: "64Mi" },
    limits: { cpu: "800m", memory: "128Mi" },
  });
  env.steps.length = 0;
  assert.deepEqual((await sync(env, withPodLevel("800m"))).errors, []);
  assert.deepEqual(env.steps, []);
});
