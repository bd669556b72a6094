/**
 * `deno task bench`: pod start/teardown latency and the agent's footprint on the real dev
 * containerd. A benchmark, not a test: it reports, it does not pass or fail.
 *
 * Per round and pod count N: write N manifests at once, then time until every container runs
 * (seen through the CRI, not the agent's own report), until /pods says Running for all, and,
 * after removing the files, until no sandbox of them remains. The agent's RSS and CPU come from
 * /proc/<pid>. The first round is a warm-up and is discarded.
 *
 *   deno task bench [--rounds 4] [--pods 1,10,30]
 */
import { parseArgs } from "node:util";
import { createCriClient } from "../../src/cri/mod.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { startAgent, waitFor } from "../support/agent.ts";
import { procSample, summarize } from "./_stats.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "4" },
    pods: { type: "string", default: "1,10,30" },
    out: { type: "string", default: "dist/bench.json" },
  },
});
const rounds = Number(values.rounds);
const counts = values.pods!.split(",").map(Number);

const rt = await ensureContainerd();
const cri = createCriClient(rt.endpoint, { timeoutMs: 60_000 });
// Disposed last (after the agent), so the agent's clean-up can still use it.
await using _cri = { [Symbol.asyncDispose]: () => Promise.resolve(cri.close()) };
await using agent = await startAgent({ runtime: rt, cleanupWith: cri.runtime });
await agent.waitHealthy({ timeoutMs: 60_000 });

const idle = await sampleFor(agent.pid, 10_000);
const results: Record<string, number[]> = {};
const push = (k: string, v: number) => (results[k] ??= []).push(v);
const footprint: Record<string, { rssMB: number; cpuPct: number }> = { idle };

for (let round = 0; round < rounds; round++) {
  for (const n of counts) {
    const names = Array.from({ length: n }, (_, i) => `bench-${round}-${i}`);
    const suffix = `-${agent.hostname}`;
    const t0 = performance.now();
    await Promise.all(
      names.map((name) => Deno.writeTextFile(`${agent.manifestDir}/${name}.yaml`, manifest(name))),
    );
    await waitFor(async () => {
      const cs = await cri.runtime.listContainers({ state: { state: "CONTAINER_RUNNING" } });
      const running = new Set(cs.map((c) => c.labels["io.kubernetes.pod.name"]));
      return names.every((nm) => running.has(nm + suffix));
    }, { timeoutMs: 180_000, intervalMs: 50, what: `${n} containers running` });
    const tRunning = performance.now() - t0;
    await waitFor(async () => {
      const pods = await agent.pods();
      const ok = new Set(
        pods.items.filter((p) => p.status?.phase === "Running").map((p) => p.metadata!.name),
      );
      return names.every((nm) => ok.has(nm + suffix));
    }, { timeoutMs: 180_000, intervalMs: 50, what: `${n} pods Running on /pods` });
    const tReported = performance.now() - t0;
    if (round === rounds - 1 && n === Math.max(...counts)) {
      footprint[`${n} pods`] = await sampleFor(agent.pid, 10_000);
    }
    const t1 = performance.now();
    await Promise.all(names.map((name) => Deno.remove(`${agent.manifestDir}/${name}.yaml`)));
    await waitFor(async () => {
      const sbs = await cri.runtime.listPodSandbox();
      return !sbs.some((s) =>
        names.includes(s.labels["io.kubernetes.pod.name"]?.slice(0, -suffix.length))
      );
    }, { timeoutMs: 180_000, intervalMs: 50, what: `${n} pods torn down` });
    const tTeardown = performance.now() - t1;
    if (round === 0) continue; // warm-up
    push(`start ${n} pods: containers running (ms)`, tRunning);
    push(`start ${n} pods: /pods Running (ms)`, tReported);
    push(`teardown ${n} pods (ms)`, tTeardown);
  }
}
const report = {
  when: new Date().toISOString(),
  cores: navigator.hardwareConcurrency,
  loadavg: Deno.loadavg(),
  rounds: rounds - 1,
  latency: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, summarize(v)])),
  footprint,
};
await Deno.mkdir("dist", { recursive: true });
await Deno.writeTextFile(values.out!, JSON.stringify(report, null, 2));
console.log(
  `cores=${report.cores} loadavg=${
    report.loadavg.map((x) => x.toFixed(2)).join(",")
  } rounds=${report.rounds}`,
);
console.log("scenario".padEnd(44), "median", "  p90", "  min", "  max");
for (const [k, s] of Object.entries(report.latency)) {
  console.log(
    k.padEnd(44),
    [s.median, s.p90, s.min, s.max].map((x) => x.toFixed(0).padStart(6)).join(""),
  );
}
for (const [k, f] of Object.entries(footprint)) {
  console.log(
    `footprint ${k}: rss=${f.rssMB.toFixed(1)} MB cpu=${f.cpuPct.toFixed(2)}% of one core`,
  );
}
console.log(`written ${values.out}`);

async function sampleFor(pid: number, ms: number) {
  const a = await procSample(pid);
  await new Promise((r) => setTimeout(r, ms));
  const b = await procSample(pid);
  const cpuPct = ((b.cpuTicks - a.cpuTicks) / 100) / ((b.at - a.at) / 1000) * 100;
  return { rssMB: b.rssKB / 1024, cpuPct };
}

function manifest(name: string): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: ${rt.images.pause}
    imagePullPolicy: IfNotPresent
`;
}
