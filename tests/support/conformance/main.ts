/**
 * `deno task conformance`: the upstream e2e suite's [NodeConformance] specs against denolet
 * joined to the test control plane, or (`--kubelet upstream`) against the upstream kubelet
 * v1.37.2 on the same control plane and runtime, and a report of both side by side.
 *
 * Builds and caches e2e.test, ginkgo, agnhost and the images (cold: 20–40 min on 2 cores),
 * starts a private containerd (its own directory and bridge: the kubelet kills every pod it does
 * not know, and the shared dev runtime is everyone's), the control plane with its scheduler and
 * controller manager, and the node as its only node; runs Ginkgo; records every spec's result
 * under `<results>/<agent>/record.json`; writes `<results>/report.md` and `report.json`.
 */
import { createCriClient } from "../../../src/cri/mod.ts";
import { realClock } from "../../../src/util/clock.ts";
import { DevSetupError, exists } from "../_exec.ts";
import {
  type CniNetwork,
  type ContainerdFlavour,
  devContainerd,
  devDir,
  ensureContainerd,
  stopContainerd,
} from "../containerd.ts";
import { ensureControlPlaneBinaries, startControlPlane } from "../control_plane.ts";
import { removeEverySandbox } from "../upstream_kubelet.ts";
import { ginkgoArgs, isFullRun, parseArgs, USAGE, UsageError } from "./_args.ts";
import type { ConformanceArgs } from "./_args.ts";
import { snapshotAgent } from "./_agent_source.ts";
import { buildConformance } from "./_build.ts";
import { runGinkgo } from "./_ginkgo.ts";
import { ensureE2EImages } from "./_images.ts";
import { parseJUnit } from "./_junit.ts";
import { startNode } from "./_node.ts";
import {
  buildReport,
  type NodeKind,
  recordRun,
  renderMarkdown,
  type RunRecord,
} from "./_report.ts";

/** The private runtime: the bench's are denolet1/10.86 and denolet3/10.89. */
const RUNTIME_DIR = "/var/lib/denolet-conformance";
function runtimeNetwork(flavour: ContainerdFlavour): CniNetwork {
  return flavour === "upstream"
    ? { bridge: "denolet6", subnet: "10.93.0.0/16" }
    : { bridge: "denolet5", subnet: "10.92.0.0/16" };
}

function log(s: string): void {
  console.error(`[conformance ${new Date(realClock.now()).toISOString().slice(11, 19)}] ${s}`);
}

async function main(argv: string[]): Promise<number> {
  let args: ConformanceArgs;
  try {
    args = parseArgs(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`${err.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const results = args.results ?? `${devDir()}/conformance/results`;
  if (args.reportOnly) {
    for (const kind of ["denolet", "upstream"] as const) await reparseRecord(results, kind);
    await writeReport(results);
    return 0;
  }
  const build = await buildConformance(devDir(), { log });
  await ensureControlPlaneBinaries({ log });
  const flavour = args.containerd ?? devContainerd();
  const rtOpts = {
    dir: RUNTIME_DIR,
    network: runtimeNetwork(flavour),
    containerd: flavour,
    log,
  };
  const runtime = await ensureContainerd(rtOpts);
  const cri = createCriClient(runtime.endpoint, { timeoutMs: 120_000 });
  const abort = new AbortController();
  const onSignal = () => abort.abort(new DevSetupError("interrupted"));
  for (const s of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(s, onSignal);
  try {
    await ensureE2EImages({ socket: runtime.socket, dir: runtime.dir }, { build, log });
    if (args.buildOnly) return 0;
    // The runtime is this task's alone: whatever an interrupted run left there goes first.
    await removeEverySandbox(cri.runtime);
    const v = await cri.runtime.version();
    const runtimeName = `${v.runtimeName} ${v.runtimeVersion}`;

    log("starting the control plane (etcd, kube-apiserver, controller manager, scheduler)");
    await using cp = await startControlPlane({ log });
    const startedAt = new Date(realClock.now()).toISOString();
    const runDir = runDirOf(results, args.kubelet, startedAt);
    await Deno.mkdir(runDir, { recursive: true });
    const agent = args.kubelet === "denolet"
      ? await snapshotAgent(`${runDir}/agent`, { commit: args.agentCommit })
      : undefined;
    const node = await startNode(args.kubelet, { cp, runtime, rs: cri.runtime, agent, log });
    let ginkgo;
    try {
      const cmd = ginkgoArgs(args, {
        ginkgo: build.ginkgo,
        e2eTest: build.e2eTest,
        kubeconfig: cp.adminKubeconfig,
        kubectl: cp.binaries.kubectl,
        reportDir: runDir,
      });
      await Deno.writeTextFile(`${runDir}/command`, [build.ginkgo, ...cmd].join(" ") + "\n");
      log(`running ${args.procs} Ginkgo processes against ${node.name}; log ${runDir}/ginkgo.log`);
      ginkgo = await runGinkgo(build.ginkgo, cmd, {
        cwd: runDir,
        logFile: `${runDir}/ginkgo.log`,
        log,
        signal: abort.signal,
      });
    } finally {
      await node.saveLog(`${runDir}/node.log`).catch((err) =>
        log(`cannot save the node log: ${err}`)
      );
      await node.stop();
    }
    const junitFile = `${runDir}/junit_01.xml`;
    if (!(await exists(junitFile))) {
      throw new DevSetupError(
        `Ginkgo exited with ${ginkgo.code} and no report (${junitFile}); see ${runDir}/ginkgo.log`,
      );
    }
    const junit = parseJUnit(await Deno.readTextFile(junitFile));
    const recordFile = `${results}/${args.kubelet}/record.json`;
    const record = recordRun(await readRecord(recordFile), {
      info: {
        kubelet: args.kubelet,
        startedAt,
        finishedAt: new Date(realClock.now()).toISOString(),
        focus: args.focus,
        skip: args.skip,
        procs: args.procs,
        node: node.description,
        runtime: runtimeName,
        seconds: ginkgo.seconds,
      },
      junit,
      full: isFullRun(args),
    });
    await Deno.writeTextFile(recordFile, JSON.stringify(record, null, 1) + "\n");
    const specs = [...junit.specs.values()];
    log(
      `${args.kubelet}: ${specs.filter((s) => s.outcome === "passed").length} passed, ` +
        `${specs.filter((s) => s.outcome === "failed").length} failed, ` +
        `${specs.filter((s) => s.outcome === "skipped").length} skipped themselves ` +
        `in ${Math.round(ginkgo.seconds / 60)} min`,
    );
    await writeReport(results);
    return 0;
  } finally {
    for (const s of ["SIGINT", "SIGTERM"] as const) Deno.removeSignalListener(s, onSignal);
    cri.close();
    await stopContainerd(rtOpts);
  }
}

function runDirOf(results: string, kind: NodeKind, startedAt: string): string {
  return `${results}/${kind}/runs/${startedAt.replaceAll(":", "-")}`;
}

/** Reads an agent's runs' JUnit reports again (a newer parser sees more in them). */
async function reparseRecord(results: string, kind: NodeKind): Promise<void> {
  const file = `${results}/${kind}/record.json`;
  const old = await readRecord(file);
  if (!old) return;
  let record: RunRecord | undefined;
  for (const [i, info] of old.runs.entries()) {
    const junitFile = `${runDirOf(results, kind, info.startedAt)}/junit_01.xml`;
    const junit = parseJUnit(await Deno.readTextFile(junitFile));
    record = recordRun(record, { info, junit, full: i === 0 });
  }
  await Deno.writeTextFile(file, JSON.stringify(record, null, 1) + "\n");
}

async function readRecord(path: string): Promise<RunRecord | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as RunRecord;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new DevSetupError(`Cannot read the conformance record ${path}`, { cause: err });
  }
}

async function writeReport(results: string): Promise<void> {
  const records = {} as Record<NodeKind, RunRecord | undefined>;
  for (const kind of ["denolet", "upstream"] as const) {
    records[kind] = await readRecord(`${results}/${kind}/record.json`);
  }
  const report = buildReport(records.denolet, records.upstream);
  await Deno.mkdir(results, { recursive: true });
  await Deno.writeTextFile(`${results}/report.json`, JSON.stringify(report, null, 1) + "\n");
  await Deno.writeTextFile(`${results}/report.md`, renderMarkdown(report));
  const s = report.summary;
  log(
    `report ${results}/report.md: ${s.specs} specs, kubelet passed ${s.passedKubelet ?? "—"}, ` +
      `denolet passed ${s.passedDenolet ?? "—"}, ${s.differences} differences`,
  );
}

if (import.meta.main) {
  const code = await main(Deno.args).catch((err) => {
    console.error(err instanceof DevSetupError ? err.message : err);
    if (err instanceof Error && err.cause) console.error("caused by:", err.cause);
    return 1;
  });
  Deno.exit(code);
}
