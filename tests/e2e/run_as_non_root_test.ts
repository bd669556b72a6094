/**
 * The image's user against the real containerd: with runAsNonRoot and no runAsUser, an image
 * that runs as root (the test busybox has no USER) is refused before CreateContainer, with
 * upstream's reason and message; a container's runAsGroup without runAsUser runs, since the
 * image's uid is sent along (containerd refuses a group without a user).
 */
import assert from "node:assert/strict";
import { realClock } from "../../src/util/clock.ts";
import { containerStatus, E2E_TEST, POD_UID_LABEL, setupE2E, shellPod } from "./_helpers.ts";

Deno.test({
  name: "runAsNonRoot: a root image stays Waiting with CreateContainerConfigError",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      await e2e.writePod(
        "nonroot.yaml",
        shellPod("nonroot", "sleep 3600", { securityContext: { runAsNonRoot: true } }),
      );
      // Container level: a pod-level runAsGroup alone also reaches the sandbox, which
      // containerd refuses with the upstream kubelet too.
      const grouped = shellPod("group-only", "echo ids=$(id -u):$(id -g); sleep 3600");
      grouped.spec!.containers[0].securityContext = { runAsGroup: 3000 };
      await e2e.writePod("group.yaml", grouped);

      const refused = await e2e.waitPod(
        "nonroot",
        (p) => containerStatus(p, "main")?.state?.waiting?.reason === "CreateContainerConfigError",
        { what: "container main to wait with CreateContainerConfigError", timeoutMs: 60_000 },
      );
      const m = refused.metadata!;
      assert.equal(
        containerStatus(refused, "main")?.state?.waiting?.message,
        "container has runAsNonRoot and image will run as root " +
          `(pod: "${m.name}_${m.namespace}(${m.uid})", container: main)`,
      );
      assert.equal(refused.status?.phase, "Pending");

      const running = await e2e.waitPod(
        "group-only",
        (p) => containerStatus(p, "main")?.state?.running !== undefined,
        { what: "container main of group-only to run", timeoutMs: 60_000 },
      );
      assert.match(await e2e.waitLog(running, "main", ["ids="]), /ids=0:3000/);

      // Later syncs keep refusing: no container of the refused pod ever reaches the runtime.
      await realClock.sleep(2_000);
      const containers = await e2e.cri.runtime.listContainers({
        labelSelector: { [POD_UID_LABEL]: m.uid! },
      });
      assert.deepEqual(containers, []);
      const again = await e2e.pod("nonroot");
      assert.equal(
        containerStatus(again!, "main")?.state?.waiting?.reason,
        "CreateContainerConfigError",
      );
    } finally {
      await e2e.close();
    }
  },
});
