/**
 * `kubectl debug` against a real control plane: the ephemeral container starts in the running
 * pod, sees the target container's processes (--target), shows in ephemeralContainerStatuses,
 * answers `kubectl logs -c` and `kubectl exec -c`, and is not restarted when it exits.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { waitFor } from "../support/wait.ts";
import { BUSYBOX, busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";
import { isRunning } from "./_helpers.ts";

const debugStatus = (p: V1Pod, name: string) =>
  p.status?.ephemeralContainerStatuses?.find((s) => s.name === name);

Deno.test({
  name: "API mode: kubectl debug runs an ephemeral container beside the target",
  ...E2E_TEST,
  async fn() {
    // Its own control plane, stopped by close() (or when the set-up fails).
    const e2e = await setupCluster({ nodeApi: {} });
    const node = e2e.nodeName;
    try {
      await e2e.waitNodeReady({ timeoutMs: 60_000, intervalMs: 500 });
      await e2e.apply(busyboxPod("target", "exec sleep 31337", { node }));
      await e2e.waitPod("target", isRunning, {
        timeoutMs: 90_000,
        intervalMs: 500,
        what: "pod target Running",
      });

      await e2e.kubectl([
        "debug",
        "target",
        "-n",
        "default",
        `--image=${BUSYBOX}`,
        "--image-pull-policy=IfNotPresent",
        "--target=main",
        "-c",
        "dbg",
        "--",
        "sh",
        "-c",
        "ps; echo debug-ok; sleep 5; exit 3",
      ]);
      const running = await e2e.waitPod("target", (p) => !!debugStatus(p, "dbg")?.state?.running, {
        timeoutMs: 60_000,
        intervalMs: 500,
        what: "ephemeral container dbg running",
      });
      assert.equal(running.status?.phase, "Running");
      assert.match(debugStatus(running, "dbg")?.containerID ?? "", /^containerd:\/\//);

      let last = "";
      const logs = await waitFor(async () => {
        const out = await e2e.kubectl(["logs", "target", "-c", "dbg"]).catch((e) => String(e));
        last = out;
        return out.includes("debug-ok") ? out : undefined;
      }, { timeoutMs: 30_000, intervalMs: 500, what: "the debugger's log" }).catch((e) => {
        throw new Error(`${e}; kubectl logs said: ${last}`);
      });
      assert.match(logs, /sleep 31337/, "the debugger sees the target's processes");
      assert.equal(
        (await e2e.kubectl(["exec", "target", "-c", "dbg", "--", "echo", "exec-ok"])).trim(),
        "exec-ok",
      );

      const exited = await e2e.waitPod(
        "target",
        (p) => debugStatus(p, "dbg")?.state?.terminated?.exitCode === 3,
        { timeoutMs: 60_000, intervalMs: 500, what: "ephemeral container dbg exited 3" },
      );
      assert.equal(debugStatus(exited, "dbg")?.restartCount, 0);
      await new Promise((r) => setTimeout(r, 3_000));
      const later = await e2e.pod("target");
      assert.ok(debugStatus(later!, "dbg")?.state?.terminated, "not restarted");
      assert.equal(later?.status?.containerStatuses?.[0]?.restartCount, 0, "the target untouched");
    } finally {
      await e2e.close();
    }
  },
});
