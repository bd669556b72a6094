/**
 * Joining as `kubeadm join` makes a kubelet do (issue 26): the real control plane with
 * kube-controller-manager approving (csrapproving, with kubeadm's bindings) and signing
 * (csrsigning with the cluster CA) node client CSRs, a bootstrap token in kube-system, and the
 * agent given only the bootstrap kubeconfig, a --kubeconfig path that does not exist yet and
 * --rotate-certificates. The renewal before expiry takes minutes of real time: it is
 * cluster_rotation_suite.ts (`deno task test:rotation`).
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { parse as parseYaml } from "yaml";
import { startControlPlane } from "../support/control_plane.ts";
import { waitFor } from "../support/wait.ts";
import { E2E_TEST, setupCluster } from "./_cluster.ts";

interface Csr {
  metadata: { name: string; creationTimestamp: string };
  spec: { username: string; signerName: string; usages: string[] };
  status?: { certificate?: string; conditions?: { type: string; reason?: string }[] };
}
interface Condition {
  type: string;
  status: string;
  lastHeartbeatTime?: string;
}

Deno.test({
  name: "join: a node joins from a bootstrap token alone, its CSR approved and signed",
  ...E2E_TEST,
  async fn(t) {
    const cp = await startControlPlane();
    const c = await setupCluster({ controlPlane: cp, join: "token" }).catch(async (err) => {
      await cp.stop();
      throw err;
    });
    const pem = `${c.rootDir}/pki/kubelet-client-current.pem`;
    const csrs = async () =>
      (await c.getJson<{ items: Csr[] }>(["csr"]))!.items.filter((x) =>
        x.spec.signerName === "kubernetes.io/kube-apiserver-client-kubelet"
      );
    const issued = (x: Csr) =>
      x.status?.conditions?.some((k) => k.type === "Approved") && !!x.status.certificate;
    const ready = async () => {
      const node = await c.getJson<{ status: { conditions: Condition[] } }>(["node", c.nodeName]);
      return node?.status.conditions.find((k) => k.type === "Ready");
    };
    try {
      await t.step(
        "the token's CSR is approved and issued; the kubeconfig is written; Ready",
        async () => {
          const cond = await waitFor(async () => (await ready())?.status === "True" || undefined, {
            timeoutMs: 90_000,
            intervalMs: 1000,
            what: "the node to be Ready",
          });
          assert.ok(cond);
          // One request, with the token: a year-long certificate is not renewed at once.
          const all = await csrs();
          assert.equal(
            all.length,
            1,
            `${JSON.stringify(all.map((x) => x.spec.username))}\n${await c.agent.logTail(6000)}`,
          );
          const [csr] = all;
          // With rotation on, the manager asks (generateName, as upstream's): csr-<random>.
          assert.match(csr.metadata.name, /^csr-/);
          assert.match(csr.spec.username, /^system:bootstrap:[a-z0-9]{6}$/);
          assert.deepEqual(csr.spec.usages, ["digital signature", "client auth"]);
          assert.ok(issued(csr), JSON.stringify(csr.status));
          assert.equal(
            csr.status?.conditions?.find((k) => k.type === "Approved")?.reason,
            "AutoApproved",
          );
          const kc = parseYaml(await Deno.readTextFile(c.kubeconfig));
          assert.deepEqual(kc.users[0].user, { "client-certificate": pem, "client-key": pem });
          assert.equal(kc.clusters[0].cluster.server, cp.server);
          assert.match(await Deno.readLink(pem), /\/kubelet-client-\d{4}(-\d\d){5}\.pem$/);
          const first = new X509Certificate(await Deno.readTextFile(pem));
          assert.match(first.subject, /O=system:nodes\nCN=system:node:/);
          assert.ok(first.subject.endsWith(`CN=system:node:${c.nodeName}`), first.subject);
        },
      );
    } finally {
      await c.close();
      await cp.stop();
    }
  },
});
