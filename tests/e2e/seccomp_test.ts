/**
 * Seccomp profiles against the real containerd, read back from the kernel: a pod-level
 * RuntimeDefault puts the container under a filter (Seccomp: 2 in /proc/self/status), and a
 * container-level Unconfined in the same pod overrides it (Seccomp: 0).
 */
import assert from "node:assert/strict";
import { containerStatus, E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";

const SCRIPT = "grep Seccomp: /proc/self/status; sleep 3600";

Deno.test({
  name: "seccomp: pod-level RuntimeDefault filters, a container's Unconfined does not",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      const pod = shellPod("seccomp", SCRIPT, {
        securityContext: { seccompProfile: { type: "RuntimeDefault" } },
      });
      const main = pod.spec!.containers[0];
      pod.spec!.containers.push({
        ...main,
        name: "loose",
        securityContext: { seccompProfile: { type: "Unconfined" } },
      });
      await e2e.writePod("seccomp.yaml", pod);

      const running = await e2e.waitPod(
        "seccomp",
        (p) =>
          containerStatus(p, "main")?.state?.running !== undefined &&
          containerStatus(p, "loose")?.state?.running !== undefined,
        { what: "containers main and loose to run", timeoutMs: 60_000 },
      );
      // The CRI log line is "<time> stdout F Seccomp:\t<mode>".
      assert.match(await e2e.waitLog(running, "main", ["Seccomp:"]), /Seccomp:\t2$/m);
      assert.match(await e2e.waitLog(running, "loose", ["Seccomp:"]), /Seccomp:\t0$/m);
    } finally {
      await e2e.close();
    }
  },
});
