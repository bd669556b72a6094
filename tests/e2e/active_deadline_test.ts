/**
 * spec.activeDeadlineSeconds against the real containerd: a pod still running when its
 * deadline falls due ends Failed with DeadlineExceeded, and its container is stopped.
 */
import assert from "node:assert/strict";
import { containerStatus, E2E_TEST, POD_UID_LABEL, setupE2E, shellPod } from "./_helpers.ts";

Deno.test({
  name: "activeDeadlineSeconds: a static pod past its deadline is Failed and stopped",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      await e2e.writePod(
        "deadline.yaml",
        shellPod("deadline", "sleep 3600", { activeDeadlineSeconds: 5 }),
      );
      const running = await e2e.waitPod("deadline", (p) => p.status?.phase === "Running", {
        what: "pod deadline to be Running",
      });
      const startedAt = Date.parse(String(running.status?.startTime));
      const failed = await e2e.waitPod(
        "deadline",
        (p) => p.status?.phase === "Failed" && !!containerStatus(p, "main")?.state?.terminated,
        { what: "pod deadline to be Failed with its container stopped", timeoutMs: 30_000 },
      );
      assert.equal(failed.status?.reason, "DeadlineExceeded");
      assert.equal(
        failed.status?.message,
        "Pod was active on the node longer than the specified deadline",
      );
      // Stopped by the kubelet (SIGTERM to a shell that ignores it, then SIGKILL), not before
      // the deadline.
      const finished = Date.parse(
        String(containerStatus(failed, "main")?.state?.terminated?.finishedAt),
      );
      assert.ok(finished - startedAt >= 4_000, `stopped ${finished - startedAt} ms after start`);
      const uid = failed.metadata!.uid!;
      const live = await e2e.cri.runtime.listContainers({
        labelSelector: { [POD_UID_LABEL]: uid },
        state: { state: "CONTAINER_RUNNING" },
      });
      assert.deepEqual(live.map((c) => c.metadata.name), [], "no container of the pod runs");
    } finally {
      await e2e.close();
    }
  },
});
