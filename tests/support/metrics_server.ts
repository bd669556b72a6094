/**
 * A real metrics-server (sigs.k8s.io/metrics-server) for the node API suites: built once per
 * machine from the Go module proxy beside the control plane's binaries (cached by version), and
 * run as a process on the host, registered with the test control plane as the
 * `v1beta1.metrics.k8s.io` API service, so `kubectl top` goes API server → metrics-server →
 * the node's `/metrics/resource` over its authenticated port.
 *
 * The API server reaches it through API aggregation, which needs what kubeadm sets up: a
 * front-proxy CA and client certificate (`frontProxyArgs` makes them; pass the flags to
 * `startControlPlane`) and aggregator routing to the endpoint (the service network is not
 * routed on a test machine). The endpoint is a host address (Endpoints refuse loopback).
 */
import { DevSetupError, exists, hasCommand, run } from "./_exec.ts";
import { devDir } from "./containerd.ts";
import type { ControlPlane } from "./control_plane.ts";
import { type Daemon, startDaemon, waitDaemon } from "./_control_plane_process.ts";
import { freePort } from "./wait.ts";
import {
  createCertificate,
  generateKeyPair,
  pem,
  privateKeyPem,
} from "../../src/server/tls/mod.ts";
import { stringify as toYaml } from "yaml";

export const METRICS_SERVER_VERSION = "v0.9.0";
const MODULE = "sigs.k8s.io/metrics-server";

function layout() {
  const root = `${devDir()}/control-plane`;
  return {
    root,
    bin: `${root}/metrics-server/${METRICS_SERVER_VERSION}/bin`,
    lock: `${root}/.metrics-server.lock`,
  };
}

/** Go's caches shared with the control plane's build, so modules download once. */
function goEnv(root: string, gobin: string): Record<string, string> {
  return {
    GOMODCACHE: `${root}/go/mod`,
    GOCACHE: `${root}/go/build-cache-metrics-server`,
    GOPATH: `${root}/go/path`,
    GOBIN: gobin,
    GOFLAGS: "-modcacherw -trimpath -buildvcs=false",
    GOTOOLCHAIN: "local",
    GOWORK: "off",
    GO111MODULE: "on",
    CGO_ENABLED: "0",
  };
}

/**
 * The metrics-server binary, built with `go install <module>/cmd/metrics-server@<version>` unless
 * cached. Parallel callers serialise on a lock file. Throws DevSetupError when it cannot be built.
 */
export async function ensureMetricsServer(
  opts: { log?: (s: string) => void; signal?: AbortSignal } = {},
): Promise<string> {
  const l = layout();
  const binary = `${l.bin}/metrics-server`;
  if (await exists(binary)) return binary;
  if (!(await hasCommand("go"))) {
    throw new DevSetupError("Cannot build metrics-server: the go command is not on PATH");
  }
  await Deno.mkdir(l.root, { recursive: true });
  const lock = await Deno.open(l.lock, { create: true, write: true });
  try {
    await lock.lock(true);
    if (await exists(binary)) return binary;
    const log = opts.log ?? ((s: string) => console.error(`[denolet-metrics-server] ${s}`));
    const tmp = `${l.bin}.tmp-${Deno.pid}`;
    await Deno.remove(tmp, { recursive: true }).catch(ignoreNotFound);
    await Deno.mkdir(tmp, { recursive: true });
    log(
      `building metrics-server ${METRICS_SERVER_VERSION} from the Go module proxy (minutes on a new machine)`,
    );
    const env = goEnv(l.root, tmp);
    try {
      await run("go", [
        "install",
        "-ldflags",
        `-s -w -X sigs.k8s.io/metrics-server/pkg/version.gitVersion=${METRICS_SERVER_VERSION}`,
        `${MODULE}/cmd/metrics-server@${METRICS_SERVER_VERSION}`,
      ], { env, signal: opts.signal });
    } catch (err) {
      throw new DevSetupError(`Cannot build metrics-server ${METRICS_SERVER_VERSION}`, {
        cause: err,
      });
    }
    await Deno.rename(tmp, l.bin);
    // Only the binary is worth keeping once it is cached by version.
    await Deno.remove(env.GOCACHE, { recursive: true }).catch(ignoreNotFound);
    log(`built metrics-server into ${l.bin}`);
    return binary;
  } finally {
    lock.close();
  }
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}

/** The aggregation layer's PKI and the kube-apiserver flags that use it. */
export interface FrontProxy {
  dir: string;
  apiServerArgs: string[];
}

/**
 * A front-proxy CA and the API server's proxy client certificate (what kubeadm calls
 * front-proxy-ca and front-proxy-client), and the flags that turn API aggregation on with them.
 * Made before the control plane starts, as its flags name the files.
 */
export async function frontProxyArgs(): Promise<FrontProxy> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-front-proxy-" });
  const now = Date.now();
  const caKey = await generateKeyPair("ecdsa");
  const caSubject = { commonName: "front-proxy-ca" };
  const issuer = { subject: caSubject, key: caKey, spki: caKey.spki };
  const ca = await createCertificate({
    subject: caSubject,
    publicKey: caKey,
    issuer,
    notBeforeMs: now - 3_600_000,
    notAfterMs: now + 7 * 86_400_000,
    isCA: true,
  });
  const key = await generateKeyPair("ecdsa");
  const client = await createCertificate({
    subject: { commonName: "front-proxy-client" },
    publicKey: key,
    issuer,
    notBeforeMs: now - 3_600_000,
    notAfterMs: now + 7 * 86_400_000,
    isCA: false,
    usages: ["clientAuth"],
  });
  await Deno.writeTextFile(`${dir}/ca.crt`, pem("CERTIFICATE", ca));
  await Deno.writeTextFile(`${dir}/client.crt`, pem("CERTIFICATE", client));
  await Deno.writeTextFile(`${dir}/client.key`, await privateKeyPem(key), { mode: 0o600 });
  return {
    dir,
    apiServerArgs: [
      `--requestheader-client-ca-file=${dir}/ca.crt`,
      "--requestheader-allowed-names=front-proxy-client",
      "--requestheader-username-headers=X-Remote-User",
      "--requestheader-group-headers=X-Remote-Group",
      "--requestheader-extra-headers-prefix=X-Remote-Extra-",
      `--proxy-client-cert-file=${dir}/client.crt`,
      `--proxy-client-key-file=${dir}/client.key`,
      "--enable-aggregator-routing=true",
    ],
  };
}

export interface MetricsServer {
  readonly port: number;
  readonly logFile: string;
  stop(): Promise<void>;
}

/**
 * Starts metrics-server on `host` (an address the API server can route to, not loopback) as
 * cluster admin, registers it as `v1beta1.metrics.k8s.io`, and waits until the API service is
 * Available. It scrapes each node's `/metrics/resource` at the node's InternalIP and status port,
 * without verifying the serving certificate (the nodes' are self-signed).
 */
export async function startMetricsServer(
  cp: ControlPlane,
  opts: { host: string; signal?: AbortSignal },
): Promise<MetricsServer> {
  const binary = await ensureMetricsServer({ signal: opts.signal });
  const dir = await Deno.makeTempDir({ prefix: "denolet-metrics-server-" });
  const port = freePort();
  const logFile = `${dir}/metrics-server.log`;
  const daemon: Daemon = startDaemon("metrics-server", binary, {
    logFile,
    args: [
      `--kubeconfig=${cp.adminKubeconfig}`,
      `--authentication-kubeconfig=${cp.adminKubeconfig}`,
      `--authorization-kubeconfig=${cp.adminKubeconfig}`,
      `--bind-address=${opts.host}`,
      `--secure-port=${port}`,
      `--cert-dir=${dir}/certs`,
      "--kubelet-insecure-tls",
      "--kubelet-preferred-address-types=InternalIP",
      "--kubelet-use-node-status-port",
      // Its minimum: it must be longer than the kubelet request timeout (10 s).
      "--metric-resolution=15s",
      "--v=2",
    ],
  });
  try {
    await cp.kubectl(["apply", "-f", "-"], {
      stdin: [
        {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: "metrics-server", namespace: "kube-system" },
          spec: { ports: [{ name: "https", port: 443, targetPort: port }] },
        },
        {
          apiVersion: "v1",
          kind: "Endpoints",
          metadata: { name: "metrics-server", namespace: "kube-system" },
          subsets: [{ addresses: [{ ip: opts.host }], ports: [{ name: "https", port }] }],
        },
        {
          apiVersion: "apiregistration.k8s.io/v1",
          kind: "APIService",
          metadata: { name: "v1beta1.metrics.k8s.io" },
          spec: {
            group: "metrics.k8s.io",
            version: "v1beta1",
            service: { name: "metrics-server", namespace: "kube-system", port: 443 },
            insecureSkipTLSVerify: true,
            groupPriorityMinimum: 100,
            versionPriority: 100,
          },
        },
      ].map((o) => toYaml(o)).join("---\n"),
    });
    await waitDaemon(daemon, async () => {
      const out = await cp.kubectl([
        "get",
        "apiservice",
        "v1beta1.metrics.k8s.io",
        "-o",
        "jsonpath={.status.conditions[?(@.type=='Available')].status}",
      ]);
      return out.trim() === "True";
    }, {
      what: "the metrics.k8s.io API service Available",
      timeoutMs: 120_000,
      signal: opts.signal,
    });
  } catch (err) {
    // The error carries the daemon's log tail; the dir goes with the daemon.
    await daemon.stop();
    await Deno.remove(dir, { recursive: true });
    throw err;
  }
  return {
    port,
    logFile,
    async stop() {
      await cp.kubectl(["delete", "apiservice", "v1beta1.metrics.k8s.io", "--ignore-not-found"])
        .catch((err) => console.error(`[denolet-metrics-server] ${err}`));
      await daemon.stop();
      if (!Deno.env.get("DENOLET_KEEP_E2E")) await Deno.remove(dir, { recursive: true });
    },
  };
}
