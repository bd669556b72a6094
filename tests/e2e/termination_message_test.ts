/**
 * Termination messages against the real containerd: what a container writes to
 * /dev/termination-log shows in state.terminated.message, and with FallbackToLogsOnError a
 * failed container's last log lines do.
 */
import assert from "node:assert/strict";
import { containerStatus, E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";
import type { V1Pod } from "@kubernetes/client-node";

const terminated = (p: V1Pod) => containerStatus(p, "main")?.state?.terminated;

Deno.test({
  name: "termination message: from /dev/termination-log, or the log with FallbackToLogsOnError",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      await e2e.writePod(
        "file.yaml",
        shellPod("msg-file", "printf 'disk full' > /dev/termination-log; exit 1", {
          restartPolicy: "Never",
        }),
      );
      const fallback = shellPod("msg-logs", "echo starting; echo 'cannot open db'; exit 3", {
        restartPolicy: "Never",
      });
      fallback.spec!.containers[0].terminationMessagePolicy = "FallbackToLogsOnError";
      await e2e.writePod("logs.yaml", fallback);

      const file = await e2e.waitPod("msg-file", (p) => p.status?.phase === "Failed", {
        what: "pod msg-file to be Failed",
      });
      assert.equal(terminated(file)?.exitCode, 1);
      assert.equal(terminated(file)?.message, "disk full");

      const logs = await e2e.waitPod("msg-logs", (p) => p.status?.phase === "Failed", {
        what: "pod msg-logs to be Failed",
      });
      assert.equal(terminated(logs)?.exitCode, 3);
      assert.equal(terminated(logs)?.message, "starting\ncannot open db\n");
    } finally {
      await e2e.close();
    }
  },
});
