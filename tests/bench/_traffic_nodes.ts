/**
 * The node under the traffic bench (issue 31), joined to the test control plane through the
 * counting proxy: denolet (from source, the bench's bundle, or the packed single file) or the
 * upstream kubelet, with the same settings where both have them, as the conformance run sets
 * them up — the node API on every interface with the cluster CA and webhook authentication and
 * authorization, no image GC (the test images cannot be pulled back), a cgroup root of its own,
 * and the upstream defaults the bench uses elsewhere (sync every minute, files every 20 s).
 * Both run on the bench's private containerd: the kubelet kills whatever pod it does not know.
 */
import type { RuntimeService } from "../../src/cri/types.ts";
import { startAgent } from "../support/agent.ts";
import { clusterNodeArgs, unmountUnder } from "../support/cluster_node.ts";
import type { DevRuntime } from "../support/containerd.ts";
import type { ControlPlane } from "../support/control_plane.ts";
import { startUpstreamKubelet } from "../support/upstream_kubelet.ts";
import { freePort } from "../support/wait.ts";

export type TrafficSide = "kubelet" | "denolet";

export interface TrafficNode {
  readonly name: string;
  readonly pid: number;
  /** `realClock.monotonic()` just before the process was spawned. */
  readonly startedAt: number;
  /** Resolves when the process exits (a start that fails shows at once). */
  readonly exited: Promise<unknown>;
  readonly logFile: string;
  /** The node's /metrics text, read without going through its uplink's proxy. */
  metrics(): Promise<string>;
  /** Stops it, removes its pods from the runtime and its Node from the API. Idempotent. */
  stop(): Promise<void>;
}

export interface TrafficNodeOptions {
  cp: ControlPlane;
  runtime: DevRuntime;
  /** A client of `runtime`, which holds this node's pods only. */
  rs: RuntimeService;
  /** The URL the node's kubeconfig names: the counting proxy's. */
  apiServerURL: string;
  nodeIP: string;
  name: string;
  /** denolet's program (the bench's bundle); default main.ts. */
  agentMain?: string;
  /** denolet as the packed single file, unpacking into `unpackDir`. */
  packed?: { file: string; unpackDir: string };
  agentEnv?: Record<string, string>;
}

/** The upstream defaults where the e2e harness differs, and the start phases in the log. */
const DENOLET_BENCH_ARGS = ["--sync-frequency", "1m", "--file-check-frequency", "20s", "-v", "1"];

export async function startTrafficNode(
  side: TrafficSide,
  o: TrafficNodeOptions,
): Promise<TrafficNode> {
  const kubeconfig = await proxiedKubeconfig(o);
  const removeNode = () =>
    o.cp.kubectl(["delete", "node", o.name, "--ignore-not-found", "--wait=false"]).then(
      () => undefined,
    );
  if (side === "kubelet") {
    const kubelet = await startUpstreamKubelet({
      binary: o.cp.binaries.kubelet,
      runtime: o.runtime,
      cleanupWith: o.rs,
      ownsRuntime: true,
      cgroupRoot: "/denolet-traffic-kubelet",
      hostname: o.name,
      cluster: { kubeconfig, nodeIP: o.nodeIP, clientCAFile: o.cp.caFile },
    });
    let stopped: Promise<void> | undefined;
    return {
      name: o.name,
      pid: kubelet.pid,
      startedAt: kubelet.startedAt,
      exited: kubelet.exited,
      logFile: kubelet.logFile,
      // Through the API server's node proxy: the kubelet has no read-only port here. Its
      // authorization of the proxy's request (a SubjectAccessReview, cached for 5 minutes) goes
      // out before the answer comes back, so a scrape before or after a window is not in it.
      metrics: () => o.cp.kubectl(["get", "--raw", `/api/v1/nodes/${o.name}/proxy/metrics`]),
      stop: () =>
        stopped ??= (async () => {
          await kubelet.stop();
          await removeNode();
        })(),
    };
  }
  const agent = await startAgent({
    mainModule: o.agentMain,
    packedFile: o.packed?.file,
    runtime: o.runtime,
    cleanupWith: o.rs,
    hostname: o.name,
    env: { ...o.agentEnv, ...(o.packed ? { DENOLET_UNPACK_DIR: o.packed.unpackDir } : {}) },
    extraArgs: [
      ...clusterNodeArgs(kubeconfig, { nodeIP: o.nodeIP, caFile: o.cp.caFile, port: freePort() }),
      ...DENOLET_BENCH_ARGS,
    ],
  });
  let stopped: Promise<void> | undefined;
  return {
    name: o.name,
    pid: agent.pid,
    startedAt: agent.startedAt,
    exited: agent.exited,
    logFile: agent.logFile,
    // The read-only port: no authorization, nothing on the uplink.
    metrics: async () => {
      const res = await agent.get("/metrics");
      if (!res.ok) throw new Error(`GET /metrics of ${o.name}: ${res.status}`);
      return await res.text();
    },
    stop: () =>
      stopped ??= (async () => {
        await agent.stop();
        // Its pods' tmpfs volumes stay mounted after it stops, as a kubelet's do.
        await unmountUnder(agent.rootDir);
        await agent[Symbol.asyncDispose]();
        await removeNode();
      })(),
  };
}

/** The node's kubeconfig with the server replaced by the proxy's URL (TLS passes through). */
async function proxiedKubeconfig(o: TrafficNodeOptions): Promise<string> {
  const direct = await o.cp.nodeKubeconfig(o.name);
  const text = await Deno.readTextFile(direct);
  if (!text.includes(o.cp.server)) {
    throw new Error(`${direct} does not name the API server ${o.cp.server}`);
  }
  const via = direct.replace(/(\.[a-z]+)?$/, "-via$1");
  await Deno.writeTextFile(via, text.replaceAll(o.cp.server, o.apiServerURL));
  return via;
}
