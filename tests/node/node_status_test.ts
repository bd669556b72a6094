import assert from "node:assert/strict";
import { createNodeStatusProvider, readMachineInfo } from "../../src/node/mod.ts";
import { parseThresholdConfig } from "../../src/eviction/mod.ts";
import { createNodeApiHandler } from "../../src/server/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { fakeDeps } from "../server/_fakes.ts";

async function fixtureRoot(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "denolet-node-test-" });
  const files: Record<string, string> = {
    "proc/cpuinfo": "processor\t: 0\nmodel name\t: x\n\nprocessor\t: 1\nmodel name\t: x\n",
    "proc/meminfo": "MemTotal:        2048000 kB\nMemFree:  100 kB\n",
    "proc/sys/kernel/random/boot_id": "b00t-1\n",
    "proc/sys/kernel/osrelease": "6.1.0-test\n",
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
    const provider = createNodeStatusProvider({
      nodeName: "edge-1",
      hostname: "edge-1",
      nodeIPs: ["10.0.0.5"],
      clock,
      logger: nullLogger,
      agentVersion: "0.1.0",
      port: 10250,
      readinessErrors: () => errors,
      runtimeVersion: () => Promise.resolve("containerd://1.6.20"),
      nodeFsCapacityBytes: () => 100 * 2 ** 30,
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
      roots: roots(root),
    });
    const node = await provider.node();
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
    assert.equal(node.status?.allocatable?.memory, "1900Mi");
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
    const notReady = (await provider.node()).status?.conditions?.at(-1);
    assert.equal(notReady?.status, "False");
    assert.equal(notReady?.reason, "KubeletNotReady");
    assert.equal(notReady?.message, "[container runtime is down, PLEG is not healthy]");
    assert.equal(notReady?.lastTransitionTime?.getTime(), clock.now());

    const handler = createNodeApiHandler(fakeDeps({ node: (o) => provider.node(o) }));
    const res = await handler(new Request("http://x/node"));
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.status.conditions[0].type, "MemoryPressure");
    assert.match(body.status.conditions[0].lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("/node is 404 when the node status is not wired", async () => {
  const res = await createNodeApiHandler(fakeDeps())(new Request("http://x/node"));
  assert.equal(res.status, 404);
  await res.body?.cancel();
});
