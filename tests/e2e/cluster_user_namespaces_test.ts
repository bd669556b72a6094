/**
 * Issue 24's first case, against a real control plane: an API pod with `hostUsers: false` on
 * Debian's containerd 1.6 (no runtime handlers listed, so no user namespace support) is never
 * run in the host's user namespace; its sandbox fails with upstream's event, as `kubectl
 * describe` shows it for the upstream kubelet.
 */
import assert from "node:assert/strict";
import type { CoreV1Event, CoreV1EventList } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import { busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";

const MESSAGE = "Failed to create pod sandbox: can't set `spec.hostUsers: false`, " +
  "runtime does not support user namespaces";

Deno.test({
  name: "API mode: hostUsers: false on containerd 1.6 gets FailedCreatePodSandBox and never runs",
  ...E2E_TEST,
  async fn() {
    const c = await setupCluster();
    try {
      const pod = busyboxPod("userns", "cat /proc/self/uid_map; sleep 3600", {
        node: c.nodeName,
        extra: { hostUsers: false, automountServiceAccountToken: false },
      });
      await c.apply(pod);
      const failed = await waitFor(async () => {
        const evs = (await c.getJson<CoreV1EventList>([
          "events",
          "-n",
          "default",
          "--field-selector",
          "involvedObject.name=userns",
        ]))?.items ?? [];
        return evs.find((e: CoreV1Event) => e.reason === "FailedCreatePodSandBox");
      }, { what: "a FailedCreatePodSandBox event for pod userns", timeoutMs: 60_000 });
      assert.equal(failed.type, "Warning");
      assert.equal(failed.message, MESSAGE);
      assert.equal(failed.source?.component, "kubelet");
      const p = await c.pod("userns");
      assert.equal(p?.status?.phase, "Pending");
      assert.equal(
        p?.status?.containerStatuses?.[0]?.state?.waiting?.reason,
        "ContainerCreating",
      );
      const sandboxes = await c.cri.runtime.listPodSandbox({
        labelSelector: { "io.kubernetes.pod.uid": p!.metadata!.uid! },
      });
      assert.deepEqual(sandboxes, []);
    } finally {
      await c.close();
    }
  },
});
