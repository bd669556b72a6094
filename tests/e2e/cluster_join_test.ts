/**
 * Joining as `kubeadm join` makes a kubelet do (issue 26): the real control plane with
 * kube-controller-manager approving (csrapproving, with kubeadm's bindings) and signing
 * (csrsigning with the cluster CA) node client CSRs, a bootstrap token in kube-system, and the
 * agent given only the bootstrap kubeconfig, a --kubeconfig path that does not exist yet and
 * --rotate-certificates. The renewal before expiry takes minutes of real time: it is
 * cluster_rotation_suite.ts (`deno task test:rotation`).
 */
import { E2E_TEST, setupCluster } from "./_cluster.ts";
import { assertJoinedByToken } from "./_join.ts";

Deno.test({
  name: "join: a node joins from a bootstrap token alone, its CSR approved and signed",
  ...E2E_TEST,
  async fn(t) {
    // Its own control plane, stopped by close() (or when the set-up fails).
    const c = await setupCluster({ join: "token" });
    try {
      await t.step(
        "the token's CSR is approved and issued; the kubeconfig is written; Ready",
        async () => {
          // One request, with the token: a year-long certificate is not renewed at once.
          await assertJoinedByToken(c, { onlyOneCsr: true });
        },
      );
    } finally {
      await c.close();
    }
  },
});
