/**
 * kubeadm (cmd/kubeadm of the same k8s.io/kubernetes module as the test control plane), built
 * once per machine into its own bin dir beside the control plane's (so the control plane's
 * cached binaries are not rebuilt), for what it generates for a kubelet: the KubeletConfiguration
 * it writes to /var/lib/kubelet/config.yaml. `tests/support/kubeadm_fixtures.ts` regenerates the
 * checked-in fixtures with it.
 */
import { buildMissing, type GoBuild } from "./_go_build.ts";
import { buildLayout, KUBERNETES_VERSION, kubernetesGoMod } from "./_control_plane_build.ts";
import { devDir } from "./containerd.ts";

/** Builds kubeadm unless cached; returns its path. */
export async function ensureKubeadm(
  opts: { log?: (s: string) => void; signal?: AbortSignal } = {},
): Promise<string> {
  const l = buildLayout(devDir());
  const bin = `${l.root}/${KUBERNETES_VERSION}/kubeadm/bin`;
  const build: GoBuild = {
    what: `kubeadm ${KUBERNETES_VERSION}`,
    module: "k8s.io/kubernetes",
    version: KUBERNETES_VERSION,
    bin,
    commands: { kubeadm: "k8s.io/kubernetes/cmd/kubeadm" },
    ldflags: [
      "-s",
      "-w",
      `-X k8s.io/component-base/version.gitVersion=${KUBERNETES_VERSION}`,
      `-X k8s.io/client-go/pkg/version.gitVersion=${KUBERNETES_VERSION}`,
    ].join(" "),
    goMod: (upstream) => kubernetesGoMod(upstream, KUBERNETES_VERSION),
  };
  await buildMissing(l.root, [build], {
    log: opts.log ?? ((s) => console.error(`[denolet-kubeadm] ${s}`)),
    signal: opts.signal,
  });
  return `${bin}/kubeadm`;
}
