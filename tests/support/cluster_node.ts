/**
 * How a denolet joined to the test control plane is set up as a cluster node, shared by the e2e
 * harness (tests/e2e/_cluster.ts), the conformance node and the traffic bench's node: the node
 * API served as a kubeadm node serves it, and what a stopped agent leaves mounted.
 */
import { systemMounter } from "../../src/volumes/mod.ts";

export interface NodeApiOptions {
  /** The node's InternalIP (`detectNodeIP()`): the API server dials it for logs and exec. */
  nodeIP: string;
  /** The cluster CA (`ControlPlane.caFile`), which signs the API server's kubelet client cert. */
  caFile: string;
  /** The authenticated port. */
  port: number;
}

/**
 * Agent flags for the node API as the API server reaches it: on every interface (the API server
 * dials the InternalIP; loopback is not it), client certificates of the cluster CA, and webhook
 * authentication and authorization (TokenReview, SubjectAccessReview), no anonymous requests.
 */
export function nodeApiClusterArgs(o: NodeApiOptions): string[] {
  return [
    "--node-ip",
    o.nodeIP,
    "--address",
    "0.0.0.0",
    "--port",
    String(o.port),
    "--client-ca-file",
    o.caFile,
    "--anonymous-auth=false",
    "--authentication-token-webhook",
    "--authorization-mode=Webhook",
  ];
}

/**
 * The flags of a node under a whole-cluster run (conformance, traffic bench): its kubeconfig, the
 * node API as above and no image GC (the test images cannot be pulled back once removed).
 */
export function clusterNodeArgs(kubeconfig: string, o: NodeApiOptions): string[] {
  return [
    "--kubeconfig",
    kubeconfig,
    ...nodeApiClusterArgs(o),
    "--image-gc-high-threshold",
    "100",
    "--image-gc-low-threshold",
    "99",
  ];
}

/**
 * Unmounts every mount point under `dir`, deepest first. A stopped agent leaves its pods'
 * tmpfs volumes (secret, projected) mounted, as a kubelet does; once its pods are gone nothing
 * there is in use. A failed unmount throws, unless `onError` takes it (and the next is tried).
 */
export async function unmountUnder(
  dir: string,
  opts: { onError?: (mount: string, err: unknown) => void } = {},
): Promise<void> {
  const mounter = systemMounter();
  const mounts = await mounter.mountPointsUnder(dir);
  for (const m of mounts.sort((a, b) => b.length - a.length)) {
    if (!opts.onError) await mounter.unmount(m);
    else await mounter.unmount(m).catch((err) => opts.onError!(m, err));
  }
}
