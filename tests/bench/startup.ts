/**
 * Start-up figures of the agent run from source under its least-privilege permission set:
 * time from process start to the first CRI call (its completion, from the -v 6 log) and to
 * /healthz 200, and the RSS with no pods a few seconds later. Median of `--runs` (default 5).
 *
 *   deno run -A tests/bench/startup.ts [--runs 5] [--allow-all]
 *
 * --allow-all runs the agent with -A instead (while parts of it still need /proc or /sys).
 */
import { loadConfig } from "../../src/config/mod.ts";
import { permissionFlags } from "../../src/permissions/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { ensureContainerd } from "../support/containerd.ts";
import { ownDirsAgentArgs } from "../support/own_dirs_agent.ts";
import { freePort } from "../support/wait.ts";
import { procSample } from "./_proc.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SETTLE_MS = 3_000;

interface Run {
  firstCriMs: number;
  healthzMs: number;
  rssMB: number;
}

async function once(endpoint: string, n: number, allowAll: boolean): Promise<Run> {
  const tmp = await Deno.makeTempDir({ prefix: "denolet-startup-" });
  const port = freePort();
  const { configFile, args: own } = await ownDirsAgentArgs(tmp, {
    endpoint,
    readOnlyPort: port,
    hostname: `startup-${Deno.pid}-${n}`,
  });
  const args = [
    ...own,
    "-v",
    "6",
  ];
  const loaded = await loadConfig(args);
  if (loaded.kind !== "run") throw new Error("not a run");
  const flags = allowAll ? ["-A"] : permissionFlags(loaded.config, { configFile });
  const start = realClock.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-prompt", ...flags, `${ROOT}main.ts`, ...args],
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const logText = collect(child.stderr);
  try {
    let healthzMs = NaN;
    while (Number.isNaN(healthzMs) && realClock.now() - start < 60_000) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`);
        await res.body?.cancel();
        if (res.status === 200) healthzMs = realClock.now() - start;
      } catch {
        // not listening yet
      }
      if (Number.isNaN(healthzMs)) await realClock.sleep(10);
    }
    await realClock.sleep(SETTLE_MS);
    const rssMB = (await procSample(child.pid)).rssKB / 1024;
    child.kill("SIGTERM");
    await child.status;
    const line = (await logText).split("\n").find((l) => l.includes('msg="CRI call"'));
    const at = line ? Date.parse(/time=(\S+)/.exec(line)?.[1] ?? "") : NaN;
    return { firstCriMs: at - start, healthzMs, rssMB };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) text += chunk;
  return text;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--runs");
  const runs = i >= 0 ? Number(Deno.args[i + 1]) : 5;
  const allowAll = Deno.args.includes("--allow-all");
  const runtime = await ensureContainerd();
  const results: Run[] = [];
  for (let n = 0; n < runs; n++) results.push(await once(runtime.endpoint, n, allowAll));
  const fmt = (k: keyof Run, unit: string) =>
    `${k}: median ${median(results.map((r) => r[k])).toFixed(0)} ${unit} ` +
    `(${results.map((r) => r[k].toFixed(0)).join(", ")})`;
  const perms = allowAll ? "-A" : "least-privilege flags";
  console.log(`deno ${Deno.version.deno}, from source, ${perms}, ${runs} runs`);
  console.log(fmt("firstCriMs", "ms"));
  console.log(fmt("healthzMs", "ms"));
  console.log(fmt("rssMB", "MB"));
}
