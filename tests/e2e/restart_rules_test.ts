/**
 * Container restart rules (ContainerRestartRules, beta upstream) on the real containerd: in a
 * pod whose policy is Never, a container whose rule says Restart on exit code 42 runs again,
 * and the pod fails once it exits with another code.
 */
import assert from "node:assert/strict";
import { containerStatus, E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";

Deno.test({
  name: "restart rules: exit 42 restarts the container under restartPolicy Never, exit 1 ends it",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      // Exits 42 the first two times (a marker file counts them), then 1.
      const pod = shellPod(
        "rules",
        "n=$(cat /data/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > /data/n; " +
          'echo run=$n; if [ "$n" -lt 3 ]; then exit 42; fi; exit 1',
        {
          restartPolicy: "Never",
          volumes: [{ name: "data", emptyDir: {} }],
        },
      );
      const c = pod.spec!.containers[0];
      c.volumeMounts = [{ name: "data", mountPath: "/data" }];
      c.restartPolicy = "Never";
      c.restartPolicyRules = [{ action: "Restart", exitCodes: { operator: "In", values: [42] } }];
      await e2e.writePod("rules.yaml", pod);
      const failed = await e2e.waitPod("rules", (p) => p.status?.phase === "Failed", {
        what: "rules to fail after two restarts",
        timeoutMs: 120_000,
      });
      const s = containerStatus(failed, "main");
      assert.equal(s?.restartCount, 2);
      assert.equal(s?.state?.terminated?.exitCode, 1);
      assert.equal(s?.lastState?.terminated?.exitCode, 42);
    } finally {
      await e2e.close();
    }
  },
});
