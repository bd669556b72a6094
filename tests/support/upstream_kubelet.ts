/**
 * The upstream kubelet (built by `ensureControlPlaneBinaries()`) run standalone on a runtime of
 * its own, for the bench's side-by-side figures. The kubelet owns whatever it finds: it kills
 * every pod in its runtime it does not know (HandlePodCleanups), collects other pods' dead
 * containers and log dirs, and destroys "orphaned" pod cgroups under its cgroup root. So it gets
 * a private containerd (never the shared dev one: the caller passes it), its own cgroup root, root
 * dir and pod log dir, and the host sysctls it rewrites are put back when it stops.
 */
import type { RuntimeService } from "../../src/cri/types.ts";
import { NotFoundError } from "../../src/util/errors.ts";
import { DevSetupError, exists, run } from "./_exec.ts";
import { type Daemon, startDaemon, waitDaemon } from "./_control_plane_process.ts";
import { KUBELET_SYSCTLS, renderKubeletConfig } from "./_upstream_kubelet_config.ts";
import { removeAgentSandboxes, removeCgroupTree } from "./agent.ts";
import { type DevRuntime, devRuntime, runtimeDir } from "./containerd.ts";
import { freePort } from "./wait.ts";

const CGROUP_MOUNT = "/sys/fs/cgroup";
const LEGACY_LOG_LINKS = "/var/log/containers";
let count = 0;

export interface UpstreamKubeletOptions {
  /** The kubelet binary. */
  binary: string;
  /** A runtime no one else uses; refused when it is the shared dev containerd. */
  runtime: DevRuntime;
  /** A client of that runtime: `stop()` removes the pods the kubelet leaves running. */
  cleanupWith: RuntimeService;
  /** Its own cgroup root, e.g. `/denolet-upstream-bench` (created, and removed when empty). */
  cgroupRoot: string;
  /** --hostname-override (lower case: static pods are named `<name>-<node>`). */
  hostname?: string;
  /** Extra kubelet flags, appended last. */
  extraArgs?: string[];
  /**
   * Join the API server `kubeconfig` points at as node `hostname`, reporting `nodeIP` (the API
   * server dials it) and accepting client certificates of `clientCAFile`. Standalone otherwise.
   */
  cluster?: { kubeconfig: string; nodeIP: string; clientCAFile: string };
  /**
   * The runtime holds this kubelet's pods and nothing else: `stop()` removes every sandbox in it
   * (API pods' names do not carry the node name).
   */
  ownsRuntime?: boolean;
}

export interface UpstreamKubelet {
  readonly pid: number;
  readonly hostname: string;
  readonly manifestDir: string;
  readonly logFile: string;
  /** Until /healthz answers 200; fails at once, with the log tail, if the kubelet exits. */
  waitHealthy(opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<void>;
  /**
   * SIGTERM (SIGKILL after 30 s), then removes every sandbox named `*-<hostname>` from its
   * runtime (the kubelet leaves pods running when it exits), its cgroup tree, its legacy log
   * links and temp dirs, and restores the host sysctls. Idempotent.
   */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startUpstreamKubelet(o: UpstreamKubeletOptions): Promise<UpstreamKubelet> {
  const shared = (["system", "upstream"] as const).map((c) =>
    devRuntime(runtimeDir({ containerd: c })).socket
  );
  if (shared.includes(o.runtime.socket)) {
    throw new DevSetupError(
      "Cannot run the upstream kubelet on the shared dev containerd: it would kill every pod " +
        "it does not know there. Give it a runtime of its own (ensureContainerd({ dir }))",
    );
  }
  const hostname = o.hostname ?? `upstream-${Deno.pid}-${++count}`;
  const tmp = await Deno.makeTempDir({ prefix: "denolet-upstream-" });
  const manifestDir = `${tmp}/manifests`;
  const podLogsDir = `${tmp}/pods`;
  for (const d of [manifestDir, podLogsDir, `${tmp}/root`]) await Deno.mkdir(d);
  const cgroupV1 = !(await isCgroupV2());
  await makeCgroupRoot(o.cgroupRoot, cgroupV1);
  const sysctls = await readSysctls();
  const linksDirExisted = await exists(LEGACY_LOG_LINKS);
  const healthzPort = freePort();
  const configFile = `${tmp}/kubelet.json`;
  await Deno.writeTextFile(
    configFile,
    renderKubeletConfig({
      manifestDir,
      runtimeEndpoint: o.runtime.endpoint,
      cgroupRoot: o.cgroupRoot,
      podLogsDir,
      port: freePort([healthzPort]),
      healthzPort,
      cgroupV1,
      cluster: o.cluster && { clientCAFile: o.cluster.clientCAFile },
    }),
  );
  const daemon: Daemon = startDaemon("kubelet", o.binary, {
    args: [
      `--config=${configFile}`,
      `--root-dir=${tmp}/root`,
      `--hostname-override=${hostname}`,
      ...(o.cluster
        ? [`--kubeconfig=${o.cluster.kubeconfig}`, `--node-ip=${o.cluster.nodeIP}`]
        : []),
      ...(o.extraArgs ?? []),
    ],
    logFile: `${tmp}/kubelet.log`,
  });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      await daemon.stop();
      if (o.ownsRuntime) await removeEverySandbox(o.cleanupWith);
      else await removeAgentSandboxes(o.cleanupWith, hostname);
      await removeCgroupTree(o.cgroupRoot.replace(/^\/+/, ""), CGROUP_MOUNT);
      await removeLogLinks(podLogsDir, { dirExisted: linksDirExisted });
      await writeSysctls(sysctls);
      await unmountUnder(tmp);
      if (!Deno.env.get("DENOLET_KEEP_E2E")) {
        await Deno.remove(tmp, { recursive: true }).catch((err) => {
          // A volume still mounted under the root dir (busy) must not fail the run.
          console.error(`[upstream-kubelet] cannot remove ${tmp}: ${err}`);
        });
      }
    })();
  return {
    pid: daemon.pid,
    hostname,
    manifestDir,
    logFile: daemon.logFile,
    async waitHealthy(w = {}) {
      await waitDaemon(daemon, async () => {
        const res = await fetch(`http://127.0.0.1:${healthzPort}/healthz`).catch(() => undefined);
        await res?.body?.cancel();
        return res?.status === 200;
      }, { what: "kubelet /healthz", timeoutMs: w.timeoutMs ?? 60_000, signal: w.signal });
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** Stops and removes every sandbox of the runtime `rs` serves. */
export async function removeEverySandbox(rs: RuntimeService): Promise<number> {
  const sandboxes = await rs.listPodSandbox();
  for (const s of sandboxes) {
    try {
      await rs.stopPodSandbox(s.id);
      await rs.removePodSandbox(s.id);
    } catch (err) {
      // Removed meanwhile (the kubelet's own clean-up as it stopped): what was wanted.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return sandboxes.length;
}

/**
 * The kubelet refuses a cgroup root that does not exist. On cgroup v1 it is made in every
 * hierarchy, with cpuset's cpus and mems copied from the top (a new cpuset cgroup starts empty
 * and could not hold a process); on v2 (one hierarchy) the directory is enough.
 */
async function makeCgroupRoot(root: string, v1: boolean): Promise<void> {
  const rel = root.replace(/^\/+/, "");
  if (!v1) {
    await Deno.mkdir(`${CGROUP_MOUNT}/${rel}`, { recursive: true });
    return;
  }
  for await (const e of Deno.readDir(CGROUP_MOUNT)) {
    if (!e.isDirectory || e.isSymlink) continue;
    const dir = `${CGROUP_MOUNT}/${e.name}/${rel}`;
    await Deno.mkdir(dir, { recursive: true });
    if (e.name === "cpuset") {
      for (const f of ["cpuset.cpus", "cpuset.mems"]) {
        const v = await Deno.readTextFile(`${CGROUP_MOUNT}/cpuset/${f}`);
        await Deno.writeTextFile(`${dir}/${f}`, v.trim());
      }
    }
  }
}

async function isCgroupV2(): Promise<boolean> {
  try {
    await Deno.stat(`${CGROUP_MOUNT}/cgroup.controllers`);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

async function readSysctls(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const k of KUBELET_SYSCTLS) {
    out.set(k, (await Deno.readTextFile(`/proc/sys/${k}`)).trim());
  }
  return out;
}

async function writeSysctls(values: Map<string, string>): Promise<void> {
  for (const [k, v] of values) {
    const now = (await Deno.readTextFile(`/proc/sys/${k}`)).trim();
    if (now === v) continue;
    console.error(`[upstream-kubelet] restoring ${k.replaceAll("/", ".")} ${now} -> ${v}`);
    await Deno.writeTextFile(`/proc/sys/${k}`, v);
  }
}

/**
 * The kubelet bind-mounts its root dir onto itself (rshared, MakeRShared) and leaves it mounted:
 * every mount under `dir` goes, deepest first, or the temp dir could not be removed.
 */
async function unmountUnder(dir: string): Promise<void> {
  const info = await Deno.readTextFile("/proc/self/mountinfo");
  // Field 5 is the mount point (octal escapes for spaces; our temp paths have none).
  const points = info.split("\n").map((l) => l.split(" ")[4])
    .filter((p) => p !== undefined && (p === dir || p.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const p of points) await run("umount", [p]);
}

/**
 * The kubelet links each container's log into /var/log/containers (making it if need be): drop
 * the links into our log dir, and the directory if it came with the kubelet and is now empty.
 */
async function removeLogLinks(podLogsDir: string, o: { dirExisted: boolean }): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(LEGACY_LOG_LINKS));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  for (const e of entries) {
    if (!e.isSymlink) continue;
    const path = `${LEGACY_LOG_LINKS}/${e.name}`;
    if ((await Deno.readLink(path)).startsWith(`${podLogsDir}/`)) await Deno.remove(path);
  }
  if (!o.dirExisted) {
    // rmdir: fails, harmlessly, when another kubelet-like process has put links there since.
    await Deno.remove(LEGACY_LOG_LINKS).catch((err) => {
      console.error(`[upstream-kubelet] leaving ${LEGACY_LOG_LINKS}: ${err}`);
    });
  }
}
