/**
 * An agent upgrade keeps running containers: a denolet from before in-place resize (the tree at
 * BEFORE_RESIZE, run from a `git archive` of it) starts a static pod with cpu and memory
 * resources; today's agent, on the same root dir, adopts the container instead of restarting it
 * for its new spec hash, resizes it in place when the manifest (fixed UID) asks for more cpu,
 * and still keeps it after another restart.
 */
import assert from "node:assert/strict";
import { stringify as toYaml } from "yaml";
import type { V1Pod } from "@kubernetes/client-node";
import { createCriClient } from "../../src/cri/mod.ts";
import { ensureContainerd } from "../support/containerd.ts";
import {
  type AgentProcess,
  removeAgentSandboxes,
  removeCgroupTree,
  startAgent,
} from "../support/agent.ts";
import { waitFor } from "../support/wait.ts";
import { BUSYBOX, E2E_TEST } from "./_helpers.ts";

/** main before in-place resize: its containers carry the hash of their whole spec. */
const BEFORE_RESIZE = "798c43f";
const CG = "/sys/fs/cgroup";
const exists = (p: string) => Deno.stat(p).then(() => true, () => false);

async function oldTree(dir: string): Promise<string> {
  const repo = new URL("../..", import.meta.url).pathname;
  const archive = new Deno.Command("sh", {
    args: ["-c", `git -C "$0" archive ${BEFORE_RESIZE} | tar -x -C "$1"`, repo, dir],
  });
  const out = await archive.output();
  if (!out.success) throw new Error(`git archive failed: ${new TextDecoder().decode(out.stderr)}`);
  return `${dir}/main.ts`;
}

function manifest(cpu: string): string {
  return toYaml({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "kept", namespace: "default", uid: "resize-upgrade-uid" },
    spec: {
      terminationGracePeriodSeconds: 1,
      containers: [{
        name: "main",
        image: BUSYBOX,
        imagePullPolicy: "IfNotPresent",
        command: ["sh", "-c", "sleep 3600"],
        resources: { requests: { cpu, memory: "32Mi" }, limits: { cpu, memory: "32Mi" } },
      }],
    },
  });
}

Deno.test({
  name: "an agent upgrade adopts containers of a denolet from before in-place resize",
  ...E2E_TEST,
  ignore: await exists(`${CG}/cgroup.controllers`), // reads cgroup v1 files
  async fn() {
    const runtime = await ensureContainerd();
    const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
    const tmp = await Deno.makeTempDir({ prefix: "denolet-upgrade-" });
    const hostname = `e2e-upgrade-${Deno.pid}`;
    const rootDir = `${tmp}/root`;
    const manifestDir = `${tmp}/manifests`;
    await Deno.mkdir(`${tmp}/old`);
    await Deno.mkdir(manifestDir);
    let agent: AgentProcess | undefined;
    const start = async (mainModule?: string) => {
      agent = await startAgent({ runtime, hostname, rootDir, manifestDir, mainModule });
      await agent.waitHealthy({ timeoutMs: 60_000 });
      return agent;
    };
    const main = async (a: AgentProcess) => {
      const pod = (await a.pods()).items.find((p: V1Pod) => p.metadata?.name?.startsWith("kept"));
      return pod?.status?.containerStatuses?.find((s) => s.name === "main");
    };
    const runningId = (a: AgentProcess) =>
      waitFor(async () => {
        const s = await main(a);
        return s?.state?.running ? s.containerID!.replace(/^.*:\/\//, "") : undefined;
      }, { timeoutMs: 60_000, intervalMs: 500, what: "the static pod's container running" });
    try {
      await Deno.writeTextFile(`${manifestDir}/kept.yaml`, manifest("100m"));
      const before = await runningId(await start(await oldTree(`${tmp}/old`)));
      const hash = (await cri.runtime.containerStatus(before)).annotations?.[
        "io.kubernetes.container.hash"
      ];
      await agent!.stop();

      const upgraded = await start();
      assert.equal(await runningId(upgraded), before, "adopted, not restarted");
      // A few syncs later, still the same container.
      await new Promise((r) => setTimeout(r, 4000));
      assert.equal((await main(upgraded))?.containerID, `containerd://${before}`);
      assert.equal((await main(upgraded))?.restartCount, 0);
      const log = await Deno.readTextFile(upgraded.logFile);
      assert.match(log, /Container started before in-place resize runs its spec; kept/);

      // A resize of the old container happens in place.
      await Deno.writeTextFile(`${manifestDir}/kept.yaml`, manifest("200m"));
      const cgroup = `${CG}/cpu/denolet-e2e/${hostname}/kubepods/podresize-upgrade-uid/${before}`;
      await waitFor(
        async () => (await Deno.readTextFile(`${cgroup}/cpu.cfs_quota_us`)).trim() === "20000",
        { timeoutMs: 60_000, intervalMs: 500, what: "the old container resized" },
      );
      const resized = await waitFor(async () => {
        const s = await main(upgraded);
        return s?.resources?.limits?.cpu === "200m" ? s : undefined;
      }, { timeoutMs: 30_000, intervalMs: 500, what: "the status shows 200m" });
      assert.equal(resized.containerID, `containerd://${before}`);
      assert.equal(resized.restartCount, 0);
      // The container still carries the old agent's hash.
      assert.equal(
        (await cri.runtime.containerStatus(before)).annotations?.["io.kubernetes.container.hash"],
        hash,
      );

      // The next restart knows it too (the record is on disk).
      await agent!.stop();
      const again = await start();
      assert.equal(await runningId(again), before);
      await new Promise((r) => setTimeout(r, 4000));
      assert.equal((await main(again))?.containerID, `containerd://${before}`);
    } finally {
      await agent?.stop();
      await removeAgentSandboxes(cri.runtime, hostname);
      await removeCgroupTree(`denolet-e2e/${hostname}`);
      cri.close();
      await Deno.remove(tmp, { recursive: true }).catch(() => undefined);
    }
  },
});
