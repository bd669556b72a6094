/**
 * What a `/metrics/cadvisor` scrape costs the agent on a node with `--pods` running pods
 * (issue 29): the agent's CPU time per scrape (its /proc CPU over a window of back-to-back
 * scrapes, less what the same window costs idle), the wall time of a scrape, the answer's size
 * and series count, and the RSS the collector adds (before the first scrape, after them). The
 * same figures for `/metrics/resource` and `/stats/summary` at the same pod count, for scale.
 *
 *   deno run -A tests/bench/cadvisor_scrape.ts [--pods 30] [--scrapes 60] [--idle 30]
 *                                              [--agent source|bundle] [--out dist/cadvisor_scrape.json]
 *
 * A benchmark, not a test: it reports. CPU comes in 10 ms ticks; enough scrapes make it exact.
 */
import { parseArgs } from "node:util";
import { realClock } from "../../src/util/clock.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { type AgentProcess, removeAgentSandboxes, startAgent } from "../support/agent.ts";
import { createCriClient } from "../../src/cri/mod.ts";
import { buildAgentBundle, parseAgentForm } from "./_agent_bundle.ts";
import { manifest, podNames, waitSandboxesGone } from "./_pods.ts";
import { procSample } from "./_proc.ts";
import { waitPodsRunning } from "./_scenarios.ts";
import { summarize, type Summary } from "./_stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    pods: { type: "string", default: "30" },
    scrapes: { type: "string", default: "60" },
    idle: { type: "string", default: "30" },
    agent: { type: "string", default: "source" },
    out: { type: "string", default: "dist/cadvisor_scrape.json" },
  },
});
const pods = Number(values.pods);
const scrapes = Number(values.scrapes);
const idleMs = Number(values.idle) * 1000;
const progress = (s: string) => console.error(`[cadvisor bench] ${s}`);
const TICK_MS = 10;

interface PathCost {
  path: string;
  scrapes: number;
  /** Agent CPU per scrape, ms (the idle rate over the same time subtracted). */
  cpuMsPerScrape: number;
  /** Wall time of one scrape as the client sees it, ms. */
  wallMs: Summary;
  bytes: number;
  series: number;
  /** The agent's RSS before the first scrape of this path, after it, and after the last, MB. */
  rssBeforeMB: number;
  rssAfterFirstMB: number;
  rssAfterMB: number;
}

/** Scrapes `path` back to back `n` times; CPU from /proc over the whole window. */
async function measure(
  agent: AgentProcess,
  path: string,
  idleTicksPerMs: number,
): Promise<PathCost> {
  const before = await procSample(agent.pid);
  const walls: number[] = [];
  let text = "";
  let afterFirst = before;
  for (let i = 0; i < scrapes; i++) {
    const t0 = performance.now();
    const res = await agent.get(path);
    text = await res.text();
    walls.push(performance.now() - t0);
    if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 200)}`);
    if (i === 0) afterFirst = await procSample(agent.pid);
  }
  const after = await procSample(agent.pid);
  const ticks = after.cpuTicks - before.cpuTicks - idleTicksPerMs * (after.at - before.at);
  return {
    path,
    scrapes,
    cpuMsPerScrape: (ticks * TICK_MS) / scrapes,
    wallMs: summarize(walls),
    bytes: text.length,
    series: text.split("\n").filter((l) => l !== "" && !l.startsWith("#")).length,
    rssBeforeMB: before.rssKB / 1024,
    rssAfterFirstMB: afterFirst.rssKB / 1024,
    rssAfterMB: after.rssKB / 1024,
  };
}

const runtime = await ensureContainerd();
const form = parseAgentForm(values.agent!);
const benchDir = await Deno.makeTempDir({ prefix: "denolet-cadvisor-bench-" });
const mainModule = form === "bundle" ? await buildAgentBundle(benchDir) : undefined;
const agent = await startAgent({
  runtime,
  mainModule,
  extraArgs: ["--file-check-frequency", "20s", "-v", "0"],
});
const cri = createCriClient(runtime.endpoint, { timeoutMs: 30_000 });
try {
  await agent.waitHealthy({ timeoutMs: 60_000 });
  const names = podNames("cad", pods);
  await Promise.all(
    names.map((n) =>
      Deno.writeTextFile(`${agent.manifestDir}/${n}.yaml`, manifest(n, runtime.images.pause))
    ),
  );
  progress(`waiting for ${pods} pods`);
  if (pods > 0) await waitPodsRunning(agent, names);
  await realClock.sleep(10_000);

  progress(`idle window (${idleMs / 1000} s, nothing scraped)`);
  const idleA = await procSample(agent.pid);
  await realClock.sleep(idleMs);
  const idleB = await procSample(agent.pid);
  const idleTicksPerMs = (idleB.cpuTicks - idleA.cpuTicks) / (idleB.at - idleA.at);

  const results: PathCost[] = [];
  for (const path of ["/metrics/cadvisor", "/metrics/resource", "/stats/summary"]) {
    progress(`${scrapes} scrapes of ${path}`);
    results.push(await measure(agent, path, idleTicksPerMs));
  }
  const report = {
    pods,
    agent: form,
    idleCpuPct: idleTicksPerMs * TICK_MS * 100,
    idleRssMB: idleB.rssKB / 1024,
    results,
  };
  await Deno.mkdir("dist", { recursive: true });
  await Deno.writeTextFile(values.out!, JSON.stringify(report, null, 2));
  console.log(
    `${pods} pods, agent ${form}: idle ${report.idleCpuPct.toFixed(2)} % CPU, RSS ${
      report.idleRssMB.toFixed(1)
    } MB`,
  );
  console.log(
    "path                 CPU ms/scrape  wall p50/p90 ms  bytes   series  RSS before→1st→last MB",
  );
  for (const r of results) {
    console.log(
      `${r.path.padEnd(20)} ${r.cpuMsPerScrape.toFixed(1).padStart(13)}  ${
        `${r.wallMs.median.toFixed(1)}/${r.wallMs.p90.toFixed(1)}`.padStart(15)
      }  ${String(r.bytes).padStart(7)} ${String(r.series).padStart(7)}  ${
        [r.rssBeforeMB, r.rssAfterFirstMB, r.rssAfterMB].map((x) => x.toFixed(1)).join("→")
      }`,
    );
  }
} finally {
  const names = podNames("cad", pods);
  await Promise.all(
    names.map((n) => Deno.remove(`${agent.manifestDir}/${n}.yaml`).catch(() => {})),
  );
  await waitSandboxesGone(cri.runtime, { node: agent.hostname, names }).catch((err) =>
    progress(`${err}`)
  );
  await agent[Symbol.asyncDispose]();
  await removeAgentSandboxes(cri.runtime, agent.hostname);
  cri.close();
  await Deno.remove(benchDir, { recursive: true }).catch(() => {});
}
