import assert from "node:assert/strict";
import {
  createNodeStatusProvider,
  type NodeStatusDeps,
  readMachineInfo,
} from "../../src/node/mod.ts";
import type { Image } from "../../src/cri/types.ts";
import { parseThresholdConfig } from "../../src/eviction/mod.ts";
import { createNodeApiHandler } from "../../src/server/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { fakeDeps } from "../server/_fakes.ts";
import { RuntimeState } from "../../src/kubelet/mod.ts";
import { statusUpdate } from "../../src/node/_node_patch.ts";
import { statusDeps } from "./_status_deps.ts";

async function fixtureRoot(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "denolet-node-test-" });
  const files: Record<string, string> = {
    "proc/cpuinfo": "processor\t: 0\nmodel name\t: x\n\nprocessor\t: 1\nmodel name\t: x\n",
    "proc/meminfo": "MemTotal:        2048000 kB\nMemFree:  100 kB\n",
    "proc/sys/kernel/random/boot_id": "b00t-1\n",
    "proc/sys/kernel/osrelease": "6.1.0-test\n",
    "proc/sys/kernel/pid_max": "4194304\n",
    "proc/sys/kernel/threads-max": "95000\n",
    "etc/machine-id": "m4ch1ne\n",
    "etc/os-release": 'NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
    "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages": "4\n",
    "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages": "0\n",
  };
  for (const [path, text] of Object.entries(files)) {
    const full = `${root}/${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(full, text);
  }
  return root;
}

const roots = (root: string) => ({ proc: `${root}/proc`, sys: `${root}/sys`, etc: `${root}/etc` });

Deno.test("machine info is read from /proc, /sys and /etc; missing files leave blanks", async () => {
  const root = await fixtureRoot();
  try {
    const info = await readMachineInfo(roots(root));
    assert.deepEqual(info, {
      cpus: 2,
      memoryBytes: 2048000 * 1024,
      swapBytes: 0,
      maxPids: 95000,
      hugePages: [{ sizeKiB: 2048, bytes: 4 * 2048 * 1024 }, { sizeKiB: 1048576, bytes: 0 }],
      machineID: "m4ch1ne",
      systemUUID: "",
      bootID: "b00t-1",
      kernelVersion: "6.1.0-test",
      osImage: "Debian GNU/Linux 12 (bookworm)",
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the Node has conditions, capacity, allocatable minus hard eviction, and nodeInfo", async () => {
  const root = await fixtureRoot();
  const clock = new FakeClock();
  let errors: string[] = [];
  try {
    const p = provider(root, {
      clock,
      readinessErrors: () => errors,
      runtimeVersion: () => Promise.resolve("containerd://1.6.20"),
      hardThresholds: parseThresholdConfig({
        hard: { "memory.available": "100Mi", "nodefs.available": "10%" },
      }),
      pressureConditions: () => [{
        type: "MemoryPressure",
        status: "True",
        reason: "KubeletHasInsufficientMemory",
        message: "kubelet has insufficient memory available",
        lastTransitionTime: clock.now() - 5000,
      }],
    });
    const node = await p.node();
    assert.equal(node.kind, "Node");
    assert.equal(node.metadata?.name, "edge-1");
    assert.equal(node.metadata?.labels?.["kubernetes.io/os"], "linux");
    assert.deepEqual(node.status?.capacity, {
      cpu: "2",
      "ephemeral-storage": "100Gi",
      "hugepages-1Gi": "0",
      "hugepages-2Mi": "8Mi",
      memory: "2000Mi",
      pods: "110",
    });
    // 2000Mi - 100Mi (memory.available) - 8Mi of huge pages.
    assert.equal(node.status?.allocatable?.memory, "1892Mi");
    assert.equal(node.status?.allocatable?.["ephemeral-storage"], "96636764000"); // 100Gi - float32 10%
    assert.deepEqual(node.status?.conditions?.map((c) => [c.type, c.status, c.reason]), [
      ["MemoryPressure", "True", "KubeletHasInsufficientMemory"],
      ["Ready", "True", "KubeletReady"],
    ]);
    assert.deepEqual(node.status?.addresses, [
      { type: "InternalIP", address: "10.0.0.5" },
      { type: "Hostname", address: "edge-1" },
    ]);
    assert.equal(node.status?.nodeInfo?.containerRuntimeVersion, "containerd://1.6.20");
    assert.equal(node.status?.nodeInfo?.kubeletVersion, "v0.1.0");
    assert.equal(node.status?.nodeInfo?.bootID, "b00t-1");

    errors = ["container runtime is down", "PLEG is not healthy"];
    await clock.advance(1000);
    const notReady = (await p.node()).status?.conditions?.at(-1);
    assert.equal(notReady?.status, "False");
    assert.equal(notReady?.reason, "KubeletNotReady");
    assert.equal(notReady?.message, "[container runtime is down, PLEG is not healthy]");
    assert.equal(notReady?.lastTransitionTime?.getTime(), clock.now());

    const handler = createNodeApiHandler(fakeDeps({ node: (o) => p.node(o) }), {
      authenticated: true,
    });
    const res = await handler(new Request("http://x/node"));
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.status.conditions[0].type, "MemoryPressure");
    assert.match(body.status.conditions[0].lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

function provider(root: string, over: Partial<NodeStatusDeps> = {}) {
  return createNodeStatusProvider(
    statusDeps({ nodeFsCapacityBytes: () => 100 * 2 ** 30, roots: roots(root), ...over }),
  );
}

Deno.test("allocatable takes kube-reserved, system-reserved and hard eviction off capacity", async () => {
  const root = await fixtureRoot();
  try {
    const node = await provider(root, {
      kubeReserved: { cpu: "100m", memory: "100Mi", pid: "1000" },
      systemReserved: { cpu: "0.15", memory: "50Mi", "ephemeral-storage": "1Gi" },
      hardThresholds: parseThresholdConfig({
        hard: { "memory.available": "100Mi", "nodefs.available": "10Gi" },
      }),
    }).node();
    assert.equal(node.status?.capacity?.cpu, "2");
    assert.deepEqual(node.status?.allocatable, {
      cpu: "1750m",
      "ephemeral-storage": "89Gi",
      "hugepages-1Gi": "0",
      "hugepages-2Mi": "8Mi",
      memory: "1742Mi", // 2000Mi - 100Mi - 50Mi - 100Mi - 8Mi
      pods: "110",
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("reservations larger than capacity leave zero, not a negative allocatable", async () => {
  const root = await fixtureRoot();
  try {
    const node = await provider(root, { kubeReserved: { cpu: "3", memory: "4Gi" } }).node();
    assert.equal(node.status?.allocatable?.cpu, "0");
    assert.equal(node.status?.allocatable?.memory, "0");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("--node-labels join and override the default labels; taints are the spec's", async () => {
  const root = await fixtureRoot();
  try {
    const node = await provider(root, {
      nodeLabels: { "denolet.test/role": "edge", "kubernetes.io/hostname": "other" },
      taints: [{ key: "dedicated", value: "edge", effect: "NoSchedule" }, {
        key: "x",
        effect: "NoExecute",
      }],
    }).node();
    assert.equal(node.metadata?.labels?.["denolet.test/role"], "edge");
    assert.equal(node.metadata?.labels?.["kubernetes.io/hostname"], "other");
    assert.equal(node.metadata?.labels?.["kubernetes.io/os"], "linux");
    assert.ok(node.metadata?.labels?.["kubernetes.io/arch"]);
    assert.deepEqual(node.spec?.taints, [
      { key: "dedicated", value: "edge", effect: "NoSchedule" },
      { key: "x", effect: "NoExecute" },
    ]);
    const plain = await provider(root).node();
    assert.equal(plain.spec?.taints, undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("images: largest first, capped, five names each, listed again only after 30 s", async () => {
  const root = await fixtureRoot();
  const clock = new FakeClock();
  let calls = 0;
  const image = (id: string, size: number, tags: string[] = [`${id}:1`]): Image => ({
    id,
    size,
    repoTags: tags,
    repoDigests: [`${id}@sha256:1`],
  });
  let list = [
    image("small", 10),
    image("big", 300, ["big:1", "big:2", "big:3", "big:4", "big:5"]),
    image("mid-a", 200),
    image("mid-b", 200),
  ];
  try {
    const p = provider(root, {
      clock,
      maxImages: 3,
      listImages: () => {
        calls++;
        return Promise.resolve(list);
      },
    });
    const node = await p.node();
    assert.deepEqual(node.status?.images, [
      { names: ["big@sha256:1", "big:1", "big:2", "big:3", "big:4"], sizeBytes: 300 },
      { names: ["mid-b@sha256:1", "mid-b:1"], sizeBytes: 200 },
      { names: ["mid-a@sha256:1", "mid-a:1"], sizeBytes: 200 },
    ]);
    list = [image("new", 5)];
    await clock.advance(29_000);
    assert.equal((await p.node()).status?.images?.length, 3);
    assert.equal(calls, 1);
    await clock.advance(1_000);
    assert.deepEqual((await p.node()).status?.images, [
      { names: ["new@sha256:1", "new:1"], sizeBytes: 5 },
    ]);
    assert.equal(p.lastNode()?.status?.images?.length, 1);
    const all = await provider(root, { maxImages: -1, listImages: () => Promise.resolve(list) })
      .node();
    assert.equal(all.status?.images?.length, 1);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a Node without an ephemeral-storage capacity is not Ready, as upstream", async () => {
  const root = await fixtureRoot();
  try {
    const node = await provider(root, { nodeFsCapacityBytes: () => undefined }).node();
    const ready = node.status?.conditions?.find((c) => c.type === "Ready");
    assert.equal(ready?.status, "False");
    assert.equal(ready?.message, "missing node capacity for resources: ephemeral-storage");
    const failing = await provider(root, {
      nodeFsCapacityBytes: () => Promise.reject(new Error("statfs failed")),
    }).node();
    assert.equal(failing.status?.capacity?.["ephemeral-storage"], undefined);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("/node is 404 when the node status is not wired", async () => {
  const res = await createNodeApiHandler(fakeDeps(), { authenticated: true })(
    new Request("http://x/node"),
  );
  assert.equal(res.status, 404);
  await res.body?.cancel();
});

Deno.test("runtime handlers and features come from CRI Status; a runtime that lists none sets neither", async () => {
  const root = await fixtureRoot();
  try {
    const state = new RuntimeState();
    const p = provider(root, { runtime: () => state.capabilities });
    const before = await p.node();
    assert.equal(before.status?.runtimeHandlers, undefined);
    assert.equal(before.status?.features, undefined);
    state.updateStatus({
      runtimeHandlers: [
        { name: "", features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
        { name: "runc", features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
      ],
      features: {
        supplementalGroupsPolicy: true,
        userNamespacesHostNetwork: false,
        mountOptions: false,
      },
    });
    const node = await p.node();
    assert.deepEqual(node.status?.runtimeHandlers, [
      { name: "", features: { recursiveReadOnlyMounts: true, userNamespaces: true } },
      { name: "runc", features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
    ]);
    assert.deepEqual(node.status?.features, { supplementalGroupsPolicy: true });
    // The patch carries them while they differ from the API server's Node, and flags a change.
    const { changed, patch } = statusUpdate(before, node, 0);
    assert.ok(changed);
    const status = (patch as { status: Record<string, unknown> }).status;
    assert.deepEqual(status.runtimeHandlers, node.status?.runtimeHandlers);
    assert.equal(statusUpdate(node, node, 0).changed, false);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("without local storage isolation the Node reports no ephemeral-storage and is still Ready", async () => {
  const root = await fixtureRoot();
  try {
    const node = await provider(root, { localStorageCapacityIsolation: false }).node();
    assert.equal(node.status?.capacity?.["ephemeral-storage"], undefined);
    assert.equal(node.status?.allocatable?.["ephemeral-storage"], undefined);
    const ready = node.status?.conditions?.find((c) => c.type === "Ready");
    assert.equal(ready?.status, "True", ready?.message);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a node with swap reports its capacity in nodeInfo.swap (NodeSwap); one without, none", async () => {
  const root = await fixtureRoot();
  try {
    const none = await provider(root).node();
    assert.equal(none.status?.nodeInfo?.swap, undefined);
    await Deno.writeTextFile(
      `${root}/proc/meminfo`,
      "MemTotal:        2048000 kB\nSwapTotal:       1048572 kB\n",
    );
    const node = await provider(root).node();
    assert.deepEqual(node.status?.nodeInfo?.swap, { capacity: 1048572 * 1024 });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("a dual-stack node reports both InternalIP addresses, primary first; kubeletVersion as given", async () => {
  const root = await fixtureRoot();
  try {
    const node = await provider(root, {
      nodeIPs: ["10.0.0.5", "fd00::5"],
      agentVersion: "v1.37.2+denolet.0.1.0",
    }).node();
    assert.deepEqual(node.status?.addresses, [
      { type: "InternalIP", address: "10.0.0.5" },
      { type: "InternalIP", address: "fd00::5" },
      { type: "Hostname", address: "edge-1" },
    ]);
    assert.equal(node.status?.nodeInfo?.kubeletVersion, "v1.37.2+denolet.0.1.0");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
