/**
 * The cgroup driver comes from the runtime where it says (CRI RuntimeConfig, containerd 2):
 * configured `systemd` on this host, whose PID 1 is not systemd and whose containerd 2 uses
 * cgroupfs, the agent follows the runtime and runs pods under kubepods. containerd 1.6 does not
 * serve the call; the configured driver then holds (covered by `deno task test:vm`).
 */
import assert from "node:assert/strict";
import { E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";

Deno.test({
  name: "cgroup driver: containerd 2's RuntimeConfig (cgroupfs) wins over a configured systemd",
  ...E2E_TEST,
  fn: async () => {
    const e2e = await setupE2E({
      runtime: { containerd: "upstream" },
      config: { cgroupDriver: "systemd" },
    });
    try {
      const config = await e2e.cri.runtime.runtimeConfig();
      assert.equal(config.linux?.cgroupDriver, "CGROUPFS");
      await e2e.writePod("p.yaml", shellPod("p", "trap 'exit 0' TERM; while :; do sleep 1; done"));
      const pod = await e2e.waitPod("p", isRunning, { what: "p running", timeoutMs: 90_000 });
      const log = await e2e.agent.logTail(400);
      assert.match(
        log,
        /Using cgroup driver setting received from the CRI runtime.*cgroupDriver=cgroupfs/,
      );
      assert.match(log, /Pod cgroups enabled.*driver=cgroupfs/);
      assert.match(
        log,
        new RegExp(`Created pod cgroup.*cgroup=\\S*/kubepods/\\S*pod${pod.metadata!.uid}`),
      );
    } finally {
      await e2e.close();
    }
  },
});
