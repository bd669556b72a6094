/**
 * What pods may use, enforced in cgroups on the real containerd through a real agent: the pod's
 * pids.max (--pod-max-pids), kubepods sized to the node allocatable and the reserved cgroups
 * limited (--enforce-node-allocatable). cgroup v1 files (this machine); v2 paths have unit tests.
 */
import assert from "node:assert/strict";
import { cpus, totalmem } from "node:os";
import type { V1Node } from "@kubernetes/client-node";
import { freePort, startAgent, waitFor } from "../support/agent.ts";
import { quantityValue } from "../../src/util/quantity.ts";
import { E2E_TEST, isRunning, pathExists, setupE2E, shellPod } from "./_helpers.ts";
import { nodeApiArgs, nodeApiGet } from "./_node_api.ts";

const CG = "/sys/fs/cgroup";
const V2 = await pathExists(`${CG}/cgroup.controllers`);
const read = (p: string) => Deno.readTextFile(p).then((s) => s.trim());

Deno.test({
  name: "--pod-max-pids: a pod cannot fork past its pids.max",
  ...E2E_TEST,
  ignore: V2,
  async fn() {
    const e2e = await setupE2E({ extraArgs: ["--pod-max-pids=16"] });
    try {
      await e2e.writePod(
        "pids.yaml",
        // The forks run in a subshell: the one that fails ends it, not the container.
        shellPod("pids", "(for i in $(seq 40); do sleep 3600 & done); sleep 3600"),
      );
      const pod = await e2e.waitPod("pids", isRunning, { what: "pod pids to run" });
      const dir = `${CG}/pids/denolet-e2e/${e2e.agent.hostname}/kubepods/besteffort/pod${
        pod.metadata!.uid
      }`;
      assert.equal(await read(`${dir}/pids.max`), "16");
      // 40 forks fit the node, not the pod (the pause process counts too): the shell says so.
      await e2e.waitLog(pod, "main", ["can't fork"]);
      // The sleeps that did start stay: well over ten of the 40, never more than the limit.
      const current = Number(await read(`${dir}/pids.current`));
      assert.ok(current > 10 && current <= 16, `pids.current ${current}`);
    } finally {
      await e2e.close();
    }
  },
});

const MI = 2 ** 20;
const PAGE = 4096;

/** The node's task limit, as upstream's pidlimit.Stats reads it. */
async function taskMax(): Promise<number> {
  const [a, b] = await Promise.all(
    ["pid_max", "threads-max"].map((f) => read(`/proc/sys/kernel/${f}`).then(Number)),
  );
  return Math.min(a, b);
}

Deno.test({
  name: "kubepods is sized to capacity less --kube-reserved and --system-reserved",
  ...E2E_TEST,
  ignore: V2,
  async fn() {
    const e2e = await setupE2E({
      extraArgs: [
        "--kube-reserved=cpu=500m,memory=1Gi,pid=100",
        "--system-reserved=memory=512Mi",
      ],
    });
    try {
      await e2e.writePod("alloc.yaml", shellPod("alloc", "sleep 3600"));
      await e2e.waitPod("alloc", isRunning, { what: "pod alloc to run" });
      const kubepods = `denolet-e2e/${e2e.agent.hostname}/kubepods`;
      const memory = totalmem() - 1536 * MI;
      assert.equal(
        Number(await read(`${CG}/memory/${kubepods}/memory.limit_in_bytes`)),
        Math.floor(memory / PAGE) * PAGE,
      );
      assert.equal(
        await read(`${CG}/cpu/${kubepods}/cpu.shares`),
        `${Math.floor((cpus().length * 1000 - 500) * 1024 / 1000)}`,
      );
      assert.equal(Number(await read(`${CG}/pids/${kubepods}/pids.max`)), await taskMax() - 100);
    } finally {
      await e2e.close();
    }
  },
});

/** The v1 hierarchies upstream's Validate looks at. */
const RESERVED_HIERARCHIES = ["cpu", "cpuacct", "cpuset", "memory", "systemd", "pids"];

Deno.test({
  name:
    "--enforce-node-allocatable=kube-reserved limits --kube-reserved-cgroup; a missing one stops the start",
  ...E2E_TEST,
  ignore: V2,
  async fn() {
    const name = `/denolet-e2e-kube-reserved-${crypto.randomUUID().slice(0, 8)}`;
    const args = [
      "--enforce-node-allocatable=pods,kube-reserved",
      `--kube-reserved-cgroup=${name}`,
      "--kube-reserved=cpu=200m,memory=300Mi,pid=500",
    ];
    // Without the cgroup the agent stops, as the kubelet does, saying why.
    const failing = await startAgent({ extraArgs: args });
    try {
      const status = await failing.exited;
      assert.equal(status.code, 1);
      const log = (await failing.logTail()).replaceAll('\\"', '"'); // the log escapes quotes
      const cgroupName = `["${name.slice(1)}"]`;
      const expected = `Failed to enforce Kube Reserved Cgroup Limits on "${name}": cgroup ` +
        `${cgroupName} has some missing paths: ${CG}/cpu${name}, `;
      assert.ok(log.includes(expected), log);
    } finally {
      await failing[Symbol.asyncDispose]();
    }

    for (const h of RESERVED_HIERARCHIES) await Deno.mkdir(`${CG}/${h}${name}`);
    try {
      const e2e = await setupE2E({ extraArgs: args });
      try {
        assert.equal(await read(`${CG}/cpu${name}/cpu.shares`), "204");
        assert.equal(await read(`${CG}/memory${name}/memory.limit_in_bytes`), `${300 * MI}`);
        assert.equal(await read(`${CG}/pids${name}/pids.max`), "500");
      } finally {
        await e2e.close();
      }
    } finally {
      for (const h of RESERVED_HIERARCHIES) {
        await Deno.remove(`${CG}/${h}${name}`).catch((err) => console.error(err));
      }
    }
  },
});

Deno.test({
  name: "pod-level resources: the pod's cgroup, its containers' limits and the QoS class",
  ...E2E_TEST,
  ignore: V2,
  async fn() {
    const e2e = await setupE2E();
    try {
      await e2e.writePod(
        "plr-b.yaml",
        shellPod("plr-b", "sleep 3600", {
          resources: {
            requests: { cpu: "250m", memory: "64Mi" },
            limits: { cpu: "500m", memory: "128Mi" },
          },
        }),
      );
      const whole = { cpu: "100m", memory: "32Mi" };
      await e2e.writePod(
        "plr-g.yaml",
        shellPod("plr-g", "sleep 3600", { resources: { requests: whole, limits: whole } }),
      );
      const burstable = await e2e.waitPod("plr-b", isRunning, { what: "pod plr-b to run" });
      const guaranteed = await e2e.waitPod("plr-g", isRunning, { what: "pod plr-g to run" });
      assert.equal(burstable.status?.qosClass, "Burstable");
      assert.equal(guaranteed.status?.qosClass, "Guaranteed");

      const kubepods = `denolet-e2e/${e2e.agent.hostname}/kubepods`;
      const podB = `${kubepods}/burstable/pod${burstable.metadata!.uid}`;
      assert.equal(await read(`${CG}/cpu/${podB}/cpu.shares`), "256");
      assert.equal(await read(`${CG}/cpu/${podB}/cpu.cfs_quota_us`), "50000");
      assert.equal(await read(`${CG}/memory/${podB}/memory.limit_in_bytes`), `${128 * MI}`);
      // The container, without limits of its own, runs with the pod's.
      const [ctr] = await e2e.cri.runtime.listContainers({
        labelSelector: { "io.kubernetes.pod.uid": burstable.metadata!.uid! },
      });
      assert.equal(
        await read(`${CG}/memory/${podB}/${ctr.id}/memory.limit_in_bytes`),
        `${128 * MI}`,
      );
      assert.equal(await read(`${CG}/cpu/${podB}/${ctr.id}/cpu.cfs_quota_us`), "50000");
      assert.equal(await read(`${CG}/cpu/${podB}/${ctr.id}/cpu.shares`), "512");

      const podG = `${kubepods}/pod${guaranteed.metadata!.uid}`;
      assert.equal(await read(`${CG}/memory/${podG}/memory.limit_in_bytes`), `${32 * MI}`);
      assert.equal(await read(`${CG}/cpu/${podG}/cpu.cfs_quota_us`), "10000");
    } finally {
      await e2e.close();
    }
  },
});

const NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages";

// The dev containerd runs with disable_hugetlb_controller (its default) on a host whose v1
// hierarchies have no hugetlb, so the CRI hugepage limits stop there: unit tests check them.
Deno.test({
  name:
    "hugepages: node capacity from /sys, taken off allocatable memory; a pod asking for them runs",
  ...E2E_TEST,
  ignore: V2,
  async fn() {
    // Two 2 MiB pages for the test's lifetime, given back after (other agents may read them).
    const before = await read(NR_HUGEPAGES);
    await Deno.writeTextFile(NR_HUGEPAGES, `${Number(before) + 2}`);
    try {
      const pages = Number(await read(`/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages`));
      // /node is on the authenticated port only.
      const apiPort = freePort();
      const e2e = await setupE2E({ extraArgs: nodeApiArgs(apiPort) });
      try {
        const node = await (await nodeApiGet(e2e.agent, apiPort, "/node")).json() as V1Node;
        assert.equal(node.status?.capacity?.["hugepages-2Mi"], `${pages * 2}Mi`);
        assert.equal(node.status?.allocatable?.["hugepages-2Mi"], `${pages * 2}Mi`);
        assert.equal(node.status?.capacity?.["hugepages-1Gi"], "0");
        // Less the default hard eviction threshold (100Mi) and the pages set aside.
        assert.equal(
          quantityValue(node.status!.allocatable!.memory),
          quantityValue(node.status!.capacity!.memory) - 100 * MI - pages * 2 * MI,
        );

        const huge = { memory: "64Mi", "hugepages-2Mi": "2Mi" };
        const hugePod = shellPod("huge", "grep ' /hp ' /proc/mounts; sleep 3600", {
          resources: { requests: { cpu: "100m", ...huge }, limits: huge },
          volumes: [{ name: "hp", emptyDir: { medium: "HugePages" } }],
        });
        hugePod.spec!.containers[0].volumeMounts = [{ name: "hp", mountPath: "/hp" }];
        await e2e.writePod("huge.yaml", hugePod);
        const pod = await e2e.waitPod("huge", isRunning, { what: "pod huge to run" });
        assert.equal(pod.status?.qosClass, "Burstable");
        // The emptyDir is a hugetlbfs of the pod's page size.
        const mounts = await e2e.waitLog(pod, "main", ["hugetlbfs"]);
        assert.match(mounts, /nodev \/hp hugetlbfs [^ ]*pagesize=2M/);
        // Gone with the pod: the agent unmounts it (a stopped agent leaves pods' mounts).
        await e2e.removeManifest("huge.yaml");
        const mountOf = pod.metadata!.uid!;
        await waitFor(
          async () => !(await Deno.readTextFile("/proc/mounts")).includes(mountOf) || undefined,
          { timeoutMs: 60_000, what: "the pod's hugetlbfs to be unmounted" },
        );
      } finally {
        await e2e.close();
      }
    } finally {
      await Deno.writeTextFile(NR_HUGEPAGES, before);
    }
  },
});

// containerd makes the same default itself (swap = limit when the CRI names none), so this
// guards the outcome rather than telling the agent's value apart; unit tests check the value.
Deno.test({
  name: "swap: NoSwap on cgroup v1 ties a container's memory+swap limit to its memory limit",
  ...E2E_TEST,
  ignore: V2 || !(await pathExists(`${CG}/memory/memory.memsw.limit_in_bytes`)),
  async fn() {
    const e2e = await setupE2E();
    try {
      await e2e.writePod(
        "noswap.yaml",
        shellPod("noswap", "sleep 3600", {
          containers: [{
            name: "main",
            image: "denolet.test/busybox:1.35",
            command: ["sleep", "3600"],
            resources: { requests: { memory: "32Mi" }, limits: { memory: "64Mi" } },
          }],
        }),
      );
      const pod = await e2e.waitPod("noswap", isRunning, { what: "pod noswap to run" });
      const [ctr] = await e2e.cri.runtime.listContainers({
        labelSelector: { "io.kubernetes.pod.uid": pod.metadata!.uid! },
      });
      const dir = `${CG}/memory/denolet-e2e/${e2e.agent.hostname}/kubepods/burstable/pod${
        pod.metadata!.uid
      }/${ctr.id}`;
      assert.equal(await read(`${dir}/memory.limit_in_bytes`), `${64 * MI}`);
      assert.equal(await read(`${dir}/memory.memsw.limit_in_bytes`), `${64 * MI}`);
    } finally {
      await e2e.close();
    }
  },
});
