/**
 * Regenerates tests/config/fixtures/kubeadm/ from kubeadm itself (cmd/kubeadm of the control
 * plane's k8s.io/kubernetes, built once by `ensureKubeadm`): `kubeadm init phase kubelet-start
 * --dry-run` for a node `edge-1` with a dual-stack --node-ip writes what a kubeadm node's kubelet
 * gets: /var/lib/kubelet/config.yaml (the cluster's KubeletConfiguration with the node's
 * instance-config.yaml patched in) and /var/lib/kubelet/kubeadm-flags.env. The systemd drop-in
 * (10-kubeadm.conf) is the kubeadm package's (kubernetes/release, as kubeadm's documentation
 * shows it); it is not in cmd/kubeadm, so it is kept as it is.
 *
 *   deno run -A tests/support/kubeadm_fixtures.ts
 */
import { run } from "./_exec.ts";
import { ensureKubeadm } from "./kubeadm.ts";

const OUT = new URL("../config/fixtures/kubeadm/", import.meta.url).pathname;

const INIT_CONFIG = `apiVersion: kubeadm.k8s.io/v1beta4
kind: InitConfiguration
nodeRegistration:
  name: edge-1
  criSocket: unix:///var/run/containerd/containerd.sock
  kubeletExtraArgs:
  - name: node-ip
    value: 10.0.0.5,fd00::5
---
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
`;

if (import.meta.main) {
  const kubeadm = await ensureKubeadm();
  const dir = await Deno.makeTempDir({ prefix: "denolet-kubeadm-" });
  try {
    await Deno.writeTextFile(`${dir}/init.yaml`, INIT_CONFIG);
    // The dry run writes into KUBEADM_INIT_DRYRUN_DIR instead of /etc/kubernetes/tmp.
    await run(kubeadm, [
      "init",
      "phase",
      "kubelet-start",
      "--dry-run",
      "--config",
      `${dir}/init.yaml`,
    ], {
      env: { KUBEADM_INIT_DRYRUN_DIR: `${dir}/out` },
    });
    for (const name of ["config.yaml", "instance-config.yaml", "kubeadm-flags.env"]) {
      await Deno.copyFile(`${dir}/out/${name}`, `${OUT}${name}`);
      console.log(`wrote ${OUT}${name}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
