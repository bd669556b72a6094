/**
 * API mode on the VM: a fresh node joins the test control plane on the host as README's
 * "Joining a cluster" and "Install" tell an operator (the way `kubeadm join` makes a kubelet
 * join): the cluster CA in /etc/kubernetes/pki/ca.crt, a bootstrap token's kubeconfig in
 * /etc/kubernetes/bootstrap-kubelet.conf, `denolet install --kubeconfig
 * /etc/kubernetes/kubelet.conf` (a file not there yet), kubeadm's `cgroupDriver: systemd`, and
 * a drop-in adding --bootstrap-kubeconfig and --rotate-certificates.
 *
 * Networking under qemu's user mode: the guest reaches the API server at API_HOST:API_PORT (a
 * guestfwd to its loopback port; the serving certificate names API_HOST). The API server
 * reaches the node where a real one would, its InternalIP (the guest's 10.0.2.15) and port
 * 10250, through its egress selector (tests/support/_node_tunnel.ts) and a host forward: what
 * kubectl logs and exec need. One control plane serves every architecture, one VM at a time.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { type ControlPlane, startControlPlane } from "../support/control_plane.ts";
import { GUEST_IP, type TestVm, type VmArch, withVm } from "../support/vm/machine.ts";
import {
  agentLog,
  assertPodSlice,
  busyboxPod,
  eventually,
  installAgent,
  running,
  unitProps,
  WEB_RESOURCES,
  webSlice,
} from "./_node.ts";

/** An address of qemu's network that only the guestfwd answers on. */
const API_HOST = "10.0.2.100";
/** kubeadm's API server port. */
const API_PORT = 6443;
const NODE_PORT = 10250;
const MIN = 60_000;

/** What `kubeadm join` leaves for the kubelet, where it leaves it. */
const BOOTSTRAP = "/etc/kubernetes/bootstrap-kubelet.conf";
const KUBECONFIG = "/etc/kubernetes/kubelet.conf";
const CLUSTER_CA = "/etc/kubernetes/pki/ca.crt";
/** README ("Install"): the bootstrap flags in a drop-in; ExecStart is cleared before it is set. */
const DROP_IN = [
  "[Service]",
  "ExecStart=",
  `ExecStart=/usr/local/bin/denolet --config /etc/denolet/config.yaml --kubeconfig ${KUBECONFIG} ` +
  `--bootstrap-kubeconfig=${BOOTSTRAP} --rotate-certificates`,
].join("\n");

/** The control plane the VMs join, started on first use, and the VM it reaches now. */
export class VmCluster {
  #plane?: Promise<ControlPlane>;
  #node?: TestVm;
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.#log = log;
  }

  /** Boots a VM the control plane and the VM reach each other from, and runs `fn` with it. */
  async withNode<T>(arch: VmArch, fn: (vm: TestVm, cp: ControlPlane) => Promise<T>): Promise<T> {
    const cp = await (this.#plane ??= startControlPlane({
      extraServingHosts: [API_HOST],
      nodeRoute: (address) =>
        this.#node && address === `${GUEST_IP}:${NODE_PORT}`
          ? { hostname: "127.0.0.1", port: this.#node.hostPort(NODE_PORT) }
          : undefined,
      log: this.#log,
    }));
    return await withVm({
      arch,
      log: this.#log,
      forwardPorts: [NODE_PORT],
      hostServices: [{ guest: `${API_HOST}:${API_PORT}`, host: new URL(cp.server).host }],
    }, async (vm) => {
      this.#node = vm;
      try {
        return await fn(vm, cp);
      } finally {
        this.#node = undefined;
      }
    });
  }

  async stop(): Promise<void> {
    const plane = this.#plane;
    this.#plane = undefined;
    // A control plane that failed to start failed the test that waited for it.
    const cp = await plane?.catch((err) =>
      this.#log(`vm: the control plane did not start: ${err}`)
    );
    await cp?.stop();
  }
}

/** The node name: the guest's hostname, one per architecture. */
export function nodeName(arch: VmArch): string {
  return `denolet-vm-${arch}`;
}

/** Joins the VM's agent to `cp` with a bootstrap token; returns once its Node is Ready. */
export async function join(vm: TestVm, packed: string, cp: ControlPlane): Promise<V1Node> {
  const name = nodeName(vm.arch);
  await vm.sh("systemctl is-system-running --wait || true");
  await vm.sh(`hostnamectl set-hostname ${name} && mkdir -p /etc/kubernetes/pki`);
  await vm.put(cp.caFile, CLUSTER_CA);
  await vm.put(
    await cp.bootstrapKubeconfig({ server: `https://${API_HOST}:${API_PORT}` }),
    BOOTSTRAP,
  );
  await installAgent(vm, packed, {
    installArgs: ["--kubeconfig", KUBECONFIG],
    config: "cgroupDriver: systemd",
    dropIn: DROP_IN,
  });
  const node = await eventually(`Node ${name} Ready`, 10 * MIN, async () => {
    const n = JSON.parse(await cp.kubectl(["get", "node", name, "-o", "json"])) as V1Node;
    return n.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True")
      ? n
      : undefined;
  });
  assert.equal(node.metadata?.labels?.["kubernetes.io/arch"], vm.arch);
  assert.deepEqual(
    node.status?.addresses?.find((a) => a.type === "InternalIP")?.address,
    GUEST_IP,
  );
  assert.equal(node.status?.daemonEndpoints?.kubeletEndpoint?.Port, NODE_PORT);
  // The agent wrote --kubeconfig itself, for the client certificate its CSR was issued.
  assert.match(
    await vm.sh(`cat ${KUBECONFIG}`),
    /client-certificate: \/var\/lib\/kubelet\/pki\/kubelet-client-current\.pem/,
  );
  assert.match(await agentLog(vm), /Pod cgroups enabled.*driver=systemd/);
  return node;
}

/** A pod scheduled by nodeSelector to the VM's node, Running; returns it as the API has it. */
export async function runPod(vm: TestVm, cp: ControlPlane): Promise<V1Pod> {
  const pod = podName(vm.arch);
  await cp.kubectl(["apply", "-f", "-"], {
    stdin: busyboxPod(pod, {
      spec: `  nodeSelector: { kubernetes.io/hostname: ${nodeName(vm.arch)} }`,
      resources: WEB_RESOURCES,
      greeting: "hello from $(hostname)",
    }),
  });
  // What the agent reports reaches the API server: the phase, Ready, the addresses.
  const running_ = await eventually(`${pod} Running and Ready`, 10 * MIN, async () => {
    const p = JSON.parse(await cp.kubectl(["get", "pod", pod, "-o", "json"])) as V1Pod;
    const ready = p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True");
    return running(p) && ready ? p : undefined;
  });
  assert.equal(running_.spec?.nodeName, nodeName(vm.arch));
  assert.equal(running_.status?.hostIP, GUEST_IP);
  // The guest's CNI bridge network (10.88.0.0/16).
  assert.match(running_.status?.podIP ?? "", /^10\.88\.\d+\.\d+$/);
  assert.equal(running_.status?.qosClass, "Guaranteed");
  await assertPodSlice(vm, running_, webSlice(running_.metadata!.uid!));
  return running_;
}

/** kubectl logs and exec through the API server, which reaches the node's port 10250. */
export async function logsAndExec(vm: TestVm, cp: ControlPlane): Promise<void> {
  const pod = podName(vm.arch);
  assert.equal(await cp.kubectl(["logs", pod]), `hello from ${pod}\n`);
  const out = await cp.kubectl([
    "exec",
    pod,
    "--",
    "sh",
    "-c",
    "echo exec in $(hostname); cat /sys/fs/cgroup/memory.max",
  ]);
  // Inside its cgroup namespace the container sees its own scope's limit.
  assert.equal(out, `exec in ${pod}\n${128 * 2 ** 20}\n`);
}

/** Deleting the pod stops it and removes it, its slice, its cgroup and its containers. */
export async function deletePod(vm: TestVm, cp: ControlPlane, pod: V1Pod): Promise<void> {
  const slice = webSlice(pod.metadata!.uid!);
  await cp.kubectl(["delete", "pod", podName(vm.arch), "--wait=true", "--timeout=600s"]);
  await eventually(`${podName(vm.arch)}'s slice gone`, 5 * MIN, async () => {
    const unit = await unitProps(vm, slice.dir.split("/").at(-1)!, ["ActiveState"]);
    const dir = await vm.exec(`test -e /sys/fs/cgroup/${slice.dir}`);
    return unit.ActiveState === "inactive" && dir.code !== 0 ? true : undefined;
  });
  const ids = (pod.status?.containerStatuses ?? []).map((c) =>
    c.containerID!.replace(/^containerd:\/\//, "")
  );
  assert.ok(ids.length > 0 && ids.every((id) => /^[0-9a-f]{64}$/.test(id)), `${ids}`);
  // Exited containers and the sandbox of a deleted pod go with the next garbage collection
  // (every minute): nothing labelled with its UID is left in containerd.
  const ofPod = `ctr -n k8s.io containers ls -q 'labels."io.kubernetes.pod.uid"==${
    pod.metadata!.uid
  }'`;
  await eventually(`${podName(vm.arch)}'s containers and sandbox removed`, 5 * MIN, async () => {
    const left = await vm.sh("ctr -n k8s.io containers ls -q");
    return ids.every((id) => !left.includes(id)) && (await vm.sh(ofPod)).trim() === ""
      ? true
      : undefined;
  });
}

function podName(arch: VmArch): string {
  return `vm-web-${arch}`;
}
