/**
 * The Node's Ready condition follows the runtime's CRI Status (issue 26): on a private containerd
 * whose CNI config is taken away (a node before its CNI is installed), containerd reports
 * NetworkReady=false and the Node is NotReady with upstream's message; once the config is back
 * the Node turns Ready, reporting kubeletVersion v1.37.2+denolet.<version>. The shared dev
 * containerd is not touched.
 */
import assert from "node:assert/strict";
import { ensureContainerd, stopContainerd } from "../support/containerd.ts";
import { startControlPlane } from "../support/control_plane.ts";
import { waitFor } from "../support/wait.ts";
import { KUBELET_VERSION } from "../../src/agent/version.ts";
import { E2E_TEST, setupCluster } from "./_cluster.ts";

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

Deno.test({
  name: "readiness: the Node is NotReady while the runtime's network is not, with its reason",
  ...E2E_TEST,
  async fn() {
    const runtime = {
      dir: `/var/lib/denolet-dev-ready-${Deno.pid}`,
      network: { bridge: "denoletr0", subnet: "10.89.0.0/16" },
      containerd: "system" as const,
    };
    const dev = await ensureContainerd(runtime);
    const conflist = (await Array.fromAsync(Deno.readDir(`${dev.dir}/cni/net.d`)))
      .map((e) => `${dev.dir}/cni/net.d/${e.name}`);
    const saved = await Promise.all(conflist.map((f) => Deno.readTextFile(f)));
    const cp = await startControlPlane();
    let c: Awaited<ReturnType<typeof setupCluster>> | undefined;
    try {
      // What a node looks like before its CNI is installed.
      for (const f of conflist) await Deno.remove(f);
      c = await setupCluster({ controlPlane: cp, runtime });
      const ready = async () => {
        const node = await c!.getJson<{ status?: { conditions?: Condition[] } }>([
          "node",
          c!.nodeName,
        ]);
        return node?.status?.conditions?.find((k) => k.type === "Ready");
      };
      // The first status may also say `CSINode is not yet initialized`, as upstream's does
      // until its CSINode is made; then the network alone.
      const notReady = await waitFor(async () => {
        const r = await ready();
        const why = r?.message ?? "";
        return r?.status === "False" && /network not ready/.test(why) && !/CSINode/.test(why)
          ? r
          : undefined;
      }, { timeoutMs: 60_000, intervalMs: 1000, what: "the Node NotReady for the network" });
      assert.equal(notReady.reason, "KubeletNotReady");
      assert.equal(
        notReady.message,
        "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady " +
          "message:Network plugin returns error: cni plugin not initialized",
      );
      // The CNI is installed: Ready follows.
      await Promise.all(conflist.map((f, i) => Deno.writeTextFile(f, saved[i])));
      const r = await waitFor(async () => {
        const r = await ready();
        return r?.status === "True" ? r : undefined;
      }, { timeoutMs: 60_000, intervalMs: 1000, what: "the Node Ready once the CNI is there" });
      assert.equal(r.reason, "KubeletReady");
      assert.equal(r.message, "kubelet is posting ready status");
      // The version kubectl and skew checks read: the Kubernetes release, denolet's as metadata.
      const info = await c.getJson<{ status: { nodeInfo: { kubeletVersion: string } } }>([
        "node",
        c.nodeName,
      ]);
      assert.equal(info?.status.nodeInfo.kubeletVersion, KUBELET_VERSION);
      assert.match(KUBELET_VERSION, /^v1\.37\.2\+denolet\./);
      const wide = await c.kubectl(["get", "node", c.nodeName, "--no-headers"]);
      assert.match(
        wide,
        new RegExp(
          `Ready\\s.*\\s${KUBELET_VERSION.replaceAll(".", "\\.").replace("+", "\\+")}\\s*$`,
        ),
      );
    } finally {
      await c?.close();
      await cp.stop();
      await stopContainerd(runtime);
      await Deno.remove(runtime.dir, { recursive: true }).catch((err) =>
        console.error(`[denolet-e2e] cannot remove ${runtime.dir}: ${err}`)
      );
    }
  },
});
