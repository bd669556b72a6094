/**
 * What pods may use, enforced in cgroups on the real containerd through a real agent: the pod's
 * pids.max (--pod-max-pids). cgroup v1 files (this machine); v2 paths have unit tests.
 */
import assert from "node:assert/strict";
import { E2E_TEST, isRunning, pathExists, setupE2E, shellPod } from "./_helpers.ts";

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
        shellPod("pids", "for i in $(seq 40); do sleep 3600 & done; sleep 3600"),
      );
      const pod = await e2e.waitPod("pids", isRunning, { what: "pod pids to run" });
      const dir = `${CG}/pids/denolet-e2e/${e2e.agent.hostname}/kubepods/besteffort/pod${
        pod.metadata!.uid
      }`;
      assert.equal(await read(`${dir}/pids.max`), "16");
      // 40 forks fit the node, not the pod (the pause process counts too): the shell says so.
      await e2e.waitLog(pod, "main", ["can't fork"]);
    } finally {
      await e2e.close();
    }
  },
});
