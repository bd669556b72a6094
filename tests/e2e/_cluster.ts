/**
 * Set-up for the API-mode end-to-end suites: a real control plane (tests/support/control_plane.ts)
 * and a denolet agent joined to it with a node kubeconfig, on the dev containerd, plus kubectl
 * helpers. One control plane per test file: start it once, share it between steps.
 */
import { stringify as toYaml } from "yaml";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { detectNodeIP } from "../../src/agent/_node_ip.ts";
import { createCriClient, type CriClient } from "../../src/cri/mod.ts";
import {
  type AgentProcess,
  removeAgentSandboxes,
  removeCgroupTree,
  startAgent,
  waitFor,
} from "../support/agent.ts";
import { freePort, type WaitOptions } from "../support/wait.ts";
import { nodeApiClusterArgs, unmountUnder } from "../support/cluster_node.ts";
import { type DevOptions, ensureContainerd } from "../support/containerd.ts";
import {
  type ControlPlane,
  type KubectlOptions,
  startControlPlane,
} from "../support/control_plane.ts";
import { BUSYBOX } from "./_helpers.ts";

export { BUSYBOX, E2E_TEST } from "./_helpers.ts";

export interface ClusterOptions {
  /** Extra agent flags, appended last (before `nodeApi`'s). */
  extraArgs?: string[];
  /**
   * Serve the node API to the API server, as a cluster node does (`nodeApiClusterArgs`: on every
   * interface at the node's InternalIP, cluster CA, webhook authn/authz), on `port` (default a
   * free one), for suites that go through the API server's node proxy (logs, exec, debug).
   * Fails when the machine has no non-loopback address for the node.
   */
  nodeApi?: { port?: number };
  /** Reuse a running control plane (several agents, or a restart test). */
  controlPlane?: ControlPlane;
  /** The node name; default a unique `e2e-node-<pid>-<n>`. */
  nodeName?: string;
  /** The agent's program; default main.ts (the bench passes the package's bundle). */
  mainModule?: string;
  /** Extra `deno run` flags for the agent (the CPU profiler's `--inspect=...`). */
  denoFlags?: string[];
  /** Another containerd than the shared dev one (its flavour, dir, network). */
  runtime?: DevOptions;
  /** The server URL the agent's kubeconfig names (a proxy in front); the API server's by default. */
  apiServerURL?: string;
  /** Extra environment for the agent process. */
  env?: Record<string, string>;
  /**
   * `token`: join as `kubeadm join` makes a kubelet do, from a bootstrap kubeconfig alone
   * (`--bootstrap-kubeconfig`, a `--kubeconfig` not there yet, `--rotate-certificates`); the
   * default gives a ready-made node kubeconfig.
   */
  join?: "kubeconfig" | "token";
}

export interface ClusterE2E {
  readonly cp: ControlPlane;
  readonly agent: AgentProcess;
  readonly nodeName: string;
  readonly cri: CriClient;
  /** The agent's root dir and static pod dir (kept across `restartAgent`). */
  readonly rootDir: string;
  readonly manifestDir: string;
  /** The kubeconfig the agent runs with (written by the agent itself when it joined by token). */
  readonly kubeconfig: string;
  /** kubectl as cluster admin; returns stdout. */
  kubectl(args: string[], opts?: KubectlOptions): Promise<string>;
  /** `kubectl apply -f -` of objects (YAML). */
  apply(...objects: unknown[]): Promise<void>;
  /** `kubectl get <args> -o json`, parsed; undefined when kubectl says NotFound. */
  getJson<T>(args: string[]): Promise<T | undefined>;
  /** A pod as the API server has it. */
  pod(name: string, namespace?: string): Promise<V1Pod | undefined>;
  /** Polls until `pred` holds for the pod; returns it. */
  waitPod(
    name: string,
    pred: (p: V1Pod) => boolean,
    opts: WaitOptions & { namespace?: string },
  ): Promise<V1Pod>;
  /** Polls until the API server has the Node Ready; returns it. */
  waitNodeReady(opts: WaitOptions): Promise<V1Node>;
  /** Stops the agent (its pods keep running) and starts it again on the same state. */
  restartAgent(
    opts?: { extraArgs?: string[]; whileStopped?: () => Promise<void> },
  ): Promise<void>;
  /** Stops the agent, removes its sandboxes, the Node object, and (if it started it) the control plane. */
  close(): Promise<void>;
}

let nodeCount = 0;

export async function setupCluster(opts: ClusterOptions = {}): Promise<ClusterE2E> {
  const runtime = await ensureContainerd(opts.runtime);
  const ownsControlPlane = opts.controlPlane === undefined;
  const nodeIP = opts.nodeApi && detectNodeIP();
  if (opts.nodeApi && !nodeIP) {
    throw new Error(
      "Cannot serve the node API: the machine has no non-loopback address for the node",
    );
  }
  const cp = opts.controlPlane ?? await startControlPlane();
  const nodeName = opts.nodeName ?? `e2e-node-${Deno.pid}-${++nodeCount}`;
  const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-cluster-" });
  let kubeconfig: string;
  let joinArgs: string[] = [];
  const nodeApiArgs = opts.nodeApi && nodeIP
    ? nodeApiClusterArgs({ nodeIP, caFile: cp.caFile, port: opts.nodeApi.port ?? freePort() })
    : [];
  if (opts.join === "token") {
    kubeconfig = `${tmp}/kubelet.conf`;
    joinArgs = ["--bootstrap-kubeconfig", await cp.bootstrapKubeconfig(), "--rotate-certificates"];
  } else kubeconfig = await cp.nodeKubeconfig(nodeName);
  if (opts.apiServerURL) {
    const text = await Deno.readTextFile(kubeconfig);
    kubeconfig = kubeconfig.replace(/(\.[a-z]+)?$/, "-via$1");
    await Deno.writeTextFile(kubeconfig, text.replaceAll(cp.server, opts.apiServerURL));
  }
  const rootDir = `${tmp}/root`;
  const manifestDir = `${tmp}/manifests`;
  await Deno.mkdir(manifestDir, { recursive: true });
  const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
  const start = (extra: string[] = []) =>
    startAgent({
      runtime,
      hostname: nodeName,
      rootDir,
      manifestDir,
      mainModule: opts.mainModule,
      denoFlags: opts.denoFlags,
      env: opts.env,
      extraArgs: [
        "--kubeconfig",
        kubeconfig,
        "--sync-frequency",
        "10s",
        "--file-check-frequency",
        "1s",
        ...joinArgs,
        ...(opts.extraArgs ?? []),
        ...nodeApiArgs,
        ...extra,
      ],
    });
  let agent: AgentProcess;
  try {
    agent = await start();
    await agent.waitHealthy({ timeoutMs: 60_000 });
  } catch (err) {
    cri.close();
    if (ownsControlPlane) await cp.stop();
    throw err;
  }
  const kubectl = (args: string[], o?: KubectlOptions) => cp.kubectl(args, o);
  const getJson = async <T>(args: string[]): Promise<T | undefined> => {
    try {
      return JSON.parse(await kubectl(["get", ...args, "-o", "json"])) as T;
    } catch (err) {
      if (/NotFound|not found/.test(String(err))) return undefined;
      throw err;
    }
  };
  const e2e: ClusterE2E = {
    cp,
    get agent() {
      return agent;
    },
    nodeName,
    cri,
    rootDir,
    manifestDir,
    kubeconfig,
    kubectl,
    async apply(...objects) {
      await kubectl(["apply", "-f", "-"], {
        stdin: objects.map((o) => toYaml(o)).join("---\n"),
      });
    },
    getJson,
    pod: (name, namespace = "default") => getJson<V1Pod>(["pod", name, "-n", namespace]),
    waitPod(name, pred, o) {
      return waitFor(async () => {
        const p = await e2e.pod(name, o.namespace);
        return p && pred(p) ? p : undefined;
      }, { intervalMs: 500, ...o });
    },
    waitNodeReady(o) {
      return waitFor(async () => {
        const n = await getJson<V1Node>(["node", nodeName]);
        return n?.status?.conditions?.find((c) => c.type === "Ready")?.status === "True"
          ? n
          : undefined;
      }, { what: `node ${nodeName} Ready`, ...o });
    },
    async restartAgent(r = {}) {
      await agent.stop();
      await r.whileStopped?.();
      agent = await start(r.extraArgs);
      await agent.waitHealthy({ timeoutMs: 60_000 });
    },
    async close() {
      try {
        await agent.stop();
        await removeAgentSandboxes(cri.runtime, nodeName);
        await removeCgroupTree(`denolet-e2e/${nodeName}`);
        await kubectl(["delete", "node", nodeName, "--ignore-not-found", "--wait=false"])
          .catch(() => undefined); // the API server may be stopped by the test
      } finally {
        cri.close();
        if (ownsControlPlane) await cp.stop();
        // The pods' tmpfs volumes outlive the stopped agent; its pods are gone now.
        await unmountUnder(tmp, {
          onError: (m, err) => console.error(`[denolet-e2e] cannot unmount ${m}: ${err}`),
        });
        await Deno.remove(tmp, { recursive: true }).catch(() => undefined);
      }
    },
  };
  return e2e;
}

/** A busybox pod bound to `node` (no scheduler needed) running `script`. */
export function busyboxPod(
  name: string,
  script: string,
  opts: { node?: string; namespace?: string; extra?: Partial<V1Pod["spec"]> } = {},
): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: opts.namespace ?? "default" },
    spec: {
      nodeName: opts.node,
      terminationGracePeriodSeconds: 5,
      containers: [{
        name: "main",
        image: BUSYBOX,
        imagePullPolicy: "IfNotPresent",
        command: ["sh", "-c", script],
      }],
      ...opts.extra,
    },
  };
}

/** The id of the pod's running `main` container, from the runtime; undefined while there is none. */
export async function runningMain(c: ClusterE2E, pod: string): Promise<string | undefined> {
  const list = await c.cri.runtime.listContainers({
    labelSelector: { "io.kubernetes.pod.name": pod, "io.kubernetes.container.name": "main" },
    state: { state: "CONTAINER_RUNNING" },
  });
  return list[0]?.id;
}

/**
 * Runs `sh -c script` in the pod's running `main` container (as its user, through the CRI);
 * its stdout and stderr (trimmed) and exit code. Throws when the container is not running.
 */
export async function execMain(
  c: ClusterE2E,
  pod: string,
  script: string,
): Promise<{ out: string; err: string; code: number }> {
  const id = await runningMain(c, pod);
  if (!id) throw new Error(`pod ${pod} has no running container`);
  const res = await c.cri.runtime.execSync(id, ["sh", "-c", script], 30);
  return {
    out: new TextDecoder().decode(res.stdout).trim(),
    err: new TextDecoder().decode(res.stderr).trim(),
    code: res.exitCode,
  };
}

/** Polls until the pod's `main` container runs; returns its id. */
export function waitMainRunning(c: ClusterE2E, pod: string, timeoutMs: number): Promise<string> {
  return waitFor(() => runningMain(c, pod), {
    timeoutMs,
    intervalMs: 500,
    what: `pod ${pod}'s container to run`,
  });
}
