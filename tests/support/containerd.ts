/**
 * A containerd of our own for development and the end-to-end tests. Everything lives under one
 * directory (`/var/lib/denolet-dev`, or `$DENOLET_DEV_DIR`), its sockets never clash with a system
 * containerd, and it runs detached so it outlives the process that started it.
 */
import { realClock } from "../../src/util/clock.ts";
import { DevSetupError, exists, run, tryRun } from "./_exec.ts";
import { ensurePackages } from "./_packages.ts";
import {
  type CniNetwork,
  DEFAULT_CNI_NETWORK,
  type DevLayout,
  layoutFor,
  renderCniConfig,
  renderContainerdConfig,
} from "./_containerd_config.ts";
import { BUSYBOX_IMAGE, ensureImages, PAUSE_IMAGE } from "./images.ts";
import { buildContainerd } from "./_containerd_build.ts";

export type { CniNetwork } from "./_containerd_config.ts";

/**
 * Which containerd runs a dev directory: "system" is Debian's package (containerd 1.6, the
 * default); "upstream" is containerd v2 built from the Go module proxy (`_containerd_build.ts`),
 * which also serves the runtime's container events. One directory keeps to one of them.
 */
export type ContainerdFlavour = "system" | "upstream";

export interface DevRuntime {
  /** CRI endpoint for `--container-runtime-endpoint`, `unix:///...`. */
  endpoint: string;
  /** Path of the containerd socket. */
  socket: string;
  /** The dev directory holding config, state, logs and the socket. */
  dir: string;
  /** The pause image the CRI plugin uses for sandboxes. */
  sandboxImage: string;
  images: { busybox: string; pause: string };
  /**
   * The registry `config_path` of the daemon's config (hosts.toml per `host:port`, read on
   * every pull). A daemon started before the option existed ignores it until restarted.
   */
  registryConfigDir: string;
}

export interface DevOptions {
  /** Progress lines (package install, daemon start, image import); defaults to stderr. */
  log?: (s: string) => void;
  signal?: AbortSignal;
  /**
   * Another runtime directory than `devDir()`, for a second, private containerd (the bench's
   * upstream kubelet must never meet the shared one). Pair it with its own `network`. The
   * "upstream" flavour runs in `<dir>/containerd-v2`.
   */
  dir?: string;
  /**
   * The pod network written when the daemon starts; defaults to `denolet0`, 10.85.0.0/16
   * (`denolet2`, 10.87.0.0/16 for the "upstream" flavour, so both can run at once).
   */
  network?: CniNetwork;
  /** Which containerd; defaults to `devContainerd()`. */
  containerd?: ContainerdFlavour;
}

export const DEFAULT_DEV_DIR = "/var/lib/denolet-dev";
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

/** The dev directory: `$DENOLET_DEV_DIR` or `/var/lib/denolet-dev`. */
export function devDir(): string {
  return Deno.env.get("DENOLET_DEV_DIR") || DEFAULT_DEV_DIR;
}

/** The containerd flavour: `$DENOLET_DEV_CONTAINERD` ("system" or "upstream"), else "system". */
export function devContainerd(): ContainerdFlavour {
  const v = Deno.env.get("DENOLET_DEV_CONTAINERD") || "system";
  if (v !== "system" && v !== "upstream") {
    throw new DevSetupError(
      `DENOLET_DEV_CONTAINERD=${JSON.stringify(v)}: expected "system" (Debian's containerd) or ` +
        `"upstream" (containerd v2 built from the Go module proxy)`,
    );
  }
  return v;
}

/** The pod network of the "upstream" flavour's dev runtime. */
export const UPSTREAM_CNI_NETWORK: CniNetwork = { bridge: "denolet2", subnet: "10.87.0.0/16" };

/**
 * The pod network of the runtime `opts` name: its own, `$DENOLET_DEV_NETWORK` (`bridge:subnet`,
 * for a second dev directory beside the shared one, whose bridges it must not share; containerd 2
 * derives a second one from it), or the flavour's default.
 */
export function runtimeNetwork(opts: Pick<DevOptions, "network" | "containerd"> = {}): CniNetwork {
  if (opts.network) return opts.network;
  const env = Deno.env.get("DENOLET_DEV_NETWORK");
  if (env) {
    const [bridge, subnet] = env.split(":");
    if (!bridge || bridge.length > 15 || !/^\d+\.\d+\.\d+\.0\/\d+$/.test(subnet ?? "")) {
      throw new DevSetupError(
        `DENOLET_DEV_NETWORK=${JSON.stringify(env)}: expected bridge:subnet, e.g. ` +
          `"denolet9:10.93.0.0/16" (a bridge name of at most 15 characters)`,
      );
    }
    // containerd 2 beside it gets a network of its own: "<bridge>v2" on 10.<n+100>.0.0.
    if ((opts.containerd ?? devContainerd()) === "upstream") {
      const octets = subnet.split(".");
      octets[1] = String((Number(octets[1]) + 100) % 256);
      return { bridge: `${bridge.slice(0, 13)}v2`, subnet: octets.join(".") };
    }
    return { bridge, subnet };
  }
  return (opts.containerd ?? devContainerd()) === "upstream"
    ? UPSTREAM_CNI_NETWORK
    : DEFAULT_CNI_NETWORK;
}

/** The runtime directory `opts` name: the "upstream" flavour keeps to a subdirectory. */
export function runtimeDir(opts: Pick<DevOptions, "dir" | "containerd"> = {}): string {
  const base = opts.dir ?? devDir();
  return (opts.containerd ?? devContainerd()) === "upstream" ? `${base}/containerd-v2` : base;
}

/** Describes the dev runtime without touching it. */
export function devRuntime(dir = runtimeDir()): DevRuntime {
  const l = layoutFor(dir);
  return {
    endpoint: `unix://${l.socket}`,
    socket: l.socket,
    dir,
    sandboxImage: PAUSE_IMAGE,
    images: { busybox: BUSYBOX_IMAGE, pause: PAUSE_IMAGE },
    registryConfigDir: l.registryConfigDir,
  };
}

/**
 * Installs missing host packages, starts the dev containerd unless it already answers, and
 * imports the test images. Idempotent; concurrent callers (other processes too) serialise on a
 * lock file, so the second one reuses what the first started.
 */
export async function ensureContainerd(opts: DevOptions = {}): Promise<DevRuntime> {
  const log = opts.log ?? stderrLog;
  const l = layoutFor(runtimeDir(opts));
  await Deno.mkdir(l.dir, { recursive: true });
  await withLock(l, async () => {
    await ensurePackages(log);
    if (!(await answers(l.socket))) await startLocked(l, log, opts);
    await ensureImages({ socket: l.socket, dir: l.dir }, { log });
  });
  return devRuntime(l.dir);
}

/** Starts the dev containerd if it is not running (packages and images are not checked). */
export async function startContainerd(opts: DevOptions = {}): Promise<void> {
  const l = layoutFor(runtimeDir(opts));
  await Deno.mkdir(l.dir, { recursive: true });
  await withLock(l, async () => {
    if (!(await answers(l.socket))) await startLocked(l, opts.log ?? stderrLog, opts);
  });
}

/**
 * Stops the dev containerd (SIGTERM, then SIGKILL after 15 s) and waits until it is gone.
 * Containers keep running under their shims, as with any containerd restart. No-op when stopped.
 */
export async function stopContainerd(opts: DevOptions = {}): Promise<void> {
  const l = layoutFor(runtimeDir(opts));
  await Deno.mkdir(l.dir, { recursive: true });
  await withLock(l, async () => {
    const pid = await findDaemonPid(l);
    if (pid === undefined) return;
    (opts.log ?? stderrLog)(`stopping containerd pid ${pid}`);
    Deno.kill(pid, "SIGTERM");
    if (!(await waitGone(pid, STOP_TIMEOUT_MS, opts.signal))) {
      Deno.kill(pid, "SIGKILL");
      await waitGone(pid, STOP_TIMEOUT_MS, opts.signal);
    }
    await Deno.remove(l.pidFile).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  });
}

/** The pid of the running dev containerd, or undefined when it is not running. */
export function daemonPid(): Promise<number | undefined> {
  return findDaemonPid(layoutFor(runtimeDir()));
}

/** True when a containerd answers on `socket`. */
export async function answers(socket: string): Promise<boolean> {
  if (!(await exists(socket))) return false;
  const res = await tryRun("ctr", ["--address", socket, "--timeout", "2s", "version"]);
  return res.code === 0;
}

function stderrLog(s: string): void {
  console.error(`[denolet-dev] ${s}`);
}

async function withLock<T>(l: DevLayout, fn: () => Promise<T>): Promise<T> {
  const file = await Deno.open(l.lockFile, { create: true, write: true });
  try {
    // flock(2): released by the kernel if this process dies while holding it.
    await file.lock(true);
    return await fn();
  } finally {
    file.close();
  }
}

async function startLocked(
  l: DevLayout,
  log: (s: string) => void,
  opts: { signal?: AbortSignal; network?: CniNetwork; containerd?: ContainerdFlavour },
): Promise<void> {
  const signal = opts.signal;
  const upstream = (opts.containerd ?? devContainerd()) === "upstream";
  // The built daemon finds its own shim, and the shim the built runc, first on PATH (Debian's
  // 1.6 shim and runc 1.1 are on it too).
  const binDirs = upstream ? await buildContainerd(devDir(), { log, signal }) : undefined;
  const network = runtimeNetwork(opts);
  const dirs = [l.root, l.state, l.runDir, l.cniConfDir, l.cniDataDir, l.registryConfigDir];
  for (const d of [...dirs, `${l.dir}/log`]) {
    await Deno.mkdir(d, { recursive: true });
  }
  await Deno.writeTextFile(l.config, renderContainerdConfig(l, PAUSE_IMAGE));
  await Deno.writeTextFile(
    `${l.cniConfDir}/10-denolet.conflist`,
    renderCniConfig(l, network),
  );
  const daemon = binDirs ? `${binDirs.at(-1)}/containerd` : "containerd";
  log(`starting ${daemon} (config ${l.config}, log ${l.log})`);
  // setsid in a background job of a non-interactive shell execs in place (no fork), so `$!` is
  // containerd's own pid; the daemon gets its own session and outlives this process.
  const script = 'setsid "$0" --config "$1" </dev/null >>"$2" 2>&1 & echo $!';
  const env = binDirs ? { PATH: [...binDirs, Deno.env.get("PATH") ?? ""].join(":") } : undefined;
  const out = await run("sh", ["-c", script, daemon, l.config, l.log], { env });
  const pid = Number(out.trim());
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new DevSetupError(
      `Cannot start containerd: unexpected pid output ${JSON.stringify(out)}`,
    );
  }
  await Deno.writeTextFile(l.pidFile, `${pid}\n`);
  const deadline = realClock.now() + START_TIMEOUT_MS;
  while (!(await answers(l.socket))) {
    if (!(await isAlive(pid))) {
      throw new DevSetupError(`containerd exited during start-up:\n${await logTail(l)}`);
    }
    if (realClock.now() > deadline) {
      throw new DevSetupError(`containerd did not answer within 30s:\n${await logTail(l)}`);
    }
    await realClock.sleep(100, { signal });
  }
  const plugins = await run("ctr", ["--address", l.socket, "plugins", "ls"]);
  const cri = plugins.split("\n").find((line) => /\bcri\b/.test(line) && /grpc/.test(line));
  if (!cri || !/\bok\b/.test(cri)) {
    throw new DevSetupError(`containerd's CRI plugin did not load:\n${await logTail(l)}`);
  }
}

/** The pid of the daemon using our config: the pid file if still valid, else a /proc scan. */
async function findDaemonPid(l: DevLayout): Promise<number | undefined> {
  const fromFile = await Deno.readTextFile(l.pidFile).then(Number, () => NaN);
  if (Number.isInteger(fromFile) && (await isOurDaemon(fromFile, l))) return fromFile;
  for await (const e of Deno.readDir("/proc")) {
    const pid = Number(e.name);
    if (Number.isInteger(pid) && (await isOurDaemon(pid, l))) return pid;
  }
  return undefined;
}

async function isOurDaemon(pid: number, l: DevLayout): Promise<boolean> {
  const argv = await readCmdline(pid);
  return argv !== undefined && argv[0]?.endsWith("containerd") === true &&
    argv.includes(l.config) && await isAlive(pid);
}

async function readCmdline(pid: number): Promise<string[] | undefined> {
  try {
    const raw = await Deno.readTextFile(`/proc/${pid}/cmdline`);
    return raw.split("\0");
  } catch (err) {
    // The process may exit between readDir and read; anything else is a real problem.
    if (err instanceof Deno.errors.NotFound) return undefined;
    if (err instanceof Deno.errors.PermissionDenied) return undefined;
    throw err;
  }
}

/** Alive and not a zombie (the daemon is re-parented to init, which may reap it late). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

async function waitGone(pid: number, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = realClock.now() + timeoutMs;
  while (await isAlive(pid)) {
    if (realClock.now() > deadline) return false;
    await realClock.sleep(100, { signal });
  }
  return true;
}

async function logTail(l: DevLayout, lines = 30): Promise<string> {
  const text = await Deno.readTextFile(l.log).catch((err) => `(cannot read ${l.log}: ${err})`);
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
