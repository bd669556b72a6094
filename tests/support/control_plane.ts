/**
 * A real Kubernetes control plane on loopback for the API-mode end-to-end suites: etcd,
 * kube-apiserver, kube-controller-manager and kube-scheduler built from the Go module proxy
 * (once per machine, cached by version under the dev directory) and started per test with a
 * fresh PKI, free ports and temp dirs. Provisioning works or the caller fails: nothing is skipped.
 */
import { DenoletError } from "../../src/util/errors.ts";
import { DevSetupError, tryRun } from "./_exec.ts";
import { buildControlPlane, type KubernetesCommand } from "./_control_plane_build.ts";
import { type Daemon, startDaemon, waitDaemon } from "./_control_plane_process.ts";
import {
  apiServerFlags,
  controllerManagerFlags,
  etcdFlags,
  prepareControlPlane,
  schedulerFlags,
} from "./_control_plane_config.ts";
import { devDir } from "./containerd.ts";
import { createBootstrapKubeconfig } from "./_bootstrap_token.ts";
import { type NodeRoute, type NodeTunnel, startNodeTunnel } from "./_node_tunnel.ts";

export { ETCD_VERSION, KUBERNETES_VERSION } from "./_control_plane_build.ts";
export type { NodeRoute } from "./_node_tunnel.ts";

/** A kubectl command exited non-zero. */
export class KubectlError extends DenoletError {
  constructor(
    message: string,
    readonly code: number,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** Absolute paths of the cached binaries. */
export type ControlPlaneBinaries = Record<KubernetesCommand | "etcd", string>;

export interface ControlPlaneBuildOptions {
  /** Progress lines (the first build takes minutes); defaults to stderr. */
  log?: (s: string) => void;
  signal?: AbortSignal;
}

/**
 * Builds etcd and the Kubernetes commands (kube-apiserver, kube-controller-manager,
 * kube-scheduler, kubectl and the upstream kubelet) unless the per-version cache under
 * `<devDir>/control-plane` already holds them. Concurrent callers, other processes too,
 * serialise on a lock file, so the second one reuses what the first built.
 */
export async function ensureControlPlaneBinaries(
  opts: ControlPlaneBuildOptions = {},
): Promise<ControlPlaneBinaries> {
  const l = await buildControlPlane(devDir(), { log: opts.log ?? stderrLog, signal: opts.signal });
  const k = (name: KubernetesCommand) => `${l.kubernetesBin}/${name}`;
  return {
    etcd: `${l.etcdBin}/etcd`,
    "kube-apiserver": k("kube-apiserver"),
    "kube-controller-manager": k("kube-controller-manager"),
    "kube-scheduler": k("kube-scheduler"),
    kubectl: k("kubectl"),
    kubelet: k("kubelet"),
  };
}

export interface ControlPlaneOptions extends ControlPlaneBuildOptions {
  /** --service-cluster-ip-range; its first address is the `kubernetes` service's. */
  serviceClusterIPRange?: string;
  /** Extra kube-apiserver flags, appended last so they override the defaults. */
  apiServerArgs?: string[];
  /** Extra kube-controller-manager flags (`--cluster-signing-duration=5m`), appended last. */
  controllerManagerArgs?: string[];
  /**
   * More addresses or names in the API server's serving certificate, for clients that reach it
   * through a forward (a VM guest at qemu's 10.0.2.x); it still listens on 127.0.0.1 only.
   */
  extraServingHosts?: string[];
  /**
   * Where the API server's connections to nodes (logs, exec, port-forward, node proxy) go, for
   * nodes whose addresses the host cannot route to: an egress selector and a CONNECT proxy pipe
   * each to what this returns (tests/support/_node_tunnel.ts). Default: dialled directly.
   */
  nodeRoute?: NodeRoute;
}

export interface KubectlOptions {
  /** Written to kubectl's stdin (for `apply -f -`). */
  stdin?: string;
  /** Defaults to the admin kubeconfig. */
  kubeconfig?: string;
  signal?: AbortSignal;
}

export interface ControlPlane {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** The cluster CA (PEM): it signs the serving certificates, the clients' and CSRs. */
  readonly caFile: string;
  /** A kubeconfig for `kubernetes-admin` in `system:masters`. */
  readonly adminKubeconfig: string;
  readonly serviceClusterIPRange: string;
  /** The temp dir holding the PKI, etcd's data, kubeconfigs and the daemons' logs. */
  readonly dir: string;
  readonly binaries: ControlPlaneBinaries;
  /** Runs kubectl (admin by default) and returns its stdout; throws `KubectlError` on failure. */
  kubectl(args: string[], opts?: KubectlOptions): Promise<string>;
  /**
   * Writes a kubeconfig whose client certificate says `CN=system:node:<nodeName>,
   * O=system:nodes` (what a kubelet authenticates with) and returns its path.
   */
  nodeKubeconfig(nodeName: string): Promise<string>;
  /**
   * What `kubeadm init` and `kubeadm join` give a node to join with: a new bootstrap token in
   * kube-system, kubeadm's bindings that let its group post CSRs and have them approved (and
   * nodes their renewals), and a kubeconfig with the token. Returns the kubeconfig's path.
   * `server`: the URL the node reaches the API server at, when not `server` (a forward).
   */
  bootstrapKubeconfig(opts?: { server?: string }): Promise<string>;
  /** Stops the API server (etcd and its data stay); the other daemons keep retrying. */
  stopApiServer(): Promise<void>;
  /** Starts the API server again on the same port and data, and waits for /readyz. */
  startApiServer(opts?: { signal?: AbortSignal }): Promise<void>;
  /** Stops etcd (its data stays): the API server answers errors until it is back. */
  stopEtcd(): Promise<void>;
  /** Starts etcd again on the same ports and data, and waits for its /health. */
  startEtcd(opts?: { signal?: AbortSignal }): Promise<void>;
  /** The running daemons, for tests that check nothing outlives `stop()`. */
  processes(): { name: string; pid: number }[];
  /** Stops every daemon and removes the temp dir (kept when DENOLET_KEEP_E2E is set). Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const DEFAULT_SERVICE_RANGE = "10.96.0.0/12";
const API_READY_TIMEOUT_MS = 180_000;
const COMPONENT_READY_TIMEOUT_MS = 120_000;

/**
 * Provisions the binaries if needed and starts etcd, kube-apiserver, kube-controller-manager and
 * kube-scheduler on free loopback ports. Returns once the API server is ready, both controllers
 * answer /healthz and the `default` service account exists (the controller manager works).
 */
export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = await ensureControlPlaneBinaries(opts);
  const dir = await Deno.makeTempDir({ prefix: "denolet-cp-" });
  const daemons: Daemon[] = [];
  let tunnel: NodeTunnel | undefined;
  try {
    if (opts.nodeRoute) tunnel = await startNodeTunnel(dir, opts.nodeRoute, opts.log ?? stderrLog);
    return await startIn(dir, binaries, { daemons, tunnel }, opts);
  } catch (err) {
    for (const d of daemons.reverse()) await d.stop();
    await tunnel?.close();
    await removeDir(dir);
    throw err;
  }
}

async function startIn(
  dir: string,
  binaries: ControlPlaneBinaries,
  owned: { daemons: Daemon[]; tunnel?: NodeTunnel },
  opts: ControlPlaneOptions,
): Promise<ControlPlane> {
  const { signal } = opts;
  const { daemons, tunnel } = owned;
  const setup = await prepareControlPlane(
    dir,
    opts.serviceClusterIPRange ?? DEFAULT_SERVICE_RANGE,
    { extraServingHosts: opts.extraServingHosts },
  );
  const { pki, ports, server, kubeconfigs } = setup;
  const caPem = await Deno.readTextFile(pki.ca.cert);
  const daemon = (name: keyof ControlPlaneBinaries, args: string[]) => {
    const d = startDaemon(name, binaries[name], { logFile: `${setup.logDir}/${name}.log`, args });
    daemons.push(d);
    return d;
  };

  const startEtcd = async (s?: AbortSignal) => {
    const d = daemon("etcd", etcdFlags(setup));
    await waitDaemon(d, () => etcdHealthy(setup.etcdURL), {
      what: "etcd /health",
      timeoutMs: COMPONENT_READY_TIMEOUT_MS,
      signal: s,
    });
    return d;
  };
  let etcd = await startEtcd(signal);

  const apiServerArgs = [
    ...apiServerFlags(setup),
    ...(tunnel ? [`--egress-selector-config-file=${tunnel.configFile}`] : []),
    ...(opts.apiServerArgs ?? []),
  ];
  const startApi = async (s?: AbortSignal) => {
    const d = daemon("kube-apiserver", apiServerArgs);
    await waitDaemon(d, () => httpsOk(`${server}/readyz`, caPem), {
      what: "kube-apiserver /readyz",
      timeoutMs: API_READY_TIMEOUT_MS,
      signal: s,
    });
    return d;
  };
  let apiServer = await startApi(signal);

  const controllerManager = daemon("kube-controller-manager", [
    ...controllerManagerFlags(setup),
    ...(opts.controllerManagerArgs ?? []),
  ]);
  const scheduler = daemon("kube-scheduler", schedulerFlags(setup));
  const healthz = (d: Daemon, port: number) =>
    waitDaemon(d, () => httpsOk(`https://127.0.0.1:${port}/healthz`, caPem), {
      what: `${d.name} /healthz`,
      timeoutMs: COMPONENT_READY_TIMEOUT_MS,
      signal,
    });
  await Promise.all([
    healthz(controllerManager, ports.controllerManager),
    healthz(scheduler, ports.scheduler),
  ]);

  const kubectl = async (args: string[], k: KubectlOptions = {}) => {
    const res = await tryRun(binaries.kubectl, [
      `--kubeconfig=${k.kubeconfig ?? kubeconfigs.admin}`,
      ...args,
    ], {
      stdin: k.stdin === undefined ? undefined : new TextEncoder().encode(k.stdin),
      signal: k.signal,
    });
    if (res.code !== 0) {
      throw new KubectlError(
        `kubectl ${args.join(" ")} exited with ${res.code}: ${res.stderr.trim()}`,
        res.code,
        res.stderr,
      );
    }
    return res.stdout;
  };
  // The service-account controller creates it: proof that the controller manager reached the
  // API server with its own credentials, and what pods in `default` need to be admitted.
  await waitDaemon(controllerManager, async () => {
    await kubectl(["get", "serviceaccount", "default", "-n", "default", "-o", "name"]);
    return true;
  }, { what: "the default service account", timeoutMs: COMPONENT_READY_TIMEOUT_MS, signal });

  let stopped = false;
  const plane: ControlPlane = {
    server,
    caFile: pki.ca.cert,
    adminKubeconfig: kubeconfigs.admin,
    serviceClusterIPRange: setup.serviceRange,
    dir,
    binaries,
    kubectl,
    async nodeKubeconfig(nodeName) {
      const client = await pki.issue({
        name: `node-${nodeName}`,
        commonName: `system:node:${nodeName}`,
        organizations: ["system:nodes"],
        usage: "client",
      });
      return await setup.kubeconfig(`node-${nodeName}`, client, `system:node:${nodeName}`);
    },
    async bootstrapKubeconfig(b = {}) {
      const made = await createBootstrapKubeconfig(
        `${dir}/kubeconfig/bootstrap-${crypto.randomUUID().slice(0, 8)}.kubeconfig`,
        {
          server: b.server ?? server,
          caPem,
          nowMs: Date.now(),
          apply: async (yaml) => void await kubectl(["apply", "-f", "-"], { stdin: yaml }),
        },
      );
      return made.path;
    },
    async stopApiServer() {
      await apiServer.stop();
    },
    async startApiServer(s = {}) {
      if (apiServer.running()) return;
      apiServer = await startApi(s.signal);
    },
    async stopEtcd() {
      await etcd.stop();
    },
    async startEtcd(s = {}) {
      if (etcd.running()) return;
      etcd = await startEtcd(s.signal);
    },
    processes: () => daemons.filter((d) => d.running()).map((d) => ({ name: d.name, pid: d.pid })),
    async stop() {
      if (stopped) return;
      stopped = true;
      // Clients first, etcd last: the API server's shutdown still reaches its store.
      const etcdLast = (d: Daemon) => d.name === "etcd" ? 1 : 0;
      for (const d of [...daemons].reverse().sort((a, b) => etcdLast(a) - etcdLast(b))) {
        await d.stop();
      }
      await tunnel?.close();
      if (!Deno.env.get("DENOLET_KEEP_E2E")) await removeDir(dir);
    },
    async [Symbol.asyncDispose]() {
      await plane.stop();
    },
  };
  return plane;
}

async function etcdHealthy(url: string): Promise<boolean> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
  const body = await res.text();
  return res.ok && /"health":\s*"true"/.test(body);
}

/** GET `url` trusting the cluster CA (`caPem`) for its serving certificate; true on 200. */
async function httpsOk(url: string, caPem: string): Promise<boolean> {
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  try {
    const res = await fetch(url, { client, signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
    return res.status === 200;
  } finally {
    client.close();
  }
}

async function removeDir(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw new DevSetupError(`Cannot remove the control plane's dir ${path}`, { cause: err });
  }
}

function stderrLog(s: string): void {
  console.error(`[denolet-cp] ${s}`);
}
