/**
 * A node joined by bootstrap token (`setupCluster({ join: "token" })`) as cluster_join_test.ts
 * and cluster_rotation_suite.ts both check it first: Ready, its CSR approved and signed, the
 * kubeconfig it wrote naming its rotated certificate.
 */
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { parse as parseYaml } from "yaml";
import { waitFor } from "../support/wait.ts";
import type { ClusterE2E } from "./_cluster.ts";

export interface Csr {
  metadata: { name: string; creationTimestamp: string };
  spec: { username: string; signerName: string; usages: string[] };
  status?: { certificate?: string; conditions?: { type: string; reason?: string }[] };
}

export interface Condition {
  type: string;
  status: string;
  lastHeartbeatTime?: string;
}

export interface TokenJoin {
  /** The agent's client certificate and key: a link to the newest. */
  readonly pem: string;
  /** The node client CSRs (signer kube-apiserver-client-kubelet) the API server has. */
  csrs(): Promise<Csr[]>;
  /** Approved and signed. */
  issued(x: Csr): boolean;
  /** The Node's Ready condition. */
  ready(): Promise<Condition | undefined>;
}

export function tokenJoin(c: ClusterE2E): TokenJoin {
  return {
    pem: `${c.rootDir}/pki/kubelet-client-current.pem`,
    csrs: async () =>
      (await c.getJson<{ items: Csr[] }>(["csr"]))!.items.filter((x) =>
        x.spec.signerName === "kubernetes.io/kube-apiserver-client-kubelet"
      ),
    issued: (x) =>
      !!x.status?.conditions?.some((k) => k.type === "Approved") && !!x.status.certificate,
    ready: async () => {
      const node = await c.getJson<{ status: { conditions: Condition[] } }>(["node", c.nodeName]);
      return node?.status.conditions.find((k) => k.type === "Ready");
    },
  };
}

/**
 * Waits for the node to be Ready and checks its first CSR (asked with the token, auto-approved)
 * and the kubeconfig it wrote; returns the certificate it got. `onlyOneCsr`: there is no other
 * node client CSR yet (a year-long certificate is not renewed at once).
 */
export async function assertJoinedByToken(
  c: ClusterE2E,
  opts: { onlyOneCsr?: boolean } = {},
): Promise<X509Certificate> {
  const j = tokenJoin(c);
  const cond = await waitFor(async () => (await j.ready())?.status === "True" || undefined, {
    timeoutMs: 90_000,
    intervalMs: 1000,
    what: "the node to be Ready",
  });
  assert.ok(cond);
  const all = await j.csrs();
  if (opts.onlyOneCsr) {
    assert.equal(
      all.length,
      1,
      `${JSON.stringify(all.map((x) => x.spec.username))}\n${await c.agent.logTail(6000)}`,
    );
  }
  const [csr] = all;
  // With rotation on, the manager asks (generateName, as upstream's): csr-<random>.
  assert.match(csr.metadata.name, /^csr-/);
  assert.match(csr.spec.username, /^system:bootstrap:[a-z0-9]{6}$/);
  assert.deepEqual(csr.spec.usages, ["digital signature", "client auth"]);
  assert.ok(j.issued(csr), JSON.stringify(csr.status));
  assert.equal(
    csr.status?.conditions?.find((k) => k.type === "Approved")?.reason,
    "AutoApproved",
  );
  const kc = parseYaml(await Deno.readTextFile(c.kubeconfig));
  assert.deepEqual(kc.users[0].user, { "client-certificate": j.pem, "client-key": j.pem });
  assert.equal(kc.clusters[0].cluster.server, c.cp.server);
  assert.match(await Deno.readLink(j.pem), /\/kubelet-client-\d{4}(-\d\d){5}\.pem$/);
  const first = new X509Certificate(await Deno.readTextFile(j.pem));
  assert.match(first.subject, /O=system:nodes\nCN=system:node:/);
  assert.ok(first.subject.endsWith(`CN=system:node:${c.nodeName}`), first.subject);
  return first;
}
