/**
 * What joining with certificates costs the API-mode agent in resident memory (issue 26): idle
 * RSS of a joined agent, each variant in a fresh process against one test control plane, in
 * alternating rounds:
 * - `base`: another checkout's main.ts (`--base /path/to/main.ts`, e.g. the branch point), with a
 *   ready-made node kubeconfig;
 * - `kubeconfig`: this checkout, the same way (no certificate code runs);
 * - `rotation`: this checkout with --rotate-certificates: the kubeconfig's inline pair is rotated
 *   out at once, so a CSR is written (the X.509 library loaded) and the connections move;
 * - `token`: this checkout joining from a bootstrap token (--bootstrap-kubeconfig).
 *
 *   deno run -A tests/bench/join_footprint.ts [--base ../main/main.ts] [--rounds 2]
 *                                             [--settle 20] [--sample 30] [--agent bundle]
 *
 * `--agent bundle` runs this checkout's variants from the package's minified bundle, as the
 * single file runs (tests/bench/_agent_bundle.ts); `base` stays as given.
 */
import { parseArgs } from "node:util";
import { realClock } from "../../src/util/clock.ts";
import { setupCluster } from "../e2e/_cluster.ts";
import { startControlPlane } from "../support/control_plane.ts";
import { waitFor } from "../support/wait.ts";
import { type Footprint, sampleFootprint } from "./_proc.ts";
import { buildAgentBundle, parseAgentForm } from "./_agent_bundle.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    base: { type: "string" },
    rounds: { type: "string", default: "2" },
    settle: { type: "string", default: "20" },
    sample: { type: "string", default: "30" },
    agent: { type: "string", default: "source" },
  },
});
const bundleDir = parseAgentForm(values.agent!) === "bundle"
  ? await Deno.makeTempDir({ prefix: "denolet-join-bundle-" })
  : undefined;
const own = bundleDir ? await buildAgentBundle(bundleDir) : undefined;

interface Variant {
  name: string;
  mainModule?: string;
  join?: "token";
  args?: string[];
}
const variants: Variant[] = [
  ...(values.base ? [{ name: "base", mainModule: values.base }] : []),
  { name: "kubeconfig", mainModule: own },
  { name: "rotation", mainModule: own, args: ["--rotate-certificates"] },
  { name: "token", mainModule: own, join: "token" },
];

const cp = await startControlPlane();
// kubeadm's bindings, so the nodes' own renewals are approved too.
await cp.bootstrapKubeconfig();
const results = new Map<string, Footprint[]>();
try {
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const v of round % 2 ? variants.toReversed() : variants) {
      const c = await setupCluster({
        controlPlane: cp,
        mainModule: v.mainModule,
        join: v.join,
        extraArgs: [
          "--sync-frequency",
          "1m",
          "--file-check-frequency",
          "20s",
          "-v",
          "0",
          ...v.args ?? [],
        ],
      });
      try {
        await waitFor(async () => {
          const n = await c.getJson<
            { status?: { conditions?: { type: string; status: string }[] } }
          >(
            ["node", c.nodeName],
          );
          return n?.status?.conditions?.some((k) => k.type === "Ready" && k.status === "True");
        }, { timeoutMs: 120_000, intervalMs: 1000, what: `${v.name}: the node Ready` });
        await realClock.sleep(Number(values.settle) * 1000);
        const f = await sampleFootprint(c.agent.pid, Number(values.sample) * 1000);
        results.set(v.name, [...results.get(v.name) ?? [], f]);
        console.error(`[join-footprint] ${v.name} round ${round + 1}: ${f.rssMB.toFixed(1)} MB`);
      } finally {
        await c.close();
      }
    }
  }
} finally {
  await cp.stop();
  if (bundleDir) await Deno.remove(bundleDir, { recursive: true });
}
console.log("| variant | idle RSS MB (each round) | mean |");
console.log("| --- | --- | ---: |");
for (const v of variants) {
  const fs = results.get(v.name) ?? [];
  const mean = fs.reduce((a, f) => a + f.rssMB, 0) / Math.max(fs.length, 1);
  console.log(
    `| ${v.name} | ${fs.map((f) => f.rssMB.toFixed(1)).join(", ")} | ${mean.toFixed(1)} |`,
  );
}
