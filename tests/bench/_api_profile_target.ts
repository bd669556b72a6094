/**
 * cpu_profile.ts's agent in API-server mode, brought to the steady state the bench measures
 * (_api_mode.ts): a real control plane, the agent joined with the bench's flags, `pods` pause pods
 * created through the API server and Ready, then the bench's settling time. The agent has no
 * client-side request metrics, so the API server's audit log (the node group only, metadata
 * level) counts what it asks for: verb and resource per request.
 */
import type { ApiClient } from "../../src/apiclient/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { setupCluster } from "../e2e/_cluster.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { type ControlPlane, startControlPlane } from "../support/control_plane.ts";
import { freePort } from "../support/wait.ts";
import { API_SETTLE_MS, deleteAll, podNames, readyApi, timedStarts } from "./_api_mode.ts";
import { agentCounters, type ProfileTarget } from "./_profile_windows.ts";

/** Metadata of every request from a node's identity; nothing of the other components. */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
    userGroups: ["system:nodes"]
  - level: None
`;

export async function startApiTarget(opts: {
  pods: number;
  /** false: pods without the service-account token volume (the bench's pods have it). */
  token: boolean;
  /** The agent's program (the package's bundle); default main.ts. */
  agentMain?: string;
  progress: (s: string) => void;
}): Promise<ProfileTarget> {
  const { progress } = opts;
  const rt = await ensureContainerd();
  const dir = await Deno.makeTempDir({ prefix: "denolet-cpu-profile-" });
  const auditLog = `${dir}/audit.log`;
  await Deno.writeTextFile(`${dir}/audit-policy.yaml`, AUDIT_POLICY);
  progress("starting the control plane (audit log on) and a joined agent");
  let cp: ControlPlane | undefined;
  let c: Awaited<ReturnType<typeof setupCluster>> | undefined;
  let api: ApiClient | undefined;
  const names = podNames("apil", opts.pods);
  const close = async () => {
    try {
      if (api && opts.pods > 0) await deleteAll(api, names);
    } finally {
      api?.close();
      try {
        await c?.close();
      } finally {
        await cp?.stop();
        await Deno.remove(dir, { recursive: true });
      }
    }
  };
  try {
    cp = await startControlPlane({
      apiServerArgs: [
        `--audit-policy-file=${dir}/audit-policy.yaml`,
        `--audit-log-path=${auditLog}`,
      ],
    });
    const inspectPort = freePort();
    c = await setupCluster({
      controlPlane: cp,
      mainModule: opts.agentMain,
      denoFlags: [`--inspect=127.0.0.1:${inspectPort}`],
      // The bench's API mode flags (_api_mode.ts): upstream defaults where the e2e harness differs.
      extraArgs: ["--sync-frequency", "1m", "--file-check-frequency", "20s", "-v", "0"],
    });
    api = await readyApi(c);
    progress(`agent ${c.agent.pid} joined as ${c.nodeName}; ${opts.pods} pods`);
    if (opts.pods > 0) {
      await timedStarts(api, c.nodeName, names, {
        image: rt.images.pause,
        ratePerSecond: 0,
        token: opts.token,
      });
    }
    await realClock.sleep(API_SETTLE_MS);
    const agent = c.agent;
    return {
      pid: agent.pid,
      inspectPort,
      counters: async () => ({
        ...await agentCounters(agent),
        "API requests": await auditCounts(auditLog),
      }),
      [Symbol.asyncDispose]: close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Requests in the audit log so far by `verb resource[/subresource]`: completed ones, and watches
 * when they open (a watch completes only when it ends).
 */
async function auditCounts(file: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const text = await Deno.readTextFile(file).catch(() => "");
  for (const line of text.split("\n")) {
    if (!line) continue;
    const e = JSON.parse(line) as {
      stage: string;
      verb: string;
      objectRef?: { resource?: string; subresource?: string };
    };
    const watch = e.verb === "watch";
    if (e.stage !== (watch ? "ResponseStarted" : "ResponseComplete")) continue;
    const ref = e.objectRef;
    const key = `${e.verb} ${ref?.resource ?? "(none)"}${
      ref?.subresource ? `/${ref.subresource}` : ""
    }`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}
