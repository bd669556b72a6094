/**
 * Local storage limits (upstream localStorageEviction) on the real containerd: a pod whose
 * disk emptyDir outgrows its sizeLimit, and one whose container writes past its
 * ephemeral-storage limit (or whose containers outgrow their summed limits), are evicted (Failed / Evicted) with upstream's messages, while
 * the node has plenty of room. Static pods are critical upstream, so the suite runs with
 * denolet's --evict-static-pods opt-in.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";

const evicted = (p: V1Pod) => p.status?.phase === "Failed" && p.status?.reason === "Evicted";

Deno.test({
  name: "local storage: emptyDir sizeLimit and ephemeral-storage limits evict as upstream",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E({ extraArgs: ["--evict-static-pods"] });
    try {
      const scratch = shellPod(
        "ls-scratch",
        "dd if=/dev/zero of=/scratch/fill bs=1M count=4; echo filled; sleep 3600",
        { volumes: [{ name: "scratch", emptyDir: { sizeLimit: "1Mi" } }] },
      );
      scratch.spec!.containers[0].volumeMounts = [{ name: "scratch", mountPath: "/scratch" }];
      await e2e.writePod("ls-scratch.yaml", scratch);

      const layer = shellPod(
        "ls-layer",
        "dd if=/dev/zero of=/fill bs=1M count=8; echo filled; sleep 3600",
      );
      layer.spec!.containers[0].resources = { limits: { "ephemeral-storage": "2Mi" } };
      // A roomy neighbour keeps the pod's total under its summed limits: the container's own
      // limit is what is exceeded (alone, the pod total would be the first upstream check).
      layer.spec!.containers.push({
        name: "roomy",
        image: layer.spec!.containers[0].image,
        command: ["sleep", "3600"],
        resources: { limits: { "ephemeral-storage": "100Mi" } },
      });
      await e2e.writePod("ls-layer.yaml", layer);
      const total = shellPod("ls-total", "dd if=/dev/zero of=/fill bs=1M count=8; sleep 3600");
      total.spec!.containers[0].resources = { limits: { "ephemeral-storage": "2Mi" } };
      await e2e.writePod("ls-total.yaml", total);

      // An emptyDir within its limit stays.
      const calm = shellPod("ls-calm", "echo small > /scratch/f; sleep 3600", {
        volumes: [{ name: "scratch", emptyDir: { sizeLimit: "10Mi" } }],
      });
      calm.spec!.containers[0].volumeMounts = [{ name: "scratch", mountPath: "/scratch" }];
      await e2e.writePod("ls-calm.yaml", calm);

      const s = await e2e.waitPod("ls-scratch", evicted, {
        what: "ls-scratch evicted",
        timeoutMs: 90_000,
      });
      assert.equal(
        s.status?.message,
        'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ',
      );
      const l = await e2e.waitPod("ls-layer", evicted, {
        what: "ls-layer evicted",
        timeoutMs: 90_000,
      });
      assert.equal(
        l.status?.message,
        'Container main exceeded its local ephemeral storage limit "2Mi". ',
      );
      const t = await e2e.waitPod("ls-total", evicted, {
        what: "ls-total evicted",
        timeoutMs: 90_000,
      });
      assert.equal(
        t.status?.message,
        "Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ",
      );
      // No DisruptionTarget: the pod's own limit, not node pressure.
      assert.ok(!l.status?.conditions?.some((c) => c.type === "DisruptionTarget"));
      const c = await e2e.pod("ls-calm");
      assert.equal(c?.status?.phase, "Running");
    } finally {
      await e2e.close();
    }
  },
});
