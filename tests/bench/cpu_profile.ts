/**
 * Where the agent's steady-state CPU goes: starts it as the bench does (same flags, `-v 0`,
 * shipped V8 flags) with the inspector on, brings it to `--pods` running pods, then measures
 * two windows of `--seconds` each (_profile_windows.ts): /proc CPU alone (the figure to compare
 * with the bench), then /proc CPU while V8's sampling profiler runs. Prints the profile's top
 * self-time functions (url:line), total (inclusive) time by function and self time by file, and
 * writes the profile (open it in Chrome DevTools) to `--out`.
 *
 * `--mode standalone` (default) runs static pods from the manifest directory, as the bench's
 * footprint does; `--mode api` joins the agent to a real control plane and creates the pods
 * through the API server, as the bench's API mode does (_api_profile_target.ts), and also counts
 * the agent's API requests. `--agent bundle` runs the package's minified bundle, as the bench's
 * `--agent bundle` does: that is what is measured, but its function names are minified.
 *
 *   deno run -A tests/bench/cpu_profile.ts [--mode standalone|api] [--agent source|bundle]
 *        [--pods 110] [--seconds 60] [--top 30] [--probes on|off] [--interval-us 1000]
 *        [--v8-flags --lite-mode] [--token on|off] [--out dist/agent.cpuprofile]
 *
 * It creates bench pods: run it under `flock /tmp/bench.lock`.
 */
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import { parseArgs } from "node:util";
import { createCriClient } from "../../src/cri/mod.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { freePort, startAgent } from "../support/agent.ts";
import { buildAgentBundle, parseAgentForm } from "./_agent_bundle.ts";
import { startApiTarget } from "./_api_profile_target.ts";
import { removeFootprintPods } from "./_footprint.ts";
import { manifest, manifestText, podNames, probePod, waitSandboxesGone } from "./_pods.ts";
import {
  agentCounters,
  measureWindows,
  printProfileReport,
  type ProfileTarget,
} from "./_profile_windows.ts";
import { waitPodsRunning } from "./_scenarios.ts";
import { realClock } from "../../src/util/clock.ts";

/** After the last pod runs, let its start-up work finish (as the bench's footprint does). */
const SETTLE_MS = 5_000;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    mode: { type: "string", default: "standalone" },
    agent: { type: "string", default: "source" },
    pods: { type: "string", default: "110" },
    seconds: { type: "string", default: "60" },
    top: { type: "string", default: "30" },
    "interval-us": { type: "string", default: "1000" },
    "v8-flags": { type: "string", default: AGENT_V8_FLAGS },
    // The probe load's busybox pods (_pods.ts probePod) instead of pause pods: "on" with their
    // three probes, "off" without them, so the two profiles differ only in the probes.
    probes: { type: "string", default: "" },
    out: { type: "string", default: "dist/agent.cpuprofile" },
    // API mode: "off" creates the pods without the service-account token volume, whose
    // set-up every sync repeats, to tell its cost apart.
    token: { type: "string", default: "on" },
  },
});
const mode = values.mode!;
if (mode !== "standalone" && mode !== "api") {
  throw new Error(`--mode: ${JSON.stringify(mode)} is neither "standalone" nor "api"`);
}
const probes = values.probes!;
if (probes !== "" && probes !== "on" && probes !== "off") {
  throw new Error(`--probes: ${JSON.stringify(probes)} is neither "on" nor "off"`);
}
// The API mode's agent runs with what the bench's API mode gives it: the shipped V8 flags and
// pause pods (setupCluster takes neither a V8 flag nor a pod kind).
if (mode === "api" && (values["v8-flags"] !== AGENT_V8_FLAGS || probes !== "")) {
  throw new Error("--mode api takes neither --v8-flags nor --probes");
}
if (values.token !== "on" && values.token !== "off") {
  throw new Error(`--token: ${JSON.stringify(values.token)} is neither "on" nor "off"`);
}
if (mode !== "api" && values.token !== "on") throw new Error("--token is for --mode api");
const agentForm = parseAgentForm(values.agent!);
const pods = Number(values.pods);
const progress = (s: string) => console.error(`[cpu-profile] ${new Date().toISOString()} ${s}`);

const workDir = await Deno.makeTempDir({ prefix: "denolet-cpu-profile-" });
await using _work = {
  [Symbol.asyncDispose]: () => Deno.remove(workDir, { recursive: true }),
};
const agentMain = agentForm === "bundle"
  ? await buildAgentBundle(workDir, { v8Flags: values["v8-flags"] })
  : undefined;
await using target = mode === "api"
  ? await startApiTarget({ pods, token: values.token === "on", agentMain, progress })
  : await startStandalone();
progress(`steady state; measuring two windows of ${values.seconds} s`);
const intervalUs = Number(values["interval-us"]);
const w = await measureWindows(target, { windowMs: Number(values.seconds) * 1000, intervalUs });
const outDir = values.out!.slice(0, values.out!.lastIndexOf("/") + 1);
if (outDir) await Deno.mkdir(outDir, { recursive: true });
await Deno.writeTextFile(values.out!, JSON.stringify(w.profile));
printProfileReport(w, {
  title: `agent CPU, ${mode} mode, ${agentForm}, ${pods} pods` +
    `${values.token === "off" ? " without token volumes" : ""}, ${new Date().toISOString()}` +
    ` (V8 flags "${values["v8-flags"]}")`,
  top: Number(values.top),
  root: new URL("../../", import.meta.url).href,
  intervalUs,
});
console.log(`\nprofile written to ${values.out}`);

/** The agent with static pods from its manifest directory; disposing removes them. */
async function startStandalone(): Promise<ProfileTarget> {
  const rt = await ensureContainerd();
  const cri = createCriClient(rt.endpoint, { timeoutMs: 120_000 });
  const inspectPort = freePort();
  const agent = await startAgent({
    runtime: rt,
    cleanupWith: cri.runtime,
    mainModule: agentMain,
    // The bench's agent flags (tests/bench/main.ts): upstream's file poll and log level.
    extraArgs: ["--file-check-frequency", "20s", "-v", "0"],
    denoFlags: [`--inspect=127.0.0.1:${inspectPort}`],
    v8Flags: values["v8-flags"],
  });
  const names = podNames("fp", pods);
  const close = async () => {
    try {
      await removeFootprintPods(agent, pods);
      await waitSandboxesGone(cri.runtime, { node: agent.hostname, names });
    } finally {
      // The agent's clean-up still uses the CRI client: close it last.
      await agent[Symbol.asyncDispose]();
      cri.close();
    }
  };
  try {
    await agent.waitHealthy({ timeoutMs: 60_000 });
    progress(`agent ${agent.pid} healthy; ${pods} pods`);
    const podText = (n: string) =>
      probes === ""
        ? manifest(n, rt.images.pause)
        : manifestText(probePod(n, rt.images.busybox, { probes: probes === "on" }));
    await Promise.all(
      names.map((n) => Deno.writeTextFile(`${agent.manifestDir}/${n}.yaml`, podText(n))),
    );
    if (pods > 0) await waitPodsRunning(agent, names);
    await realClock.sleep(SETTLE_MS);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    pid: agent.pid,
    inspectPort,
    counters: () => agentCounters(agent),
    [Symbol.asyncDispose]: close,
  };
}
