/**
 * Restarts must not disturb running pods: a new agent adopts the containers a killed one left
 * (and removes what is no longer wanted), and a containerd restart shows up on /healthz while
 * the containers, kept alive by their shims, survive it.
 */
import assert from "node:assert/strict";
import { waitFor } from "../support/agent.ts";
import { startContainerd, stopContainerd } from "../support/containerd.ts";
import {
  containerStatus,
  type E2E,
  E2E_TEST,
  isRunning,
  POD_UID_LABEL,
  setupE2E,
  shellPod,
} from "./_helpers.ts";
import { closeRestartAgents } from "./_restart.ts";

const loop = (name: string) =>
  shellPod(name, `echo ${name}; trap 'exit 0' TERM; while true; do sleep 1; done`);

async function healthzStatus(e2e: E2E): Promise<number> {
  const res = await e2e.agent.get("/healthz");
  await res.body?.cancel();
  return res.status;
}

Deno.test({
  name: "restart safety: a new agent adopts running pods; a containerd restart is survived",
  ...E2E_TEST,
  async fn(t) {
    const base = await Deno.makeTempDir({ prefix: "denolet-e2e-restart-" });
    const shared = {
      hostname: `e2e-restart-${Deno.pid}`,
      rootDir: `${base}/root`,
      manifestDir: `${base}/manifests`,
      podLogsDir: `${base}/pods`,
    };
    await Deno.mkdir(shared.manifestDir, { recursive: true });
    let first: E2E | undefined;
    let second: E2E | undefined;
    let containerdStopped = false;
    try {
      first = await setupE2E({ ...shared, removePodsOnStop: false });
      await first.writePod("stay.yaml", loop("stay"));
      await first.writePod("gone.yaml", loop("gone"));
      const [stay, gone] = await Promise.all(
        ["stay", "gone"].map((n) => first!.waitPod(n, isRunning, { what: `pod ${n} Running` })),
      );
      const stayId = containerStatus(stay, "main")?.containerID;
      const goneUid = gone.metadata?.uid ?? "";
      assert.ok(stayId && goneUid);

      await t.step("kill -9, remove a manifest, start again: survivors are adopted", async () => {
        first!.agent.kill("SIGKILL");
        const status = await first!.agent.exited;
        assert.equal(status.signal, "SIGKILL");
        await first!.close({ keepState: true });
        first = undefined;
        await Deno.remove(`${shared.manifestDir}/gone.yaml`);

        second = await setupE2E(shared);
        const adopted = await second.waitPod("stay", isRunning, {
          what: "stay Running after the agent restart",
        });
        assert.equal(adopted.metadata?.uid, stay.metadata?.uid, "same pod uid");
        assert.equal(containerStatus(adopted, "main")?.containerID, stayId, "same container");
        assert.equal(containerStatus(adopted, "main")?.restartCount, 0);
        const sandboxes = await second.sandboxes(stay.metadata?.uid ?? "");
        assert.equal(sandboxes.length, 1, "no second sandbox for the adopted pod");

        await waitFor(async () => (await second!.sandboxes(goneUid)).length === 0, {
          what: `the removed pod's sandbox (uid ${goneUid}) to be removed`,
          timeoutMs: 60_000,
        });
        const containers = await second.cri.runtime.listContainers({
          labelSelector: { [POD_UID_LABEL]: goneUid },
        });
        assert.deepEqual(containers.map((c) => c.id), [], "the removed pod's containers are gone");
        assert.equal(await second.pod("gone"), undefined, "gone is not in /pods");
        // A few sync passes later the survivor is still untouched.
        const again = await second.waitPod("stay", isRunning, { what: "stay Running" });
        assert.equal(containerStatus(again, "main")?.containerID, stayId);
      });

      await t.step("containerd down: /healthz fails; back up: healthy, pod kept", async () => {
        const e2e = second!;
        assert.equal(await healthzStatus(e2e), 200);
        containerdStopped = true;
        await stopContainerd();
        await waitFor(async () => (await healthzStatus(e2e)) !== 200, {
          what: "/healthz to report the runtime down",
          timeoutMs: 12_000,
          intervalMs: 200,
        });
        await startContainerd();
        containerdStopped = false;
        await waitFor(async () => (await healthzStatus(e2e)) === 200, {
          what: "/healthz to recover after containerd restarts",
          timeoutMs: 30_000,
        });
        // Shims keep containers alive across a containerd restart, so nothing is restarted.
        const pod = await e2e.waitPod(
          "stay",
          (p) => isRunning(p) && containerStatus(p, "main")?.containerID === stayId,
          { what: "stay Running with its original container", timeoutMs: 20_000 },
        );
        assert.equal(containerStatus(pod, "main")?.restartCount, 0);
        const sandboxes = await e2e.sandboxes(stay.metadata?.uid ?? "");
        assert.deepEqual(sandboxes.map((s) => s.state), ["SANDBOX_READY"]);
      });
    } finally {
      if (containerdStopped) await startContainerd();
      // Whatever happened above, leave no pod of this node behind.
      await closeRestartAgents({ first, second, base, removeSandboxesOf: shared.hostname });
    }
  },
});
