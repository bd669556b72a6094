/**
 * The node log query as users call it: `kubectl get --raw
 * "/api/v1/nodes/<node>/proxy/logs/?query=..."` through a real API server, which dials the node
 * API with its kubelet client certificate, authorized by SubjectAccessReview (nodes/proxy). A
 * file under /var/log by path, a service name resolved by upstream's /var/log heuristics (this
 * machine has no journald; the Debian VM suite covers journalctl), and upstream's refusals.
 */
import assert from "node:assert/strict";
import { stringify as toYaml } from "yaml";
import { startControlPlane } from "../support/control_plane.ts";
import { waitFor } from "../support/wait.ts";
import { type ClusterE2E, E2E_TEST, setupCluster } from "./_cluster.ts";

Deno.test({
  name: "cluster: kubectl get --raw .../proxy/logs/?query= reads /var/log files from the node",
  ...E2E_TEST,
  async fn() {
    const cp = await startControlPlane();
    const tmp = await Deno.makeTempDir({ prefix: "denolet-logquery-e2e-" });
    // Upstream's root is /var/log itself: the files live there, in a directory of this run's own.
    const name = `denolet-logquery-${Deno.pid}`;
    const dir = `/var/log/${name}`;
    let c: ClusterE2E | undefined;
    try {
      await Deno.mkdir(dir, { recursive: true });
      await Deno.writeTextFile(`${dir}/app.log`, "line one\nline two from the file\n");
      await Deno.writeTextFile(`${dir}/${name}.log`, "found by the heuristics\n");
      const config = `${tmp}/kubelet.yaml`;
      await Deno.writeTextFile(
        config,
        toYaml({
          apiVersion: "kubelet.config.k8s.io/v1beta1",
          kind: "KubeletConfiguration",
          enableSystemLogQuery: true,
        }),
      );
      c = await setupCluster({
        controlPlane: cp,
        extraArgs: ["--config", config],
        nodeApi: {},
      });
      // Healthy is not registered: the API server proxies only to a Node it has.
      await waitFor(
        () => cp.kubectl(["get", "node", c!.nodeName, "-o", "name"]).then(() => true, () => false),
        { timeoutMs: 60_000, what: `Node ${c.nodeName} registered` },
      );
      const raw = (q: string) =>
        cp.kubectl(["get", "--raw", `/api/v1/nodes/${c!.nodeName}/proxy/logs/?${q}`]);

      assert.equal(
        await raw(`query=${encodeURIComponent(`${name}/app.log`)}`),
        "line one\nline two from the file\n",
      );
      // A name without a slash is a service: not in the journal, so /var/log/<s>/<s>.log.
      assert.equal(await raw(`query=${name}`), "found by the heuristics\n");
      // Plain /logs/ paths still serve files with the query on.
      assert.equal(
        await cp.kubectl([
          "get",
          "--raw",
          `/api/v1/nodes/${c.nodeName}/proxy/logs/${name}/app.log`,
        ]),
        "line one\nline two from the file\n",
      );
      // Upstream's refusals, their messages carried through the API server.
      await assert.rejects(raw("query=/etc/passwd"), /path escapes from parent/);
      // kubectl shows no body for a 400 that is not a Status (as with the kubelet).
      await assert.rejects(raw("query=a&tailLines=x"), /\(BadRequest\)/);
      await assert.rejects(
        raw(`query=${encodeURIComponent(`${name}/app.log`)}&tailLines=1`),
        /cannot specify file with options/,
      );
    } finally {
      await c?.close();
      await cp.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => undefined);
      await Deno.remove(tmp, { recursive: true });
    }
  },
});
