/**
 * Pod cgroups on the real containerd (cgroupfs driver): the runtime manager, given PodCgroups,
 * creates kubepods/burstable/pod<uid> with the upstream values, the sandbox and containers land
 * under it, oom_score_adj follows the QoS class, and the cgroup goes with the pod.
 *
 * A private --cgroup-root keeps this suite's kubepods apart from other agents on the machine.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { totalmem } from "node:os";
import { openPodCgroups } from "../../src/cm/mod.ts";
import { createCriClient } from "../../src/cri/mod.ts";
import { createRuntimeManager } from "../../src/runtime/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { createVolumeManager } from "../../src/volumes/mod.ts";
import { waitFor } from "../support/agent.ts";
import { daemonPid, ensureContainerd } from "../support/containerd.ts";
import { BUSYBOX, E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";

const CG = "/sys/fs/cgroup";
const MI = 1024 * 1024;

function busyboxPod(
  node: string,
  uid: string,
  cpu: [string, string],
  mem: [string, string],
): V1Pod {
  return {
    metadata: { name: `cg-${uid.slice(0, 8)}`, namespace: "default", uid },
    spec: {
      nodeName: node,
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 1,
      containers: [{
        name: "sleeper",
        image: BUSYBOX,
        imagePullPolicy: "Never",
        command: ["sleep", "3600"],
        resources: {
          requests: { cpu: cpu[0], memory: mem[0] },
          limits: { cpu: cpu[1], memory: mem[1] },
        },
      }],
    },
  };
}

const read = (p: string) => Deno.readTextFile(p).then((s) => s.trim());
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

Deno.test({
  name: "pod cgroups on containerd: limits, nesting, oom_score_adj, removal",
  ...E2E_TEST,
  ignore: await exists(`${CG}/cgroup.controllers`), // this suite reads v1 files
  async fn() {
    const runtime = await ensureContainerd();
    const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
    const tag = crypto.randomUUID().slice(0, 8);
    const node = `cg-e2e-${tag}`;
    const cgroupRoot = `/denolet-e2e-${tag}`;
    const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-cg-" });
    const cgroups = await openPodCgroups(
      { cgroupsPerQOS: true, cgroupRoot, cgroupDriver: "cgroupfs" },
      { logger: nullLogger },
    );
    const manager = createRuntimeManager({
      runtime: cri.runtime,
      image: cri.image,
      volumes: createVolumeManager({ rootDir: tmp, logger: nullLogger }),
      clock: realClock,
      logger: nullLogger,
      nodeName: node,
      podLogsDir: `${tmp}/pods`,
      sandboxOptions: {
        podLogsDir: `${tmp}/pods`,
        clusterDNS: [],
        clusterDomain: "",
        hostDNS: { servers: [], searches: [], options: [] },
      },
      podCgroups: cgroups,
    });
    const burstable = busyboxPod(node, crypto.randomUUID(), ["250m", "500m"], ["64Mi", "128Mi"]);
    const guaranteed = busyboxPod(node, crypto.randomUUID(), ["100m", "100m"], ["32Mi", "32Mi"]);
    const uidB = burstable.metadata!.uid!;
    const uidG = guaranteed.metadata!.uid!;
    const podB = `${cgroupRoot}/kubepods/burstable/pod${uidB}`;
    const podG = `${cgroupRoot}/kubepods/pod${uidG}`;
    try {
      for (const pod of [burstable, guaranteed]) {
        const uid = pod.metadata!.uid!;
        const status = await manager.getPodStatus(uid, pod.metadata!.name!, "default");
        const r = await manager.syncPod(pod, status, {});
        assert.deepEqual(r.errors, []);
      }
      // Upstream values: shares from requests, quota and memory from limits.
      assert.equal(await read(`${CG}/cpu/${podB}/cpu.shares`), "256");
      assert.equal(await read(`${CG}/cpu/${podB}/cpu.cfs_quota_us`), "50000");
      assert.equal(await read(`${CG}/cpu/${podB}/cpu.cfs_period_us`), "100000");
      assert.equal(await read(`${CG}/memory/${podB}/memory.limit_in_bytes`), `${128 * MI}`);
      assert.equal(await read(`${CG}/memory/${podG}/memory.limit_in_bytes`), `${32 * MI}`);
      assert.equal(await read(`${CG}/cpu/${podG}/cpu.cfs_quota_us`), "10000");
      assert.equal(await read(`${CG}/cpu/${cgroupRoot}/kubepods/besteffort/cpu.shares`), "2");
      assert.equal(await read(`${CG}/cpu/${cgroupRoot}/kubepods/burstable/cpu.shares`), "256");

      // The sandbox and the container each have a cgroup under the pod's, in every controller.
      const containers = await cri.runtime.listContainers({
        labelSelector: { "io.kubernetes.pod.uid": uidB },
      });
      assert.equal(containers.length, 1);
      const ctrDir = `${CG}/memory/${podB}/${containers[0].id}`;
      const pids = await waitFor(async () => {
        const procs = (await read(`${ctrDir}/cgroup.procs`).catch(() => "")).split("\n").filter((
          x,
        ) => x);
        return procs.length ? procs : undefined;
      }, { timeoutMs: 20_000, what: "the container's process in its cgroup" });
      for (const ctrl of ["cpu", "pids", "cpuset"]) {
        assert.ok(await exists(`${CG}/${ctrl}/${podB}/${containers[0].id}`), ctrl);
      }
      const sandboxes = await cri.runtime.listPodSandbox({
        labelSelector: { "io.kubernetes.pod.uid": uidB },
      });
      assert.ok(
        await exists(`${CG}/memory/${podB}/${sandboxes[0].id}`),
        "sandbox under the pod cgroup",
      );

      // Burstable: 1000 - 1000*request/capacity. containerd (restrict_oom_score_adj) never goes
      // below its own score, so Guaranteed's -997 becomes containerd's value.
      const burstAdj = 1000 - Math.floor(1000 * 64 * MI / totalmem());
      assert.equal(await read(`/proc/${pids[0]}/oom_score_adj`), `${Math.min(burstAdj, 999)}`);
      const gCtr =
        (await cri.runtime.listContainers({ labelSelector: { "io.kubernetes.pod.uid": uidG } }))[0];
      const gPid = await waitFor(async () => {
        const procs = (await read(`${CG}/memory/${podG}/${gCtr.id}/cgroup.procs`).catch(() => ""))
          .split("\n").filter((x) => x);
        return procs[0];
      }, { timeoutMs: 20_000, what: "the guaranteed container's process" });
      const containerdAdj = Number(await read(`/proc/${await daemonPid()}/oom_score_adj`));
      assert.equal(
        Number(await read(`/proc/${gPid}/oom_score_adj`)),
        Math.max(-997, containerdAdj),
      );

      // Gone with the pod: kill, remove, and the pod cgroup is removed in every hierarchy.
      for (const pod of [burstable, guaranteed]) {
        const running = (await manager.getPods({ all: true })).find((p) =>
          p.uid === pod.metadata!.uid
        );
        assert.ok(running);
        await manager.killPod(pod, running, { gracePeriodSeconds: 1 });
        await manager.removePod(running);
      }
      for (const ctrl of ["cpu", "memory", "pids", "cpuset", "systemd"]) {
        assert.ok(!(await exists(`${CG}/${ctrl}/${podB}`)), `${ctrl} burstable pod cgroup removed`);
        assert.ok(
          !(await exists(`${CG}/${ctrl}/${podG}`)),
          `${ctrl} guaranteed pod cgroup removed`,
        );
      }
      assert.equal(await read(`${CG}/cpu/${cgroupRoot}/kubepods/burstable/cpu.shares`), "2");
    } finally {
      const left = await cri.runtime.listPodSandbox({
        labelSelector: { "io.denolet.node-name": node },
      });
      for (const s of left) await cri.runtime.removePodSandbox(s.id);
      await cgroups.cleanupOrphans(new Set());
      // A busy leftover must not hide the test's own failure; report it instead.
      await removeCgroupRoot(cgroupRoot).catch((err) => console.error("cgroup cleanup:", err));
      cri.close();
      await Deno.remove(tmp, { recursive: true });
    }
  },
});

/** The cgroup hierarchies' directories: one per v1 controller mount, or the v2 mount itself. */
async function hierarchies(): Promise<string[]> {
  if (await exists(`${CG}/cgroup.controllers`)) return [CG];
  const out: string[] = [];
  for await (const h of Deno.readDir(CG)) {
    if (h.isDirectory && !h.isSymlink) out.push(`${CG}/${h.name}`);
  }
  return out;
}

/** mkdir of `rel` in every hierarchy, as another agent or runtime would make its pod cgroup. */
async function makeCgroup(rel: string): Promise<void> {
  for (const h of await hierarchies()) await Deno.mkdir(`${h}${rel}`, { recursive: true });
}

async function removeCgroup(rel: string): Promise<void> {
  for (const h of await hierarchies()) {
    await Deno.remove(`${h}${rel}`).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) console.error(`cgroup cleanup ${h}${rel}:`, err);
    });
  }
}

Deno.test({
  name: "pod cgroups: the agent removes only its own; a foreign pod cgroup is left alone, quietly",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    const kubepods = `/denolet-e2e/${e2e.agent.hostname}/kubepods`;
    // Another agent's (or runtime's) pods under the same kubepods tree: one holding a process
    // (a removal would fail with EBUSY on every housekeeping round), one empty.
    const busy = `${kubepods}/besteffort/pod${crypto.randomUUID()}`;
    const idle = `${kubepods}/burstable/pod${crypto.randomUUID()}`;
    let squatter: Deno.ChildProcess | undefined;
    try {
      await e2e.writePod("cg-own.yaml", shellPod("cg-own", "sleep 3600"));
      const own = await e2e.waitPod("cg-own", isRunning, { what: "pod cg-own to run" });
      const ownCgroup = `${kubepods}/besteffort/pod${own.metadata!.uid}`;
      assert.ok(await exists(`${(await hierarchies())[0]}${ownCgroup}`), "own pod cgroup made");

      await makeCgroup(busy);
      await makeCgroup(idle);
      squatter = new Deno.Command("sleep", { args: ["600"], stdout: "null", stderr: "null" })
        .spawn();
      const memory = (await hierarchies()).find((h) => h === CG || h.endsWith("/memory"))!;
      await Deno.writeTextFile(`${memory}${busy}/cgroup.procs`, `${squatter.pid}\n`);

      // Housekeeping runs every 2 s: five rounds or more.
      const logBefore = (await Deno.readTextFile(e2e.agent.logFile)).length;
      await realClock.sleep(10_000);
      const log = (await Deno.readTextFile(e2e.agent.logFile)).slice(logBefore);
      for (const rel of [busy, idle]) {
        for (const h of await hierarchies()) assert.ok(await exists(`${h}${rel}`), `${h}${rel}`);
      }
      const uids = [busy, idle].map((rel) => rel.slice(rel.lastIndexOf("/pod") + 4));
      const touching = log.split("\n").filter((l) => uids.some((u) => l.includes(u)));
      assert.deepEqual(touching, [], "the agent never logs about cgroups that are not its own");
      assert.doesNotMatch(log, /Cannot remove orphaned pod cgroup/);

      // Its own pod's cgroup still goes with the pod.
      await e2e.removeManifest("cg-own.yaml");
      await waitFor(async () => !(await exists(`${memory}${ownCgroup}`)) || undefined, {
        timeoutMs: 60_000,
        what: "the agent's own pod cgroup to be removed",
      });
    } finally {
      if (squatter) {
        squatter.kill("SIGKILL");
        await squatter.status;
      }
      await removeCgroup(busy);
      await removeCgroup(idle);
      await e2e.close();
    }
  },
});

/** Removes the suite's kubepods tree (empty by now) from every hierarchy. */
async function removeCgroupRoot(root: string): Promise<void> {
  for await (const h of Deno.readDir(CG)) {
    if (!h.isDirectory || h.isSymlink) continue;
    for (const sub of ["/kubepods/burstable", "/kubepods/besteffort", "/kubepods", ""]) {
      await Deno.remove(`${CG}/${h.name}${root}${sub}`).catch((err) => {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      });
    }
  }
}
