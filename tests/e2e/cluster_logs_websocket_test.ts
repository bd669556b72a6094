/**
 * Container logs over a WebSocket through the API server, as the upstream conformance spec
 * "Pods should support retrieving logs from the container over websockets" reads them: the API
 * server fetches the log from the node over HTTPS and streams it in `binary.k8s.io` frames, with
 * a loop that drops bytes a Go read returns together with EOF. A short log whose end the node
 * wrote together with its data came back empty.
 */
import assert from "node:assert/strict";
import { waitFor } from "../support/wait.ts";
import { busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";
import { isRunning } from "./_helpers.ts";
import { webSocketExec } from "./_node_api.ts";

Deno.test({
  name: "API mode: a container's log read over a WebSocket through the API server has its lines",
  ...E2E_TEST,
  async fn() {
    // Its own control plane, stopped by close() (or when the set-up fails).
    const e2e = await setupCluster({ nodeApi: {} });
    const node = e2e.nodeName;
    try {
      await e2e.waitNodeReady({ timeoutMs: 60_000, intervalMs: 500 });
      await e2e.apply(busyboxPod("wslogs", "echo container is alive; exec sleep 3600", { node }));
      await e2e.waitPod("wslogs", isRunning, {
        timeoutMs: 90_000,
        intervalMs: 500,
        what: "pod wslogs Running",
      });
      // The plain read first, so that the line is known to be in the log file.
      await waitFor(async () => {
        const out = await e2e.kubectl(["logs", "wslogs"]).catch(() => "");
        return out === "container is alive\n" || undefined;
      }, { timeoutMs: 30_000, intervalMs: 500, what: "the log line over plain HTTP" });

      const cp = e2e.cp;
      const url = new URL(cp.server);
      const admin = {
        caCerts: [await Deno.readTextFile(cp.caFile)],
        cert: await Deno.readTextFile(`${cp.dir}/pki/admin.crt`),
        key: await Deno.readTextFile(`${cp.dir}/pki/admin.key`),
      };
      for (let i = 0; i < 3; i++) {
        const r = await webSocketExec(
          Number(url.port),
          "/api/v1/namespaces/default/pods/wslogs/log?container=main",
          admin,
          { protocol: "binary.k8s.io", timeoutMs: 30_000 },
        );
        assert.equal(r.status, 101, r.refusal);
        assert.equal(r.channels[0] ?? "", "container is alive\n", `read ${i + 1}`);
      }
    } finally {
      await e2e.close();
    }
  },
});
