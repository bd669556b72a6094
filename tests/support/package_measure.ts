/**
 * Measures the packed file against `deno run main.ts` (the "Single file" figures in
 * tests/bench/RESULTS.md):
 *
 *   deno run -A tests/support/package_measure.ts [--rounds 5] [--settle 20]
 *
 * Builds dist/denolet-linux-amd64 (`deno task package`), then, against the dev containerd with no
 * pods, starts each way `rounds` times and takes the time from spawn to the first `/healthz` 200:
 * the packed file's first start (its unpack directory removed before each round), its later starts
 * (unpacked, verified by SHA-256), and `deno run` of main.ts from the source tree. After `settle`
 * seconds of idling it reads VmRSS and RssAnon of the agent process (the header execs, so the pid
 * is the runtime's). Prints a Markdown table of medians.
 */
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import { stringify as toYaml } from "yaml";
import { removeCgroupTree } from "./agent.ts";
import { ensureContainerd } from "./containerd.ts";
import { PACK_TARGETS } from "./_package_runtime.ts";
import { buildPackages } from "./package.ts";
import { freePort, waitFor } from "./wait.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

interface Sample {
  startMs: number;
  rssMB: number;
  anonMB: number;
}

type Way = "first" | "later" | "deno run";

function arg(name: string, fallback: number): number {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
}

async function statusKB(pid: number, field: string): Promise<number> {
  const text = await Deno.readTextFile(`/proc/${pid}/status`);
  const m = text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  if (!m) throw new Error(`no ${field} for ${pid}`);
  return Number(m[1]);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function removeIfThere(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

async function measure(
  command: string[],
  opts: { tmp: string; endpoint: string; sandboxImage: string; settleS: number; n: number },
): Promise<Sample> {
  const dir = `${opts.tmp}/run-${opts.n}`;
  await Deno.mkdir(`${dir}/manifests`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/config.yaml`,
    toYaml({
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      podLogsDir: `${dir}/pods`,
    }),
  );
  const port = freePort();
  const node = `measure-${Deno.pid}-${opts.n}`;
  const [cmd, ...pre] = command;
  const started = performance.now();
  const child = new Deno.Command(cmd, {
    args: [
      ...pre,
      "--config",
      `${dir}/config.yaml`,
      "--container-runtime-endpoint",
      opts.endpoint,
      "--pod-manifest-path",
      `${dir}/manifests`,
      "--root-dir",
      `${dir}/root`,
      "--port",
      "0",
      "--read-only-port",
      String(port),
      "--hostname-override",
      node,
      `--cgroup-root=/denolet-e2e/${node}`,
      `--pod-infra-container-image=${opts.sandboxImage}`,
    ],
    env: { DENOLET_UNPACK_DIR: `${opts.tmp}/unpack`, NO_COLOR: "1" },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await waitFor(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
      await res?.body?.cancel();
      return res?.status === 200;
    }, { timeoutMs: 120_000, intervalMs: 10, what: `/healthz of ${command.join(" ")}` });
    const startMs = performance.now() - started;
    await sleep(opts.settleS * 1000);
    return {
      startMs,
      rssMB: await statusKB(child.pid, "VmRSS") / 1024,
      anonMB: await statusKB(child.pid, "RssAnon") / 1024,
    };
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await removeCgroupTree(`denolet-e2e/${node}`);
  }
}

async function main(): Promise<void> {
  const rounds = arg("--rounds", 5);
  const settleS = arg("--settle", 20);
  const runtime = await ensureContainerd();
  const built = await buildPackages({ targets: PACK_TARGETS, log: (l) => console.error(l) });
  const file = built.packages[0].path;
  const tmp = await Deno.makeTempDir({ prefix: "denolet-measure-" });
  const samples: Record<Way, Sample[]> = { first: [], later: [], "deno run": [] };
  const ways: [Way, string[]][] = [
    ["first", [file]],
    ["later", [file]],
    ["deno run", [Deno.execPath(), "run", "-A", `--v8-flags=${AGENT_V8_FLAGS}`, `${ROOT}main.ts`]],
  ];
  let n = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [way, command] of ways) {
        if (way === "first") await removeIfThere(`${tmp}/unpack`);
        const s = await measure(command, {
          tmp,
          endpoint: runtime.endpoint,
          sandboxImage: runtime.sandboxImage,
          settleS,
          n: n++,
        });
        samples[way].push(s);
        console.error(`${way}: ${s.startMs.toFixed(0)} ms, RSS ${s.rssMB.toFixed(1)} MB`);
      }
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
  console.log(`\n${rounds} rounds, ${settleS} s idle before RSS, load average ${load}\n`);
  for (const p of built.packages) console.log(`${p.target.file}: ${p.bytes} bytes`);
  console.log("\n| start | to /healthz ms (median) | RSS MB | anon MB |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const way of Object.keys(samples) as Way[]) {
    const xs = samples[way];
    console.log(
      `| ${way} | ${median(xs.map((s) => s.startMs)).toFixed(0)} | ` +
        `${median(xs.map((s) => s.rssMB)).toFixed(1)} | ${
          median(xs.map((s) => s.anonMB)).toFixed(1)
        } |`,
    );
  }
}

if (import.meta.main) await main();
