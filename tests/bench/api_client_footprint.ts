/**
 * What each Kubernetes client candidate costs in resident memory, in a fresh `deno run` each
 * (with the agent's V8 flags), against the real test control plane: load the node kubeconfig,
 * GET the node's pods, hold a watch open, settle, then read /proc/self/status.
 *
 *   deno run -A tests/bench/api_client_footprint.ts [--settle 10]
 *
 * Candidates: the baseline (deno + yaml, which the standalone agent already loads); denolet's own
 * fetch client (src/apiclient); @kubernetes/client-node's KubeConfig alone (its config module); and
 * the whole package (KubeConfig + CoreV1Api + Watch). Writes dist/api_client_footprint.json.
 */
import { parseArgs } from "node:util";
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { startControlPlane } from "../support/control_plane.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    settle: { type: "string", default: "10" },
    out: { type: "string", default: "dist/api_client_footprint.json" },
  },
});
const settleMs = Number(values.settle) * 1000;
const ROOT = new URL("../../", import.meta.url).pathname;
const CLIENT_NODE = "npm:@kubernetes/client-node@^1.4.0";

await using cp = await startControlPlane();
const kubeconfig = await cp.nodeKubeconfig("bench-node");
const podsPath = "/api/v1/pods?fieldSelector=spec.nodeName%3Dbench-node";

const CANDIDATES: [string, string][] = [
  ["deno + yaml (baseline)", `import * as YAML from "yaml"; YAML.parse("a: 1");`],
  [
    "denolet apiclient: GET + open watch",
    `import * as YAML from "yaml"; YAML.parse("a: 1");
     import { createApiClient, loadKubeconfig } from "${ROOT}src/apiclient/mod.ts";
     import { realClock } from "${ROOT}src/util/clock.ts";
     import { nullLogger } from "${ROOT}src/util/log.ts";
     const c = createApiClient(await loadKubeconfig("${kubeconfig}"), {
       clock: realClock, logger: nullLogger, qps: 50, burst: 100, userAgent: "bench" });
     await c.request({ method: "GET", path: "${podsPath}" });
     const ac = new AbortController();
     (async () => { for await (const _ of c.watch("/api/v1/pods", { signal: ac.signal,
       query: { fieldSelector: "spec.nodeName=bench-node" } })) {} })();
     globalThis.keep = [c, ac];`,
  ],
  [
    "client-node KubeConfig only (dist/config.js)",
    `import * as YAML from "yaml"; YAML.parse("a: 1");
     const { KubeConfig } = await import("${CLIENT_NODE}/dist/config.js");
     const kc = new KubeConfig(); kc.loadFromFile("${kubeconfig}"); globalThis.keep = kc;`,
  ],
  [
    "client-node whole: CoreV1Api GET + Watch",
    `import * as YAML from "yaml"; YAML.parse("a: 1");
     const k8s = await import("${CLIENT_NODE}");
     const kc = new k8s.KubeConfig(); kc.loadFromFile("${kubeconfig}");
     const api = kc.makeApiClient(k8s.CoreV1Api);
     await api.listPodForAllNamespaces({ fieldSelector: "spec.nodeName=bench-node" });
     const w = new k8s.Watch(kc);
     await w.watch("/api/v1/pods", { fieldSelector: "spec.nodeName=bench-node" }, () => {}, () => {});
     globalThis.keep = [kc, api, w];`,
  ],
];

const dir = await Deno.makeTempDir({ prefix: "denolet-apiclient-mem-" });
const report: Record<string, { rssMB: number; anonMB: number; deltaMB: number }> = {};
let baseline = 0;
try {
  for (const [i, [label, code]] of CANDIDATES.entries()) {
    const file = `${dir}/probe_${i}.ts`;
    await Deno.writeTextFile(
      file,
      `${code}
await new Promise((r) => setTimeout(r, ${settleMs}));
const st = Deno.readTextFileSync("/proc/self/status");
const kb = (k: string) => Number(new RegExp(k + ":\\\\s+(\\\\d+)").exec(st)?.[1]);
console.log(JSON.stringify({ rssKB: kb("VmRSS"), anonKB: kb("RssAnon") }));
Deno.exit(0);
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `--v8-flags=${AGENT_V8_FLAGS}`, "--config", `${ROOT}deno.json`, file],
      stderr: "null",
    }).output();
    if (!out.success) throw new Error(`probe "${label}" failed with code ${out.code}`);
    const j = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
    const rssMB = j.rssKB / 1024;
    if (i === 0) baseline = rssMB;
    report[label] = { rssMB, anonMB: j.anonKB / 1024, deltaMB: rssMB - baseline };
    console.error(`[apiclient-mem] ${label}: rss=${rssMB.toFixed(1)} MB`);
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}

await Deno.mkdir(`${ROOT}dist`, { recursive: true });
await Deno.writeTextFile(
  values.out!,
  JSON.stringify({ when: new Date(realClock.now()).toISOString(), settleMs, report }, null, 2),
);
console.log(
  "candidate".padEnd(46),
  ["rss", "anon", "+baseline"].map((h) => h.padStart(10)).join(""),
);
for (const [k, r] of Object.entries(report)) {
  console.log(
    k.padEnd(46),
    [r.rssMB, r.anonMB, r.deltaMB].map((x) => x.toFixed(1).padStart(10)).join(""),
  );
}
console.log(`written ${values.out}`);
