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

Deno.test({
  name:
    "API mode: hostUsers: false on containerd 2 runs in its own user namespace, configMap idmapped",
  ...E2E_TEST,
  async fn() {
    const c = await setupCluster({ runtime: { containerd: "upstream" } });
    try {
      const handlers = (await c.cri.runtime.status()).runtimeHandlers ?? [];
      assert.ok(
        handlers.find((h) => h.name === "")?.features?.userNamespaces,
        `containerd 2 reports no user namespace support (${JSON.stringify(handlers)}): its shim ` +
          `runs a runc without idmapped mounts (a daemon started before tests/support built runc)`,
      );
      await c.apply({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "userns-cm", namespace: "default" },
        data: { greeting: "hello from a configMap" },
      });
      const pod = busyboxPod(
        "userns2",
        'cat /proc/self/uid_map; echo "cm: $(cat /cm/greeting) owner=$(stat -L -c %u /cm/greeting)"; ' +
          "sleep 3600",
        { node: c.nodeName, extra: { hostUsers: false, automountServiceAccountToken: false } },
      );
      pod.spec!.containers[0].volumeMounts = [{ name: "cm", mountPath: "/cm" }];
      pod.spec!.volumes = [{ name: "cm", configMap: { name: "userns-cm" } }];
      await c.apply(pod);
      const running = await c.waitPod("userns2", (p) => p.status?.phase === "Running", {
        what: "pod userns2 to be Running",
        timeoutMs: 90_000,
      });
      // The container's log file (this agent serves no node API for `kubectl logs`), CRI format.
      const file = `/var/log/pods/default_userns2_${running.metadata!.uid}/main/0.log`;
      const log = await waitFor(async () => {
        const out = (await Deno.readTextFile(file).catch(() => "")).split("\n")
          .map((l) => l.replace(/^\S+ (stdout|stderr) [FP] /, "")).join("\n");
        return out.includes("cm: ") ? out : undefined;
      }, { what: `the log of pod userns2 (${file})`, timeoutMs: 30_000 });
      const map = log.split("\n")[0].trim().split(/\s+/).map(Number);
      // Not `0 0 4294967295`: root inside is a 65536-ID range of the host's, from 65536 up.
      assert.equal(map[0], 0, log);
      assert.ok(map[1] >= 65536 && map[1] % 65536 === 0, log);
      assert.equal(map[2], 65536, log);
      assert.match(log, /^cm: hello from a configMap owner=0$/m, log);
    } finally {
      await c.close();
    }
  },
});
