/**
 * The edge uplink (issue 31): what an agent in API mode sends to and receives from the API
 * server, counted by a TCP proxy between the two (TLS records included, as a metered link bills
 * them), in windows idle and with pods; and the time from the agent's start to a Ready Node.
 * The agent's own `denolet_api_body_bytes_total` tells where the bytes go.
 */
import type { V1Node } from "@kubernetes/client-node";
import { realClock } from "../../src/util/clock.ts";
import { type ClusterE2E, setupCluster } from "../e2e/_cluster.ts";
import { busyboxPod } from "../e2e/_cluster.ts";
import type { ControlPlane } from "../support/control_plane.ts";
import { startTcpProxy, type TcpProxy } from "../support/tcp_proxy.ts";
import { waitFor } from "../support/wait.ts";

export interface TrafficWindow {
  pods: number;
  seconds: number;
  /** KB (1000 bytes) per minute, agent → API server and API server → agent. */
  upKBPerMin: number;
  downKBPerMin: number;
  /** The agent's account of body bytes received in the window, by `verb resource`. */
  receivedBy: Record<string, number>;
  sentBy: Record<string, number>;
}

export interface TrafficResult {
  /** Process start → the API server shows the Node Ready, ms. */
  startToReadyMs: number;
  windows: TrafficWindow[];
}

const BODY_BYTES =
  /^denolet_api_body_bytes_total\{direction="(\w+)",verb="(\w+)",resource="([^"]+)"\} (\S+)$/;

async function bodyBytes(c: ClusterE2E): Promise<Map<string, number>> {
  const text = await c.agent.get("/metrics").then((r) => r.text()).catch(() => "");
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    const m = BODY_BYTES.exec(line);
    if (m) out.set(`${m[1]} ${m[2]} ${m[3]}`, Number(m[4]));
  }
  return out;
}

function perWindow(
  after: Map<string, number>,
  before: Map<string, number>,
  direction: string,
  minutes: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of after) {
    if (!k.startsWith(`${direction} `)) continue;
    const d = v - (before.get(k) ?? 0);
    if (d > 0) out[k.slice(direction.length + 1)] = Math.round(d / 1000 / minutes * 100) / 100;
  }
  return out;
}

/** Runs the agent through a counting proxy on `cp`; `pods` are the levels measured after idle. */
export async function trafficBench(opts: {
  cp: ControlPlane;
  pods: number[];
  windowMs: number;
  image: string;
  agentMain?: string;
  progress: (s: string) => void;
}): Promise<TrafficResult> {
  const proxy: TcpProxy = startTcpProxy({
    hostname: "127.0.0.1",
    port: Number(new URL(opts.cp.server).port),
  });
  const started = performance.now();
  const c = await setupCluster({
    controlPlane: opts.cp,
    mainModule: opts.agentMain,
    apiServerURL: `https://127.0.0.1:${proxy.port}`,
    extraArgs: ["--sync-frequency", "1m", "--file-check-frequency", "20s", "-v", "0"],
  });
  try {
    await waitFor(async () => {
      const n = await c.getJson<V1Node>(["node", c.nodeName]);
      return n?.status?.conditions?.find((x) => x.type === "Ready")?.status === "True";
    }, { timeoutMs: 120_000, intervalMs: 100, what: `node ${c.nodeName} Ready` });
    const startToReadyMs = performance.now() - started;
    const windows: TrafficWindow[] = [];
    for (const pods of [0, ...opts.pods]) {
      if (pods > 0) {
        opts.progress(`traffic: ${pods} pods`);
        const names = Array.from({ length: pods }, (_, i) => `traffic-${i}`);
        await c.apply(...names.map((n) => busyboxPod(n, "exec sleep 3600", { node: c.nodeName })));
        await waitFor(async () => {
          const list = await c.getJson<{ items: { status?: { phase?: string } }[] }>([
            "pods",
            "-n",
            "default",
          ]);
          return (list?.items ?? []).filter((p) => p.status?.phase === "Running").length >= pods;
        }, { timeoutMs: 300_000, intervalMs: 1000, what: `${pods} pods Running` });
      }
      // Start-up and pod-start traffic settle before the window opens.
      await realClock.sleep(20_000);
      opts.progress(`traffic: ${pods} pods, ${opts.windowMs / 1000} s window`);
      const b0 = await bodyBytes(c);
      const up0 = proxy.bytes.up;
      const down0 = proxy.bytes.down;
      await realClock.sleep(opts.windowMs);
      const minutes = opts.windowMs / 60_000;
      const b1 = await bodyBytes(c);
      windows.push({
        pods,
        seconds: opts.windowMs / 1000,
        upKBPerMin: Math.round((proxy.bytes.up - up0) / 1000 / minutes * 100) / 100,
        downKBPerMin: Math.round((proxy.bytes.down - down0) / 1000 / minutes * 100) / 100,
        receivedBy: perWindow(b1, b0, "received", minutes),
        sentBy: perWindow(b1, b0, "sent", minutes),
      });
    }
    return { startToReadyMs, windows };
  } finally {
    await c.close();
    await proxy.close();
  }
}
