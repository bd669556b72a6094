/**
 * What the agent's idle RSS is made of. Cumulative probes, each a fresh `deno run`:
 * an empty script; + @grpc/grpc-js; + the generated CRI codec; + an open CRI channel
 * after one call; + yaml. The same kind of steps again as the single file runs code (`--steps
 * bundle`): each a minified bundle made as the package's (`bundleAgent`), run with the agent's V8
 * flags after a first run that fills Deno's code cache; node:http2 (which grpc-js needs) apart
 * from grpc-js, and ending with + Deno.serve answering one request: the floor under the agent's
 * own code. Then the whole agent idle, with `--pods` running pods, and idle again
 * after `--cycles` rounds of pods created and deleted, once per variant: V8 flags
 * (DENO_V8_FLAGS) or allocator settings, with the V8 heap figures from `_agent_probe.ts`, and
 * `bundle`, the package's minified bundle as the single file runs it (`_agent_bundle.ts`).
 *
 *   deno run -A tests/bench/memory_breakdown.ts [--settle 15] [--pods 30] [--cycles 3]
 *                                              [--steps source,bundle] [--variants default,bundle]
 *
 * Writes dist/memory_breakdown.json and prints a table. Figures are MB; RSS = anon + file,
 * where "file" is mostly the deno binary's pages (shared between deno processes).
 */
import { parseArgs } from "node:util";
import { createCriClient } from "../../src/cri/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { startAgent } from "../support/agent.ts";
import { manifest, podNames, waitSandboxesGone } from "./_pods.ts";
import { waitPodsRunning } from "./_scenarios.ts";
import { type MappingBreakdown, mappingBreakdown, procSample } from "./_proc.ts";
import { buildAgentBundle } from "./_agent_bundle.ts";
import { bundleAgent, writeBundle } from "../support/package.ts";
import { AGENT_V8_FLAGS, renderBuildInfo } from "../../src/build_info/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    settle: { type: "string", default: "15" },
    pods: { type: "string", default: "30" },
    cycles: { type: "string", default: "3" },
    variants: { type: "string" },
    steps: { type: "string", default: "source,bundle" },
    out: { type: "string", default: "dist/memory_breakdown.json" },
  },
});
const settleMs = Number(values.settle) * 1000;
const podCount = Number(values.pods);
const cycles = Number(values.cycles);

/** The end of every probe program: settle, then print its own /proc and heap figures. */
const PROBE_REPORT = `await new Promise((r) => setTimeout(r, ${settleMs}));
const st = Deno.readTextFileSync("/proc/self/status");
const kb = (k: string) => Number(new RegExp(k + ":\\\\s+(\\\\d+)").exec(st)?.[1]);
console.log(JSON.stringify({ rssKB: kb("VmRSS"), anonKB: kb("RssAnon"), fileKB: kb("RssFile"),
  threads: kb("Threads"), mem: Deno.memoryUsage() }));
`;

/**
 * Variants of the whole agent: V8 flags (DENO_V8_FLAGS is comma-separated; --expose-gc only
 * lets the probe force a GC every second) and allocator settings (glibc's MALLOC_ARENA_MAX caps
 * the per-thread malloc arenas that Deno's worker threads otherwise each grow and keep).
 */
const VARIANTS: Record<
  string,
  { v8?: string; gc?: boolean; env?: Record<string, string>; bundle?: boolean }
> = {
  default: {},
  // What the single file runs: the package's minified bundle (no heap figures: no probe inside).
  bundle: { bundle: true },
  "forced-gc": { v8: "--expose-gc", gc: true },
  "optimize-for-size": { v8: "--optimize-for-size" },
  "semi-space-1MB": { v8: "--max-semi-space-size=1" },
  "lite-mode": { v8: "--lite-mode" },
  "max-old-space-32MB": { v8: "--max-old-space-size=32" },
  "malloc-arena-2": { env: { MALLOC_ARENA_MAX: "2" } },
  "lite-mode+arena-2": { v8: "--lite-mode", env: { MALLOC_ARENA_MAX: "2" } },
  combined: {
    v8: "--optimize-for-size,--max-semi-space-size=1,--lite-mode",
    env: { MALLOC_ARENA_MAX: "2" },
  },
};
const variants = values.variants?.split(",").filter(Boolean) ?? Object.keys(VARIANTS);

interface Row {
  rssMB: number;
  anonMB: number;
  fileMB: number;
  threads: number;
  heapUsedMB?: number;
  heapTotalMB?: number;
  externalMB?: number;
  /** The agent's resident memory by mapping kind. */
  mappings?: MappingBreakdown;
}

const rt = await ensureContainerd();
const ROOT = new URL("../../", import.meta.url).pathname;
const MB = 1024 * 1024;

/** Each probe adds to the previous; the last line prints the figures after settling. */
const IMPORT_STEPS: [string, string][] = [
  ["deno, empty script", ""],
  ["+ @grpc/grpc-js", `import "@grpc/grpc-js";`],
  [
    "+ the CRI codec (generated, static)",
    `import { criServices } from "${ROOT}src/cri/_proto.ts"; criServices();`,
  ],
  [
    "+ CRI client, one call (open channel)",
    `import { createCriClient } from "${ROOT}src/cri/mod.ts";
     const c = createCriClient("${rt.endpoint}", { timeoutMs: 5000 });
     await c.runtime.version(); globalThis.keep = c;`,
  ],
  ["+ yaml", `import * as YAML from "yaml"; YAML.parse("a: 1");`],
];

/**
 * As the single file runs code (a bundle, lite mode), imports relative to the repository root;
 * `keep` holds what must stay open until the figures are taken, and is closed after, so the
 * process ends by itself (Deno writes its code cache only then).
 */
const BUNDLED_STEPS: [string, string][] = [
  ["bundle: deno, empty program", "const keep: { close(): unknown }[] = [];"],
  // Most of grpc-js's cost is Deno's node:http2 (and the node: modules it loads), shown apart.
  ["bundle: + node:http2", `import "node:http2";`],
  ["bundle: + @grpc/grpc-js", `import "@grpc/grpc-js";`],
  [
    "bundle: + CRI client, one call",
    `import { createCriClient } from "./src/cri/mod.ts";
     const cri = createCriClient("${rt.endpoint}", { timeoutMs: 5000 });
     await cri.runtime.version(); keep.push(cri);`,
  ],
  ["bundle: + yaml", `import * as YAML from "yaml"; YAML.parse("a: 1");`],
  [
    "bundle: + Deno.serve, one request",
    `const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
       new Response("ok"));
     await (await fetch(\`http://127.0.0.1:\${server.addr.port}/\`)).text();
     keep.push({ close: () => server.shutdown() });`,
  ],
];

const steps = values.steps!.split(",");
const probeDir = await Deno.makeTempDir({ prefix: "denolet-mem-" });
const report: Record<string, Row> = {};
for (
  const [kind, list, probe] of [
    ["source", IMPORT_STEPS, probeScript],
    ["bundle", BUNDLED_STEPS, probeBundle],
  ] as const
) {
  if (!steps.includes(kind)) continue;
  let code = "";
  for (const [label, step] of list) {
    code += step + "\n";
    report[label] = await probe(code);
    console.error(`[mem] ${label}: ${fmt(report[label])}`);
  }
}

const cri = createCriClient(rt.endpoint, { timeoutMs: 60_000 });
try {
  for (const v of variants) {
    const spec = VARIANTS[v];
    if (!spec) throw new Error(`unknown variant ${v}; known: ${Object.keys(VARIANTS).join(",")}`);
    for (const [k, row] of Object.entries(await measureAgent(spec))) {
      report[`agent ${k} [${v}]`] = row;
      console.error(`[mem] agent ${k} [${v}]: ${fmt(row)}`);
    }
  }
} finally {
  cri.close();
  await Deno.remove(probeDir, { recursive: true });
}

await Deno.mkdir(`${ROOT}dist`, { recursive: true });
await Deno.writeTextFile(
  values.out!,
  JSON.stringify({ when: new Date(realClock.now()).toISOString(), settleMs, report }, null, 2),
);
console.log(
  "probe".padEnd(44),
  ["rss", "anon", "file", "heapUsed", "heapTotal", "external", "threads"].map((h) => h.padStart(9))
    .join(""),
);
for (const [k, r] of Object.entries(report)) {
  const cols = [r.rssMB, r.anonMB, r.fileMB, r.heapUsedMB, r.heapTotalMB, r.externalMB];
  console.log(
    k.padEnd(44),
    cols.map((x) => (x === undefined ? "-" : x.toFixed(1)).padStart(9)).join("") +
      String(r.threads).padStart(9),
  );
}
console.log(`written ${values.out}`);

function fmt(r: Row): string {
  return `rss=${r.rssMB.toFixed(1)} anon=${r.anonMB.toFixed(1)} heap=${r.heapUsedMB?.toFixed(1)}`;
}

/** Runs `code` then, after settling, prints its own /proc and heap figures. */
async function probeScript(body: string): Promise<Row> {
  const file = `${probeDir}/probe_${Object.keys(report).length}.ts`;
  await Deno.writeTextFile(
    file,
    `${body}\n${PROBE_REPORT}`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", `${ROOT}deno.json`, file],
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`probe ${file} failed with code ${out.code}`);
  return parseProbe(new TextDecoder().decode(out.stdout));
}

/** `body` bundled as the package bundles the agent; run once to fill the code cache, then measured. */
async function probeBundle(body: string): Promise<Row> {
  const dir = `${probeDir}/bundle_${Object.keys(report).length}`;
  await Deno.mkdir(dir);
  const entry = `${body}\n${PROBE_REPORT}for (const k of keep) await k.close();\n`;
  const info = renderBuildInfo({ commit: "memory-breakdown", compiled: true, packed: true });
  const file = await writeBundle(dir, await bundleAgent({ info, entry }));
  let row: Row | undefined;
  for (let run = 0; run < 2; run++) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", `--v8-flags=${AGENT_V8_FLAGS}`, file],
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`probe ${file} failed with code ${out.code}`);
    row = parseProbe(new TextDecoder().decode(out.stdout));
  }
  return row!;
}

/** The last line a probe printed: its /proc and heap figures. */
function parseProbe(stdout: string): Row {
  const j = JSON.parse(stdout.trim().split("\n").at(-1)!);
  return {
    rssMB: j.rssKB / 1024,
    anonMB: j.anonKB / 1024,
    fileMB: j.fileKB / 1024,
    threads: j.threads,
    heapUsedMB: j.mem.heapUsed / MB,
    heapTotalMB: j.mem.heapTotal / MB,
    externalMB: j.mem.external / MB,
  };
}

/**
 * The agent idle after settling; with `podCount` running pods after settling; and idle again
 * after `cycles` rounds of `podCount` new pods created and deleted (new names, so new UIDs):
 * memory that does not come back after the pods are gone is either a leak or heap V8 keeps.
 */
async function measureAgent(spec: (typeof VARIANTS)[string]): Promise<Record<string, Row>> {
  const memOut = spec.bundle ? undefined : `${probeDir}/agent_mem.json`;
  await using agent = await startAgent({
    runtime: rt,
    cleanupWith: cri.runtime,
    mainModule: spec.bundle
      ? await buildAgentBundle(probeDir)
      : new URL("./_agent_probe.ts", import.meta.url).pathname,
    env: {
      ...spec.env,
      ...(memOut ? { DENOLET_MEM_OUT: memOut } : {}),
      ...(spec.v8 ? { DENO_V8_FLAGS: spec.v8 } : {}),
      ...(spec.gc ? { DENOLET_MEM_GC: "1" } : {}),
    },
  });
  await agent.waitHealthy({ timeoutMs: 60_000 });
  await realClock.sleep(settleMs);
  const rows: Record<string, Row> = { idle: await agentRow(agent.pid, memOut) };
  for (let cycle = 0; cycle < Math.max(1, cycles); cycle++) {
    const names = podNames(`mem-c${cycle}`, podCount);
    await Promise.all(
      names.map((n) =>
        Deno.writeTextFile(`${agent.manifestDir}/${n}.yaml`, manifest(n, rt.images.pause))
      ),
    );
    await waitPodsRunning(agent, names);
    if (cycle === 0) {
      await realClock.sleep(settleMs);
      rows[`${podCount} pods`] = await agentRow(agent.pid, memOut);
    }
    await Promise.all(names.map((n) => Deno.remove(`${agent.manifestDir}/${n}.yaml`)));
    await waitSandboxesGone(cri.runtime, { node: agent.hostname, names });
  }
  await realClock.sleep(settleMs);
  rows[`idle after ${Math.max(1, cycles)} x ${podCount} pods`] = await agentRow(agent.pid, memOut);
  return rows;
}

async function agentRow(pid: number, memOut: string | undefined): Promise<Row> {
  const p = await procSample(pid);
  const mem = memOut ? JSON.parse(await Deno.readTextFile(memOut)) as Deno.MemoryUsage : undefined;
  return {
    rssMB: p.rssKB / 1024,
    anonMB: p.anonKB / 1024,
    fileMB: p.fileKB / 1024,
    threads: p.threads,
    heapUsedMB: mem && mem.heapUsed / MB,
    heapTotalMB: mem && mem.heapTotal / MB,
    externalMB: mem && mem.external / MB,
    mappings: await mappingBreakdown(pid),
  };
}
