/**
 * Joining as `kubeadm join` makes a kubelet do (issue 26): the real control plane with
 * kube-controller-manager approving (csrapproving, with kubeadm's bindings) and signing
 * (csrsigning with the cluster CA) node client CSRs, a bootstrap token in kube-system, and the
 * agent given only the bootstrap kubeconfig, a --kubeconfig path that does not exist yet and
 * --rotate-certificates. The signer's certificates last 5 minutes (--cluster-signing-duration;
 * backdated 5 minutes as upstream's signer does), so the first is renewed 2 to 4 minutes after
 * it was issued, and the node must stay Ready after it expired. About 6 minutes, so a task of
 * its own (`deno task test:rotation`); cluster_join_test.ts covers the join in the main suite.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { startControlPlane } from "../support/control_plane.ts";
import { waitFor } from "../support/wait.ts";
import { E2E_TEST, setupCluster } from "./_cluster.ts";
import { assertJoinedByToken, tokenJoin } from "./_join.ts";

Deno.test({
  name: "join: a node joins from a bootstrap token alone and rotates its client certificate",
  ...E2E_TEST,
  async fn(t) {
    const cp = await startControlPlane({
      controllerManagerArgs: ["--cluster-signing-duration=5m"],
    });
    const c = await setupCluster({ controlPlane: cp, join: "token" }).catch(async (err) => {
      await cp.stop();
      throw err;
    });
    const { pem, csrs, issued, ready } = tokenJoin(c);
    try {
      let first: X509Certificate;
      await t.step(
        "the token's CSR is approved and issued; the kubeconfig is written; Ready",
        async () => {
          first = await assertJoinedByToken(c);
        },
      );

      await t.step(
        "renewed by the node itself before expiry; Ready and heartbeating after",
        async () => {
          const expiry = first.validToDate.getTime();
          const renewal = await waitFor(async () => {
            const own = (await csrs()).filter((x) =>
              x.spec.username === `system:node:${c.nodeName}`
            );
            return own.find(issued);
          }, {
            timeoutMs: Math.max(expiry - Date.now(), 0) + 30_000,
            intervalMs: 2000,
            what: "a renewal CSR from the node",
          });
          assert.equal(renewal.spec.signerName, "kubernetes.io/kube-apiserver-client-kubelet");
          const second = await waitFor(async () => {
            const now = new X509Certificate(await Deno.readTextFile(pem));
            return now.serialNumber !== first.serialNumber ? now : undefined;
          }, { timeoutMs: 30_000, intervalMs: 500, what: "kubelet-client-current.pem to change" });
          assert.ok(second.validToDate.getTime() > expiry, "the new one outlives the old one");
          assert.ok(Date.now() < expiry, "renewed before the first one expired");
          // Past the first certificate's end, the node still renews its Lease and stays Ready:
          // every connection moved to the new certificate.
          await new Promise((r) => setTimeout(r, expiry - Date.now() + 20_000));
          const lease = await c.getJson<{ spec: { renewTime: string } }>([
            "lease",
            c.nodeName,
            "-n",
            "kube-node-lease",
          ]);
          assert.ok(Date.parse(lease!.spec.renewTime) > expiry, lease!.spec.renewTime);
          const cond = await ready();
          assert.equal(cond?.status, "True");
          const res = await c.agent.get("/healthz");
          assert.equal(res.status, 200, await res.text());
          assert.match(await c.agent.logTail(2000), /Certificate rotation detected/);
        },
      );
    } finally {
      await c.close();
      await cp.stop();
    }
  },
});
