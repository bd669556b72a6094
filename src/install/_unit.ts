/**
 * The systemd unit, after the kubelet's (kubeadm's kubelet.service) with the container runtime
 * ordering edge-node distributions add (k3s: After=containerd, KillMode=process).
 */

export interface UnitOptions {
  /** Absolute path of the binary on the node (without --prefix). */
  binary: string;
  /** Absolute path of the config file on the node. */
  configFile: string;
  /** The node's kubeconfig (API-server mode); absent for a standalone node. */
  kubeconfig?: string;
}

export function renderUnit(opts: UnitOptions): string {
  return [
    "[Unit]",
    "Description=denolet: a Kubernetes node agent",
    "Documentation=https://kubernetes.io/docs/reference/command-line-tools-reference/kubelet/",
    // Wants, not Requires: a containerd restart must not stop the agent. It reports the runtime
    // as down and resumes when the socket is back, as the kubelet does.
    "Wants=network-online.target containerd.service",
    "After=network-online.target containerd.service",
    // kubeadm's kubelet.service: retry every 10 s forever, never enter the failed state (a
    // [Unit] setting: systemd ignores it under [Service]).
    "StartLimitIntervalSec=0",
    "",
    "[Service]",
    `ExecStart=${opts.binary} --config ${opts.configFile}` +
    (opts.kubeconfig ? ` --kubeconfig ${opts.kubeconfig}` : ""),
    "Restart=on-failure",
    "RestartSec=10",
    // Containers are children of containerd-shim, but anything mount(8) leaves must not be
    // killed with the agent; only the agent process is stopped, pods keep running.
    "KillMode=process",
    // The kubelet sets oom_score_adj -999 on itself; denolet has no /proc write permission, so
    // systemd does it.
    "OOMScoreAdjust=-999",
    // The kubelet raises its own open-file limit to maxOpenFiles (1000000); systemd does it here.
    "LimitNOFILE=1000000",
    "",
    "[Install]",
    "WantedBy=multi-user.target",
    "",
  ].join("\n");
}
