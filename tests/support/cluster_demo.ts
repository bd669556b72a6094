/**
 * `deno task demo:cluster`: the API-server mode on one machine. Provisions the dev containerd
 * and the test control plane if needed (the first build of the control plane takes about ten
 * minutes), starts them, and runs the agent from source in the foreground, joined as a node.
 * Extra command-line arguments go to the agent. Ctrl-C stops the agent, then the control plane.
 */
import { runAgentInForeground } from "./_foreground_agent.ts";
import { ensureContainerd } from "./containerd.ts";
import { startControlPlane } from "./control_plane.ts";

const NODE = "denolet-demo";

async function main(): Promise<number> {
  const log = (s: string) => console.error(`[demo] ${s}`);
  const rt = await ensureContainerd({ log });
  log("starting the control plane (etcd, kube-apiserver, controller manager, scheduler)");
  await using cp = await startControlPlane({ log });
  const kubeconfig = await cp.nodeKubeconfig(NODE);
  const rootDir = `${rt.dir}/kubelet-cluster`;
  await Deno.mkdir(rootDir, { recursive: true });
  log(
    `node ${NODE} joins ${cp.server}\n` +
      `[demo] try: KUBECONFIG=${cp.adminKubeconfig} ${cp.binaries.kubectl} get nodes\n` +
      `[demo]      KUBECONFIG=${cp.adminKubeconfig} ${cp.binaries.kubectl} create deployment web ` +
      `--image=${rt.images.busybox} -- sh -c 'while true; do sleep 1; done'`,
  );
  return await runAgentInForeground(
    [
      "--kubeconfig",
      kubeconfig,
      "--hostname-override",
      NODE,
      "--container-runtime-endpoint",
      rt.endpoint,
      "--root-dir",
      rootDir,
      `--pod-infra-container-image=${rt.sandboxImage}`,
      ...Deno.args,
    ],
    log,
  );
}

if (import.meta.main) Deno.exit(await main());
