/** The runtime manager hands --seccomp-default and <root-dir>/seccomp to the container configs. */
import { fakeRuntimeManager } from "./_fake_manager.ts";
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { FakeClock } from "../../src/util/clock.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

Deno.test("runtime manager: seccompDefault and <root-dir>/seccomp reach CreateContainer", async () => {
  const rootDir = await Deno.makeTempDir({ prefix: "denolet-seccomp-" });
  try {
    const clock = new FakeClock();
    const cri = new FakeRuntime({ clock });
    const rm = fakeRuntimeManager({ cri, clock, logsDir: `${rootDir}/logs` }, {
      rootDir,
      node: { seccompDefault: true },
    });
    const pod: V1Pod = {
      metadata: { name: "web", namespace: "default", uid: "uid-1" },
      spec: {
        containers: [
          { name: "plain", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" },
          {
            name: "local",
            image: "busybox:1.36",
            imagePullPolicy: "IfNotPresent",
            securityContext: { seccompProfile: { type: "Localhost", localhostProfile: "x.json" } },
          },
        ],
      },
    };
    const status = await rm.getPodStatus("uid-1", "web", "default");
    assert.deepEqual((await rm.syncPod(pod, status, {})).errors, []);
    const seccomp = (name: string) =>
      [...cri.containers.values()].find((c) => c.status.metadata.name === name)?.config.linux
        ?.securityContext?.seccomp;
    assert.deepEqual(seccomp("plain"), { profileType: "RuntimeDefault" });
    assert.deepEqual(seccomp("local"), {
      profileType: "Localhost",
      localhostRef: `${rootDir}/seccomp/x.json`,
    });
    const [sandbox] = cri.sandboxes.values();
    assert.deepEqual(sandbox.config.linux?.securityContext?.seccomp, {
      profileType: "RuntimeDefault",
    });
  } finally {
    await Deno.remove(rootDir, { recursive: true });
  }
});
