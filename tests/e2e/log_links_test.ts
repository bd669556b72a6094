/**
 * /var/log/containers on the real containerd: a started container's log is reachable under
 * upstream's link name (what Fluent Bit and Fluentd tail), and the link goes with the pod.
 */
import assert from "node:assert/strict";
import { CONTAINER_LOGS_DIR, logLinkPath } from "../../src/runtime/mod.ts";
import { waitFor } from "../support/wait.ts";
import { containerStatus, E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";

Deno.test({
  name: "log links: /var/log/containers/<pod>_<ns>_<container>-<id>.log follows the container",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    try {
      await e2e.writePod("linked.yaml", shellPod("linked", "echo link-ok; sleep 3600"));
      const pod = await e2e.waitPod(
        "linked",
        (p) => !!containerStatus(p, "main")?.state?.running,
        { what: "linked running", timeoutMs: 60_000 },
      );
      const id = containerStatus(pod, "main")!.containerID!.replace("containerd://", "");
      const link = logLinkPath(CONTAINER_LOGS_DIR, {
        podName: pod.metadata!.name!,
        podNamespace: pod.metadata!.namespace!,
        containerName: "main",
        containerId: id,
      });
      const text = await waitFor(async () => {
        const t = await Deno.readTextFile(link).catch(() => "");
        return t.includes("link-ok") ? t : undefined;
      }, { timeoutMs: 30_000, what: `${link} to show the log` });
      // The CRI log format, as the shippers' parsers expect it.
      assert.match(text, /^\S+ stdout F link-ok$/m);
      assert.equal(
        await Deno.realPath(link),
        await Deno.realPath(`${e2e.podLogDir(pod)}/main/0.log`),
      );

      await e2e.removeManifest("linked.yaml");
      await waitFor(async () => {
        try {
          await Deno.lstat(link);
          return undefined;
        } catch {
          return true;
        }
      }, { timeoutMs: 60_000, what: `${link} removed with the pod` });
    } finally {
      await e2e.close();
    }
  },
});
