/**
 * The node under test, joined to the conformance control plane on the private runtime: denolet
 * (from source) or the upstream kubelet v1.37.2, with the same settings where both have them —
 * the node API on every interface with the cluster CA and webhook authn/authz (the API server
 * dials the node's InternalIP for logs and exec), no image GC (the e2e images cannot be pulled
 * back), a cgroup root of its own, and a pod log directory of its own: every agent's log GC
 * removes the directories of pods it does not know, so in the shared /var/log/pods the other
 * agents on this machine (e2e suites, CI) delete the node's container logs while the specs
 * read them (a spec then sees empty output).
 */
import type { RuntimeService } from "../../../src/cri/types.ts";
import { detectNodeIP } from "../../../src/agent/_node_ip.ts";
import { DevSetupError, run } from "../_exec.ts";
import { startAgent } from "../agent.ts";
import { clusterNodeArgs, unmountUnder } from "../cluster_node.ts";
import type { DevRuntime } from "../containerd.ts";
import type { ControlPlane } from "../control_plane.ts";
import { startUpstreamKubelet } from "../upstream_kubelet.ts";
import { freePort, waitFor } from "../wait.ts";
import type { AgentSource } from "./_agent_source.ts";
import type { NodeKind } from "./_report.ts";

export interface NodeUnderTest {
  name: string;
  /** `denolet <commit>` or the kubelet's `--version`. */
  description: string;
  /** Copies the agent's log so far to `path`. */
  saveLog(path: string): Promise<void>;
  /** Stops the agent and removes its pods from the runtime. Idempotent. */
  stop(): Promise<void>;
}

export interface StartNodeOptions {
  cp: ControlPlane;
  runtime: DevRuntime;
  /** A client of `runtime`, which holds this node's pods only. */
  rs: RuntimeService;
  /** denolet's program and what it is (see snapshotAgent); unused for the kubelet. */
  agent?: AgentSource;
  log: (s: string) => void;
}

export async function startNode(kind: NodeKind, o: StartNodeOptions): Promise<NodeUnderTest> {
  const nodeIP = detectNodeIP();
  if (!nodeIP) {
    throw new DevSetupError("Cannot start the node: the machine has no non-loopback address");
  }
  const name = `conformance-${kind === "denolet" ? "denolet" : "kubelet"}`;
  const kubeconfig = await o.cp.nodeKubeconfig(name);
  const node = kind === "denolet"
    ? await startDenolet(name, nodeIP, kubeconfig, o)
    : await startKubelet(name, nodeIP, kubeconfig, o);
  try {
    await waitFor(() => nodeReady(o.cp, name), {
      what: `node ${name} Ready`,
      timeoutMs: 120_000,
      intervalMs: 1_000,
    });
  } catch (err) {
    await node.stop();
    throw err;
  }
  o.log(`node ${name} (${node.description}) is Ready at ${nodeIP}`);
  return node;
}

async function startDenolet(
  name: string,
  nodeIP: string,
  kubeconfig: string,
  o: StartNodeOptions,
): Promise<NodeUnderTest> {
  if (!o.agent) throw new DevSetupError("Cannot start denolet: no agent source given");
  const own = await Deno.makeTempDir({ prefix: "denolet-conformance-node-" });
  const configFile = `${own}/kubelet.yaml`;
  await Deno.writeTextFile(configFile, JSON.stringify(denoletNodeConfig(`${own}/pods`)));
  const agent = await startAgent({
    mainModule: o.agent.main,
    runtime: o.runtime,
    cleanupWith: o.rs,
    hostname: name,
    extraArgs: [
      "--config",
      configFile,
      ...clusterNodeArgs(kubeconfig, { nodeIP, caFile: o.cp.caFile, port: freePort() }),
    ],
  });
  try {
    await agent.waitHealthy({ timeoutMs: 120_000 });
  } catch (err) {
    await agent[Symbol.asyncDispose]();
    await Deno.remove(own, { recursive: true });
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    name,
    description: o.agent.description,
    saveLog: (path) => Deno.copyFile(agent.logFile, path),
    stop: () =>
      stopped ??= (async () => {
        await agent.stop();
        // A stopped agent leaves its pods' tmpfs volumes mounted, as a kubelet does; its pods
        // are gone now, so nothing under its root dir is in use.
        await unmountUnder(agent.rootDir);
        await agent[Symbol.asyncDispose]();
        await Deno.remove(own, { recursive: true });
      })(),
  };
}

/** denolet's KubeletConfiguration on the node: what no flag sets (podLogsDir has no flag upstream). */
export function denoletNodeConfig(podLogsDir: string): Record<string, unknown> {
  return {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    podLogsDir,
  };
}

async function startKubelet(
  name: string,
  nodeIP: string,
  kubeconfig: string,
  o: StartNodeOptions,
): Promise<NodeUnderTest> {
  const binary = o.cp.binaries.kubelet;
  const version = (await run(binary, ["--version"])).trim();
  const kubelet = await startUpstreamKubelet({
    binary,
    runtime: o.runtime,
    cleanupWith: o.rs,
    ownsRuntime: true,
    cgroupRoot: "/denolet-conformance-kubelet",
    hostname: name,
    cluster: { kubeconfig, nodeIP, clientCAFile: o.cp.caFile },
  });
  try {
    await kubelet.waitHealthy({ timeoutMs: 120_000 });
  } catch (err) {
    await kubelet.stop();
    throw err;
  }
  return {
    name,
    description: version,
    saveLog: (path) => Deno.copyFile(kubelet.logFile, path),
    stop: () => kubelet.stop(),
  };
}

async function nodeReady(cp: ControlPlane, name: string): Promise<boolean> {
  const out = await cp.kubectl(["get", "node", name, "-o", "json"]).catch(() => undefined);
  if (!out) return false;
  const node = JSON.parse(out) as {
    status?: { conditions?: { type: string; status: string }[] };
  };
  return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}
