/**
 * Where the agent's steady-state CPU goes: starts it as the bench does (same flags, `-v 0`,
 * shipped V8 flags) with the inspector on, brings it to `--pods` running pause pods, then
 * measures two windows of `--seconds` each: /proc CPU alone (the figure to compare with the
 * bench), then /proc CPU while V8's sampling profiler runs (its overhead shows there). Prints
 * the profile's top self-time functions (url:line), total (inclusive) time by function and self
 * time by file, and writes the profile (open it in Chrome DevTools) to `--out`.
 *
 *   deno run -A tests/bench/cpu_profile.ts [--pods 110] [--seconds 60] [--top 30] [--probes on|off]
 *        [--interval-us 1000] [--v8-flags --lite-mode] [--out dist/agent.cpuprofile]
 *
 * It creates bench pods: run it under `flock /tmp/bench.lock`.
 */
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import { parseArgs } from "node:util";
import { createCriClient } from "../../src/cri/mod.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { freePort, startAgent } from "../support/agent.ts";
import { connectInspector, type CpuProfile, summarizeProfile } from "./_cdp.ts";
import { removeFootprintPods } from "./_footprint.ts";
import { counterDelta, countersBy } from "./_metrics.ts";
import { manifest, manifestText, podNames, probePod, waitSandboxesGone } from "./_pods.ts";
import { type Footprint, sampleFootprint } from "./_proc.ts";
import { waitPodsRunning } from "./_scenarios.ts";
import { realClock } from "../../src/util/clock.ts";

/** After the last pod runs, let its start-up work finish (as the bench's footprint does). */
const SETTLE_MS = 5_000;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    pods: { type: "string", default: "110" },
    seconds: { type: "string", default: "60" },
    top: { type: "string", default: "30" },
    "interval-us": { type: "string", default: "1000" },
    "v8-flags": { type: "string", default: AGENT_V8_FLAGS },
    // The probe load's busybox pods (_pods.ts probePod) instead of pause pods: "on" with their
    // three probes, "off" without them, so the two profiles differ only in the probes.
    probes: { type: "string", default: "" },
    out: { type: "string", default: "dist/agent.cpuprofile" },
  },
});
const pods = Number(values.pods);
const windowMs = Number(values.seconds) * 1000;
const top = Number(values.top);
const progress = (s: string) => console.error(`[cpu-profile] ${new Date().toISOString()} ${s}`);
const root = new URL("../../", import.meta.url).href;

const rt = await ensureContainerd();
const cri = createCriClient(rt.endpoint, { timeoutMs: 120_000 });
await using _cri = { [Symbol.asyncDispose]: () => Promise.resolve(cri.close()) };
const inspectPort = freePort();
await using agent = await startAgent({
  runtime: rt,
  cleanupWith: cri.runtime,
  // The bench's agent flags (tests/bench/main.ts): upstream's file poll and log level.
  extraArgs: ["--file-check-frequency", "20s", "-v", "0"],
  denoFlags: [`--inspect=127.0.0.1:${inspectPort}`],
  v8Flags: values["v8-flags"],
});
await agent.waitHealthy({ timeoutMs: 60_000 });
progress(`agent ${agent.pid} healthy; ${pods} pods`);

// The window without the profiler: steadyStateAt settles 5 s after the pods run.
const names = podNames("fp", pods);
const probes = values.probes;
if (probes !== "" && probes !== "on" && probes !== "off") {
  throw new Error(`--probes: ${JSON.stringify(probes)} is neither "on" nor "off"`);
}
const podText = (n: string) =>
  probes === ""
    ? manifest(n, rt.images.pause)
    : manifestText(probePod(n, rt.images.busybox, { probes: probes === "on" }));
await Promise.all(
  names.map((n) => Deno.writeTextFile(`${agent.manifestDir}/${n}.yaml`, podText(n))),
);
if (pods > 0) await waitPodsRunning(agent, names);
await realClock.sleep(SETTLE_MS);

const ops0 = await criOps();
const threads0 = await threadTicks(agent.pid);
const bare = await sampleFootprint(agent.pid, windowMs);
const threads = diffTicks(threads0, await threadTicks(agent.pid));
const ops = counterDelta(ops0, await criOps());
const bareLoad = Deno.loadavg()[0];
progress(`bare window: ${bare.cpuPct.toFixed(2)} % of a core`);

const cdp = await connectInspector("127.0.0.1", inspectPort);
let profile: CpuProfile;
let profiled: Footprint;
try {
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: Number(values["interval-us"]) });
  await cdp.send("Profiler.start");
  profiled = await sampleFootprint(agent.pid, windowMs);
  profile = (await cdp.send<{ profile: CpuProfile }>("Profiler.stop")).profile;
  await cdp.send("Profiler.disable");
} finally {
  cdp.close();
}
const profiledLoad = Deno.loadavg()[0];
const outDir = values.out!.slice(0, values.out!.lastIndexOf("/") + 1);
if (outDir) await Deno.mkdir(outDir, { recursive: true });
await Deno.writeTextFile(values.out!, JSON.stringify(profile));

await removeFootprintPods(agent, pods);
await waitSandboxesGone(cri.runtime, { node: agent.hostname, names });

const s = summarizeProfile(profile, { root });
const busyMs = s.totalMs - s.idleMs;
const pct = (ms: number) => (ms / s.totalMs * 100).toFixed(2);
const row = ([k, ms]: [string, number]) =>
  `${ms.toFixed(1).padStart(9)} ms ${pct(ms).padStart(6)} %  ${k}`;
console.log(
  `# agent CPU, ${pods} pods, ${new Date().toISOString()} (V8 flags "${values["v8-flags"]}")`,
);
console.log(
  `/proc, no profiler:   ${bare.cpuPct.toFixed(2)} % of a core over ${bare.seconds.toFixed(1)} s` +
    ` (load average ${bareLoad.toFixed(2)})`,
);
console.log(
  `/proc, profiler on:   ${profiled.cpuPct.toFixed(2)} % of a core over ` +
    `${profiled.seconds.toFixed(1)} s (load average ${profiledLoad.toFixed(2)})`,
);
console.log(
  `profile: ${s.totalMs.toFixed(0)} ms, JS thread busy ${busyMs.toFixed(0)} ms = ${pct(busyMs)} %` +
    ` of the span (the rest of /proc is other threads: I/O, GC helpers, the profiler)`,
);
console.log(
  `CPU by thread, no profiler (% of a core): ${
    threads.map(([name, ticks]) => `${name} ${(ticks / bare.seconds).toFixed(2)}`).join(", ")
  }`,
);
console.log(`CRI calls per second, no profiler: ${
  Object.entries(ops).sort((a, b) => b[1] - a[1])
    .map(([op, n]) => `${op} ${(n / bare.seconds).toFixed(2)}`).join(", ")
}`);
console.log(`\n## top ${top} by self time (% of the span)`);
for (const r of s.selfByFunction.slice(0, top)) console.log(row(r));
console.log(`\n## top ${top} by total time (self + callees)`);
for (const r of s.totalByFunction.slice(0, top)) console.log(row(r));
console.log(`\n## self time by file`);
for (const r of s.selfByFile.slice(0, top)) console.log(row(r));
console.log(`\nprofile written to ${values.out}`);

/** The agent's CRI call counters by operation (kubelet_runtime_operations_total). */
async function criOps(): Promise<Record<string, number>> {
  const text = await (await agent.get("/metrics")).text();
  return countersBy(text, "kubelet_runtime_operations_total", "operation_type");
}

/** CPU ticks (1/100 s) of each of the process's threads, keyed by `comm` plus thread id. */
async function threadTicks(pid: number): Promise<Map<string, { name: string; ticks: number }>> {
  const out = new Map<string, { name: string; ticks: number }>();
  for await (const t of Deno.readDir(`/proc/${pid}/task`)) {
    const stat = await Deno.readTextFile(`/proc/${pid}/task/${t.name}/stat`).catch(() => "");
    if (!stat) continue; // the thread ended
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    out.set(t.name, { name, ticks: Number(f[11]) + Number(f[12]) });
  }
  return out;
}

/** Ticks each thread name used between two readings, summed over threads of one name. */
function diffTicks(
  a: Map<string, { name: string; ticks: number }>,
  b: Map<string, { name: string; ticks: number }>,
): [string, number][] {
  const by = new Map<string, number>();
  for (const [tid, t] of b) {
    by.set(t.name, (by.get(t.name) ?? 0) + t.ticks - (a.get(tid)?.ticks ?? 0));
  }
  return [...by].filter(([, n]) => n > 0).sort((x, y) => y[1] - x[1]);
}
