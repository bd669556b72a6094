/**
 * /metrics/cadvisor as a cluster's Prometheus gets it: a real Prometheus scrapes the node's
 * cAdvisor series through the API server's node proxy (`/api/v1/nodes/<node>/proxy/metrics/cadvisor`), which
 * dials the node API on its authenticated port with the API server's kubelet client
 * certificate, authorized by SubjectAccessReview (nodes/proxy, then nodes/metrics).
 */
import assert from "node:assert/strict";
import { parse as parseYaml } from "yaml";
import { freePort, waitFor } from "../support/wait.ts";
import { ensurePrometheus, type PrometheusServer, startPrometheus } from "../support/prometheus.ts";
import { startControlPlane } from "../support/control_plane.ts";
import { BUSYBOX, type ClusterE2E, E2E_TEST, setupCluster } from "./_cluster.ts";

Deno.test({
  name: "cluster: a Prometheus scrapes /metrics/cadvisor through the API server's node proxy",
  ...E2E_TEST,
  async fn() {
    const bins = await ensurePrometheus();
    const cp = await startControlPlane();
    let c: ClusterE2E | undefined;
    let prom: PrometheusServer | undefined;
    const pki = await Deno.makeTempDir({ prefix: "denolet-prom-pki-" });
    try {
      const port = freePort();
      c = await setupCluster({ controlPlane: cp, nodeApi: { port } });
      const e2e = c;
      const node = e2e.nodeName;
      await e2e.apply({
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "cadv-burn", namespace: "default" },
        spec: {
          nodeName: node,
          terminationGracePeriodSeconds: 1,
          automountServiceAccountToken: false,
          containers: [{
            name: "main",
            image: BUSYBOX,
            imagePullPolicy: "IfNotPresent",
            command: ["sh", "-c", "while :; do :; done"],
            resources: { limits: { cpu: "300m" } },
          }],
        },
      });
      await e2e.waitPod("cadv-burn", (p) => p.status?.phase === "Running", {
        what: "burner Running",
        timeoutMs: 90_000,
      });

      // Prometheus authenticates to the API server as the cluster admin, as a cluster's
      // Prometheus does with its service account's RBAC.
      const kubeconfig = parseYaml(await Deno.readTextFile(cp.adminKubeconfig)) as {
        users: { user: Record<string, string> }[];
      };
      const user = kubeconfig.users[0].user;
      const tls = {
        ca_file: cp.caFile,
        cert_file: `${pki}/admin.crt`,
        key_file: `${pki}/admin.key`,
      };
      const decode = (b64: string) =>
        new TextDecoder().decode(
          Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0)),
        );
      await Deno.writeTextFile(tls.cert_file, decode(user["client-certificate-data"]));
      await Deno.writeTextFile(tls.key_file, decode(user["client-key-data"]), { mode: 0o600 });
      const api = new URL(cp.server);
      prom = await startPrometheus(bins.prometheus, [{
        // kube-prometheus' kubelet job, cAdvisor endpoint, through the API server's proxy, with
        // the labels its relabelling gives. The node is named statically: Debian's Prometheus
        // is built without Kubernetes service discovery.
        job_name: "kubelet",
        scheme: "https",
        tls_config: tls,
        metrics_path: `/api/v1/nodes/${node}/proxy/metrics/cadvisor`,
        static_configs: [{ targets: [api.host], labels: { node } }],
        relabel_configs: [
          { target_label: "metrics_path", replacement: "/metrics/cadvisor" },
        ],
      }], { port: freePort([port]) });

      const sel = `job="kubelet", metrics_path="/metrics/cadvisor", node="${node}"`;
      const expr =
        `sum by (namespace, pod, container) (irate(container_cpu_usage_seconds_total{${sel}, image!=""}[10s]))`;
      try {
        await waitFor(async () => {
          const r = await prom!.query(expr);
          return r.some((x) =>
            x.metric.pod === "cadv-burn" && x.metric.container === "main" && x.value > 0.1
          );
        }, { timeoutMs: 90_000, intervalMs: 1_000, what: `Prometheus: ${expr}` });
      } catch (err) {
        throw new Error(
          `${(err as Error).message}\ntargets: ${JSON.stringify(await prom.targets())}\n` +
            `log: ${await prom.log()}`,
          { cause: err },
        );
      }
      const memory = await prom.query(
        `container_memory_working_set_bytes{${sel}, container!="", image!=""}`,
      );
      assert.ok(memory.some((x) => x.metric.pod === "cadv-burn" && x.value > 0), "working set");
    } finally {
      await prom?.stop();
      await c?.kubectl(["delete", "pod", "cadv-burn", "--wait=false"]).catch(() => undefined);
      await c?.close();
      await cp.stop();
      await Deno.remove(pki, { recursive: true }).catch(() => undefined);
    }
  },
});
