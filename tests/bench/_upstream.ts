/**
 * The upstream kubelet side by side (issue 14): the agent and the upstream kubelet, standalone,
 * one after the other on one private containerd, given the same pause static pods.
 *
 * The kubelet kills every pod in its runtime it does not know, so it never sees the shared dev
 * containerd (other suites' pods live there) and never runs beside the agent: each burst starts
 * the agent under test afresh on the bench runtime, lets it settle, writes N manifests at once,
 * times each pod from the write to its container's startedAt (the runtime's record), removes
 * them, waits until none of their sandboxes is ready, and stops it (its leftover sandboxes are
 * removed through the CRI). Which agent goes first alternates by round; round 0 is a warm-up.
 * Then each agent in turn at 0, 30, 110 pods: RSS, anon and CPU over the window from /proc.
 * The bench runtime is stopped at the end: it is this part's own, and idle otherwise.
 */
import { createCriClient, type RuntimeService } from "../../src/cri/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { startAgent } from "../support/agent.ts";
import {
  type CniNetwork,
  devContainerd,
  ensureContainerd,
  runtimeDir,
  stopContainerd,
} from "../support/containerd.ts";
import { ensureControlPlaneBinaries } from "../support/control_plane.ts";
import { removeEverySandbox, startUpstreamKubelet } from "../support/upstream_kubelet.ts";
import { waitFor } from "../support/wait.ts";
import { manifest, podNames, waitContainersRunning } from "./_pods.ts";
import { sampleFootprint } from "./_proc.ts";
import { type Side, SIDES, type UpstreamResult, type UpstreamSteady } from "./_upstream_report.ts";

/**
 * The private runtime: its own directory, bridge and subnet (the dev ones are denolet0/10.85 and,
 * for the "upstream" containerd, denolet2/10.87; 10.88 is podman's), of the bench's flavour.
 */
function benchRuntime(): { dir: string; network: CniNetwork } {
  const upstream = devContainerd() === "upstream";
  return {
    dir: "/var/lib/denolet-bench",
    network: upstream
      ? { bridge: "denolet3", subnet: "10.89.0.0/16" }
      : { bridge: "denolet1", subnet: "10.86.0.0/16" },
  };
}
/** The kubelet's cgroup root: it destroys "orphaned" pod cgroups below it. */
const KUBELET_CGROUP_ROOT = "/denolet-upstream-bench";
/** After /healthz: the first housekeeping and relists of a fresh process are not the burst's. */
const SETTLE_MS = 5_000;

export interface UpstreamOptions {
  /** Burst sizes, e.g. 30, 110. */
  bursts: number[];
  /** Rounds including the warm-up. */
  rounds: number;
  /** Steady-state pod counts, e.g. 0, 30, 110. */
  steady: number[];
  sampleMs: number;
  /** The agent's bench arguments and environment (V8 flags). */
  agentArgs: string[];
  agentEnv: Record<string, string>;
  /** The agent's program (`--agent bundle`); default main.ts. */
  agentMain?: string;
  /** The agent's V8 flags, on its command line (startAgent `v8Flags`). */
  agentV8Flags?: string;
  progress: (s: string) => void;
}

/** One agent under test, whichever it is. */
interface Running {
  pid: number;
  hostname: string;
  manifestDir: string;
  stop(): Promise<void>;
}

let started = 0;

export async function upstreamBench(o: UpstreamOptions): Promise<UpstreamResult> {
  const { progress } = o;
  const loadBefore = Deno.loadavg();
  const binary = (await ensureControlPlaneBinaries({ log: progress })).kubelet;
  const kubeletVersion = (await new Deno.Command(binary, { args: ["--version"] }).output())
    .stdout;
  const own = benchRuntime();
  const rt = await ensureContainerd({ ...own, log: progress });
  const cri = createCriClient(rt.endpoint, { timeoutMs: 120_000 });
  await using _runtime = {
    async [Symbol.asyncDispose]() {
      cri.close();
      await stopContainerd({ dir: own.dir, log: progress });
    },
  };
  // The runtime is this part's alone: whatever an interrupted run left there goes first.
  await removeEverySandbox(cri.runtime);
  const ctx: Ctx = { rs: cri.runtime, image: rt.images.pause };

  const start = async (side: Side): Promise<Running> => {
    const hostname = `bench-${side}-${Deno.pid}-${++started}`;
    let r: Running & { waitHealthy(o: { timeoutMs: number }): Promise<void> };
    if (side === "denolet") {
      const a = await startAgent({
        runtime: rt,
        cleanupWith: cri.runtime,
        hostname,
        mainModule: o.agentMain,
        v8Flags: o.agentV8Flags,
        extraArgs: o.agentArgs,
        env: o.agentEnv,
      });
      r = { ...a, stop: () => a[Symbol.asyncDispose](), waitHealthy: (w) => a.waitHealthy(w) };
    } else {
      const k = await startUpstreamKubelet({
        binary,
        runtime: rt,
        cleanupWith: cri.runtime,
        cgroupRoot: KUBELET_CGROUP_ROOT,
        hostname,
      });
      r = { ...k, stop: () => k.stop(), waitHealthy: (w) => k.waitHealthy(w) };
    }
    try {
      await r.waitHealthy({ timeoutMs: 60_000 });
      await realClock.sleep(SETTLE_MS);
    } catch (err) {
      await r.stop();
      throw err;
    }
    return r;
  };
  const withSide = async <T>(side: Side, fn: (r: Running) => Promise<T>): Promise<T> => {
    const r = await start(side);
    try {
      return await fn(r);
    } finally {
      await r.stop();
    }
  };

  const bursts: UpstreamResult["bursts"] = {};
  for (let round = 0; round < o.rounds; round++) {
    const warmUp = round === 0;
    const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
    for (const n of o.bursts) {
      for (const side of order) {
        progress(`upstream: round ${round}${warmUp ? " (warm-up)" : ""}: ${n} pods, ${side}`);
        const b = await withSide(side, (r) => burst(ctx, r, podNames(`u${round}-${n}`, n)));
        if (warmUp) continue;
        const acc = (bursts[n] ??= {
          denolet: { medianPod: [], allStarted: [], stopped: [] },
          kubelet: { medianPod: [], allStarted: [], stopped: [] },
        })[side];
        acc.medianPod.push(b.medianPod);
        acc.allStarted.push(b.allStarted);
        acc.stopped.push(b.stopped);
      }
    }
  }

  const steady: UpstreamResult["steady"] = {};
  for (const side of SIDES) {
    await withSide(side, async (r) => {
      for (const pods of o.steady) {
        progress(`upstream: ${side} steady state with ${pods} pods (${o.sampleMs / 1000} s)`);
        const st = await steadyAt(ctx, r, pods, o.sampleMs);
        (steady[pods] ??= {} as Record<Side, UpstreamSteady>)[side] = st;
      }
      const names = podNames("fp", Math.max(0, ...o.steady));
      await Promise.all(names.map((n) => Deno.remove(`${r.manifestDir}/${n}.yaml`)));
      await waitNoneReady(ctx.rs, r.hostname, names);
    });
  }
  return {
    kubeletVersion: new TextDecoder().decode(kubeletVersion).trim(),
    runtime: { dir: runtimeDir(own), ...own.network },
    rounds: Math.max(0, o.rounds - 1),
    bursts,
    steady,
    loadavg: { before: loadBefore, after: Deno.loadavg() },
  };
}

/** The bench runtime's client and the pods' image (pause-like, present, never pulled). */
interface Ctx {
  rs: RuntimeService;
  image: string;
}

/** One burst: N manifests at once until every container started, then removed until stopped. */
async function burst(
  { rs, image }: Ctx,
  r: Running,
  names: string[],
): Promise<{ medianPod: number; allStarted: number; stopped: number }> {
  const t0 = realClock.now();
  await Promise.all(names.map((n) => writeManifest(r, n, image)));
  const starts = [...(await waitContainersRunning(rs, { node: r.hostname, names })).values()]
    .map((t) => t - t0).sort((a, b) => a - b);
  const t1 = realClock.now();
  await Promise.all(names.map((n) => Deno.remove(`${r.manifestDir}/${n}.yaml`)));
  await waitNoneReady(rs, r.hostname, names);
  return {
    medianPod: starts[Math.floor((starts.length - 1) / 2)],
    allStarted: starts.at(-1)!,
    stopped: realClock.now() - t1,
  };
}

/** Adds footprint pods up to `pods` (a smaller level's stay), settles, samples /proc. */
async function steadyAt(
  { rs, image }: Ctx,
  r: Running,
  pods: number,
  sampleMs: number,
): Promise<UpstreamSteady> {
  const names = podNames("fp", pods);
  await Promise.all(names.map((n) => writeManifest(r, n, image)));
  if (pods > 0) await waitContainersRunning(rs, { node: r.hostname, names });
  await realClock.sleep(SETTLE_MS);
  const footprint = await sampleFootprint(r.pid, sampleMs);
  return { footprint, loadavg1: Deno.loadavg()[0] };
}

function writeManifest(r: Running, name: string, image: string): Promise<void> {
  return Deno.writeTextFile(`${r.manifestDir}/${name}.yaml`, manifest(name, image));
}

/**
 * Until no sandbox of the named pods is ready. Not "gone": the kubelet removes a stopped
 * sandbox only at its next container GC (every minute); stopping it removes the rest.
 */
async function waitNoneReady(rs: RuntimeService, node: string, names: string[]): Promise<void> {
  const wanted = new Set(names.map((n) => `${n}-${node}`));
  await waitFor(async () => {
    const sbs = await rs.listPodSandbox({ state: { state: "SANDBOX_READY" } });
    return !sbs.some((s) => wanted.has(s.metadata.name));
  }, { timeoutMs: 300_000, intervalMs: 50, what: `${wanted.size} sandboxes of ${node} stopped` });
}
