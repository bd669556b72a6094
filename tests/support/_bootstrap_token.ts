/**
 * What `kubeadm init` sets up for nodes to join with a bootstrap token, and the kubeconfig
 * `kubeadm join` hands the kubelet (`/etc/kubernetes/bootstrap-kubelet.conf`): a token Secret in
 * kube-system, and kubeadm's three ClusterRoleBindings (cmd/kubeadm/app/phases/bootstraptoken/
 * node): the token's group may create CSRs (system:node-bootstrapper) and have node client CSRs
 * approved (…:nodeclient), and nodes their own renewals (…:selfnodeclient). Private to
 * tests/support.
 */
import { stringify } from "yaml";

/** kubeadm's NodeBootstrapTokenAuthGroup. */
export const NODE_BOOTSTRAP_GROUP = "system:bootstrappers:kubeadm:default-node-token";

function randomToken(length: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  return Array.from(crypto.getRandomValues(new Uint8Array(length)), (b) => alphabet[b % 36])
    .join("");
}

function binding(name: string, role: string, group: string) {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: group }],
  };
}

/** The objects: kubeadm's bindings and a token valid for `ttlMs`. */
export function bootstrapObjects(
  token: { id: string; secret: string },
  opts: { nowMs: number; ttlMs: number },
): unknown[] {
  return [
    binding("kubeadm:kubelet-bootstrap", "system:node-bootstrapper", NODE_BOOTSTRAP_GROUP),
    binding(
      "kubeadm:node-autoapprove-bootstrap",
      "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
      NODE_BOOTSTRAP_GROUP,
    ),
    binding(
      "kubeadm:node-autoapprove-certificate-rotation",
      "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
      "system:nodes",
    ),
    {
      apiVersion: "v1",
      kind: "Secret",
      type: "bootstrap.kubernetes.io/token",
      metadata: { name: `bootstrap-token-${token.id}`, namespace: "kube-system" },
      stringData: {
        description: "denolet e2e join token",
        "token-id": token.id,
        "token-secret": token.secret,
        expiration: new Date(opts.nowMs + opts.ttlMs).toISOString().replace(/\.\d+Z$/, "Z"),
        "usage-bootstrap-authentication": "true",
        "usage-bootstrap-signing": "true",
        "auth-extra-groups": NODE_BOOTSTRAP_GROUP,
      },
    },
  ];
}

/**
 * Creates a token (and the bindings, idempotently) through `apply`, and writes the bootstrap
 * kubeconfig to `path`: the server, the cluster CA inline, the token as kubeadm names its user.
 */
export async function createBootstrapKubeconfig(
  path: string,
  opts: {
    server: string;
    caPem: string;
    apply: (yaml: string) => Promise<void>;
    nowMs: number;
    ttlMs?: number;
  },
): Promise<{ path: string; token: string }> {
  const token = { id: randomToken(6), secret: randomToken(16) };
  const objects = bootstrapObjects(token, { nowMs: opts.nowMs, ttlMs: opts.ttlMs ?? 3_600_000 });
  await opts.apply(objects.map((o) => stringify(o)).join("---\n"));
  const user = "tls-bootstrap-token-user";
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{
      name: "kubernetes",
      cluster: { server: opts.server, "certificate-authority-data": btoa(opts.caPem) },
    }],
    contexts: [{ name: `${user}@kubernetes`, context: { cluster: "kubernetes", user } }],
    "current-context": `${user}@kubernetes`,
    users: [{ name: user, user: { token: `${token.id}.${token.secret}` } }],
    preferences: {},
  };
  await Deno.writeTextFile(path, stringify(config), { mode: 0o600 });
  return { path, token: `${token.id}.${token.secret}` };
}
