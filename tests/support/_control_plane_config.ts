/**
 * What one test control plane is made of before anything runs: free loopback ports, the PKI
 * (certificates, service-account keys, kubeconfigs) and each daemon's command line. Private to
 * tests/support; `control_plane.ts` runs it.
 */
import { DevSetupError } from "./_exec.ts";
import { type CertFiles, Pki } from "./_pki.ts";
import { freePort } from "./wait.ts";

export interface ControlPlaneSetup {
  /** The control plane's temp dir. */
  dir: string;
  logDir: string;
  serviceRange: string;
  ports: {
    etcdClient: number;
    etcdPeer: number;
    apiServer: number;
    controllerManager: number;
    scheduler: number;
  };
  /** `https://127.0.0.1:<apiServer port>` */
  server: string;
  /** `http://127.0.0.1:<etcd client port>` */
  etcdURL: string;
  pki: Pki;
  certs: ControlPlaneCerts;
  serviceAccount: { privateKey: string; publicKey: string };
  kubeconfigs: { admin: string; controllerManager: string; scheduler: string };
  /** Writes `<dir>/kubeconfig/<name>.kubeconfig` for `server` and returns its path. */
  kubeconfig(name: string, client: CertFiles, user: string): Promise<string>;
}

export interface ControlPlaneCerts {
  /**
   * Serving: 127.0.0.1, localhost, the first service IP, any extra serving hosts and the
   * `kubernetes` service names.
   */
  apiServer: CertFiles;
  /** The API server's client certificate towards kubelets (logs, exec, port-forward). */
  kubeletClient: CertFiles;
  admin: CertFiles;
  controllerManager: CertFiles;
  scheduler: CertFiles;
  /** Serving on 127.0.0.1 for the controller manager's and scheduler's /healthz. */
  loopbackServing: CertFiles;
}

/**
 * Picks the ports and writes the PKI and kubeconfigs under `dir`; `extraServingHosts` join the
 * API server's serving certificate.
 */
export async function prepareControlPlane(
  dir: string,
  serviceRange: string,
  opts: { extraServingHosts?: string[] } = {},
): Promise<ControlPlaneSetup> {
  const logDir = `${dir}/log`;
  await Deno.mkdir(logDir, { recursive: true });
  await Deno.mkdir(`${dir}/kubeconfig`, { recursive: true });
  // Each port stays unbound until its daemon starts, so each pick avoids the ones before it.
  const picked: number[] = [];
  const pick = () => {
    const port = freePort(picked);
    picked.push(port);
    return port;
  };
  const ports = {
    etcdClient: pick(),
    etcdPeer: pick(),
    apiServer: pick(),
    controllerManager: pick(),
    scheduler: pick(),
  };
  const server = `https://127.0.0.1:${ports.apiServer}`;
  const pki = await Pki.create(`${dir}/pki`);
  const [certs, serviceAccount] = await Promise.all([
    issueCerts(pki, [firstServiceIP(serviceRange), ...(opts.extraServingHosts ?? [])]),
    pki.serviceAccountKeys(),
  ]);
  const kubeconfig = (name: string, client: CertFiles, user: string) =>
    pki.writeKubeconfig(`${dir}/kubeconfig/${name}.kubeconfig`, { server, client, user });
  const kubeconfigs = {
    admin: await kubeconfig("admin", certs.admin, "kubernetes-admin"),
    controllerManager: await kubeconfig(
      "controller-manager",
      certs.controllerManager,
      "system:kube-controller-manager",
    ),
    scheduler: await kubeconfig("scheduler", certs.scheduler, "system:kube-scheduler"),
  };
  return {
    dir,
    logDir,
    serviceRange,
    ports,
    server,
    etcdURL: `http://127.0.0.1:${ports.etcdClient}`,
    pki,
    certs,
    serviceAccount,
    kubeconfigs,
    kubeconfig,
  };
}

export function etcdFlags(s: ControlPlaneSetup): string[] {
  const peerURL = `http://127.0.0.1:${s.ports.etcdPeer}`;
  return [
    "--name=default",
    `--data-dir=${s.dir}/etcd`,
    `--listen-client-urls=${s.etcdURL}`,
    `--advertise-client-urls=${s.etcdURL}`,
    `--listen-peer-urls=${peerURL}`,
    `--initial-advertise-peer-urls=${peerURL}`,
    `--initial-cluster=default=${peerURL}`,
    // A throwaway store: durability is not worth the fsync cost on a shared test machine.
    "--unsafe-no-fsync",
    "--log-level=warn",
  ];
}

export function apiServerFlags(s: ControlPlaneSetup): string[] {
  return [
    `--etcd-servers=${s.etcdURL}`,
    "--bind-address=127.0.0.1",
    `--secure-port=${s.ports.apiServer}`,
    // On loopback the API server must not publish itself as the `kubernetes` service's
    // endpoint (a loopback address is not a valid one), so no endpoint reconciler at all.
    "--advertise-address=127.0.0.1",
    "--endpoint-reconciler-type=none",
    `--cert-dir=${s.dir}/apiserver`,
    `--tls-cert-file=${s.certs.apiServer.cert}`,
    `--tls-private-key-file=${s.certs.apiServer.key}`,
    `--client-ca-file=${s.pki.ca.cert}`,
    `--kubelet-client-certificate=${s.certs.kubeletClient.cert}`,
    `--kubelet-client-key=${s.certs.kubeletClient.key}`,
    "--kubelet-preferred-address-types=InternalIP,Hostname,ExternalIP",
    "--authorization-mode=Node,RBAC",
    // Added to the default plugins (NamespaceLifecycle, ServiceAccount, ...), as kubeadm does.
    "--enable-admission-plugins=NodeRestriction",
    "--enable-bootstrap-token-auth=true",
    "--allow-privileged=true",
    "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
    `--service-account-key-file=${s.serviceAccount.publicKey}`,
    `--service-account-signing-key-file=${s.serviceAccount.privateKey}`,
    `--service-cluster-ip-range=${s.serviceRange}`,
    // Otherwise a stop waits out --request-timeout (1 min) for the controllers' open watch
    // streams; this way the HTTP server gets 2 s once in-flight requests have drained.
    "--shutdown-send-retry-after=true",
    "--v=2",
  ];
}

export function controllerManagerFlags(s: ControlPlaneSetup): string[] {
  return [
    ...componentFlags(s, s.kubeconfigs.controllerManager, s.ports.controllerManager),
    "--controllers=*,bootstrapsigner,tokencleaner",
    "--use-service-account-credentials=true",
    `--root-ca-file=${s.pki.ca.cert}`,
    `--service-account-private-key-file=${s.serviceAccount.privateKey}`,
    // The cluster CA signs approved CSRs (kubelet client and serving certificates).
    `--cluster-signing-cert-file=${s.pki.ca.cert}`,
    `--cluster-signing-key-file=${s.pki.ca.key}`,
    `--service-cluster-ip-range=${s.serviceRange}`,
    "--cluster-name=denolet-test",
  ];
}

export function schedulerFlags(s: ControlPlaneSetup): string[] {
  return componentFlags(s, s.kubeconfigs.scheduler, s.ports.scheduler);
}

function componentFlags(s: ControlPlaneSetup, kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    "--bind-address=127.0.0.1",
    `--secure-port=${port}`,
    `--tls-cert-file=${s.certs.loopbackServing.cert}`,
    `--tls-private-key-file=${s.certs.loopbackServing.key}`,
    // A leader that cannot renew its lease exits; the API-mode suites stop the API server
    // for a minute and need the controllers still there when it comes back.
    "--leader-elect=false",
    "--v=2",
  ];
}

/** `apiServerHosts`: the first service IP, then any extra serving addresses or names. */
async function issueCerts(pki: Pki, apiServerHosts: string[]): Promise<ControlPlaneCerts> {
  const [apiServer, kubeletClient, admin, controllerManager, scheduler, loopbackServing] =
    await Promise.all([
      pki.issue({
        name: "apiserver",
        commonName: "kube-apiserver",
        usage: "server",
        hosts: [
          "127.0.0.1",
          "localhost",
          ...apiServerHosts,
          "kubernetes",
          "kubernetes.default",
          "kubernetes.default.svc",
          "kubernetes.default.svc.cluster.local",
        ],
      }),
      pki.issue({
        name: "apiserver-kubelet-client",
        commonName: "kube-apiserver-kubelet-client",
        organizations: ["system:masters"],
        usage: "client",
      }),
      pki.issue({
        name: "admin",
        commonName: "kubernetes-admin",
        organizations: ["system:masters"],
        usage: "client",
      }),
      // The bootstrap RBAC policy binds these user names to the components' roles.
      pki.issue({
        name: "controller-manager",
        commonName: "system:kube-controller-manager",
        usage: "client",
      }),
      pki.issue({ name: "scheduler", commonName: "system:kube-scheduler", usage: "client" }),
      pki.issue({
        name: "loopback-serving",
        commonName: "denolet-test-loopback",
        usage: "server",
        hosts: ["127.0.0.1", "localhost"],
      }),
    ]);
  return { apiServer, kubeletClient, admin, controllerManager, scheduler, loopbackServing };
}

/** The first usable address of an IPv4 CIDR: 10.96.0.0/12 → 10.96.0.1. */
export function firstServiceIP(cidr: string): string {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/(\d+)$/.exec(cidr);
  if (!m || Number(m[5]) > 30) {
    throw new DevSetupError(`Cannot use service range ${cidr}: not an IPv4 CIDR of /30 or wider`);
  }
  const bits = Number(m[5]);
  const ip = m.slice(1, 5).reduce((acc, o) => acc * 256 + Number(o), 0);
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  const first = (((ip & mask) >>> 0) + 1) >>> 0;
  return [24, 16, 8, 0].map((shift) => (first >>> shift) & 255).join(".");
}
