/**
 * End-to-end harness: runs the agent (main.ts) from source as a subprocess against the dev
 * containerd, with its output in a file whose tail is shown when something fails.
 */
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import type { V1PodList } from "@kubernetes/client-node";
import type { RuntimeService } from "../../src/cri/types.ts";
import { realClock } from "../../src/util/clock.ts";
import { NotFoundError } from "../../src/util/errors.ts";
import { DevSetupError } from "./_exec.ts";
import { DENO_DIR_NAME, RUN_FLAGS } from "./_package_header.ts";
import { type DevRuntime, ensureContainerd } from "./containerd.ts";
import { freePort, waitFor, WaitTimeoutError } from "./wait.ts";

export { freePort, waitFor, WaitTimeoutError } from "./wait.ts";

const MAIN_TS = new URL("../../main.ts", import.meta.url).pathname;
const STOP_TIMEOUT_MS = 15_000;
let agentCount = 0;

export interface StartAgentOptions {
  /** --pod-manifest-path; defaults to an empty `manifests/` under the agent's temp dir. */
  manifestDir?: string;
  /** --manifest-url, when given. */
  manifestURL?: string;
  /** --root-dir; defaults to `root/` under the agent's temp dir. */
  rootDir?: string;
  /** Appended last, so they override the defaults. */
  extraArgs?: string[];
  /**
   * The program to run; defaults to the repository's main.ts (tests of the harness use a stub).
   * A program beside a `deno_dir/` directory (the bench's bundle, `buildAgentBundle`) runs with
   * it as DENO_DIR, as the package's header runs the agent: Deno's caches of its own.
   */
  mainModule?: string;
  /**
   * A packed single file (`deno task package`) to execute instead of `deno run`: it gets the
   * agent's arguments alone (its header holds the runtime flags); `mainModule`, `denoFlags` and
   * `v8Flags` do not apply. Its unpack directory comes from `env` (DENOLET_UNPACK_DIR).
   */
  packedFile?: string;
  /** Extra `deno run` flags, before the program (e.g. `--inspect=127.0.0.1:9229` to profile it). */
  denoFlags?: string[];
  /**
   * The agent's V8 flags, comma-separated: AGENT_V8_FLAGS (what it ships with) by default, ""
   * for V8's own defaults. Given on the command line, not in DENO_V8_FLAGS: what `--lite-mode`
   * implies there cannot be undone from the environment.
   */
  v8Flags?: string;
  /** Extra environment for the agent process. */
  env?: Record<string, string>;
  /** --hostname-override; defaults to a unique `e2e-<pid>-<n>`. */
  hostname?: string;
  /** The runtime to use; defaults to `ensureContainerd()`. */
  runtime?: DevRuntime;
  /**
   * When given, `stop()` also stops and removes the sandboxes of this agent's static pods
   * (their names end in `-<hostname>`), so suites do not leak pods into the shared containerd.
   */
  cleanupWith?: RuntimeService;
}

export interface AgentProcess {
  readonly pid: number;
  readonly hostname: string;
  readonly readOnlyPort: number;
  /** `http://127.0.0.1:<readOnlyPort>` */
  readonly baseURL: string;
  /** `http://127.0.0.1:<healthzPort>`: the --healthz-port the agent was started with. */
  readonly healthzURL: string;
  readonly manifestDir: string;
  readonly rootDir: string;
  /** The agent's combined stdout and stderr. */
  readonly logFile: string;
  readonly runtime: DevRuntime;
  /** `realClock.monotonic()` just before the process was spawned (the bench's start-to-Ready). */
  readonly startedAt: number;
  /** Resolves when the process exits. */
  readonly exited: Promise<Deno.CommandStatus>;
  /** Waits until /healthz answers 200; fails fast (with the log tail) if the agent exits. */
  waitHealthy(opts?: { timeoutMs?: number; signal?: AbortSignal }): Promise<void>;
  /** GET /pods on the read-only port. */
  pods(): Promise<V1PodList>;
  /** GET `path` on the read-only port. The caller consumes the body. */
  get(path: string): Promise<Response>;
  /** The last `lines` lines of the agent's output. */
  logTail(lines?: number): Promise<string>;
  kill(signal?: Deno.Signal): void;
  /**
   * SIGTERM, then SIGKILL after `timeoutMs` (default 15 s); waits for exit, then cleans up pods
   * (see cleanupWith). Idempotent.
   */
  stop(opts?: { timeoutMs?: number }): Promise<Deno.CommandStatus>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts the agent and returns without waiting for it to be healthy. */
export async function startAgent(opts: StartAgentOptions = {}): Promise<AgentProcess> {
  const runtime = opts.runtime ?? (await ensureContainerd());
  const tmp = await Deno.makeTempDir({ prefix: "denolet-e2e-" });
  const manifestDir = opts.manifestDir ?? `${tmp}/manifests`;
  const rootDir = opts.rootDir ?? `${tmp}/root`;
  await Deno.mkdir(manifestDir, { recursive: true });
  await Deno.mkdir(rootDir, { recursive: true });
  const hostname = opts.hostname ?? `e2e-${Deno.pid}-${++agentCount}`;
  // A port the caller chose for another listener (`--port N`) is free until the agent binds it.
  const named = portsNamedIn(opts.extraArgs ?? []);
  const readOnlyPort = freePort(named);
  // Not upstream's 10248: agents run side by side here (a caller's own --healthz-port wins).
  const healthzPort = freePort([...named, readOnlyPort]);
  const logFile = `${tmp}/agent.log`;
  const runner = opts.packedFile ? [opts.packedFile] : [
    Deno.execPath(),
    "run",
    "-A",
    ...((opts.v8Flags ?? AGENT_V8_FLAGS) ? [`--v8-flags=${opts.v8Flags ?? AGENT_V8_FLAGS}`] : []),
    ...(opts.denoFlags ?? []),
    // A bundle runs as the package's header runs it (the bench measures what users run).
    ...(Object.keys(ownDenoDir(opts.mainModule)).length > 0 ? RUN_FLAGS : []),
    opts.mainModule ?? MAIN_TS,
  ];
  const args = [
    ...runner,
    "--container-runtime-endpoint",
    runtime.endpoint,
    "--pod-manifest-path",
    manifestDir,
    "--root-dir",
    rootDir,
    "--read-only-port",
    String(readOnlyPort),
    "--port",
    "0",
    "--healthz-port",
    String(healthzPort),
    "--hostname-override",
    hostname,
    "--file-check-frequency",
    "2s",
    "-v",
    "2",
    // Agents sharing the machine keep their pod cgroups apart, and image GC never takes the
    // sandbox image (there is no registry to get it back from).
    `--cgroup-root=/denolet-e2e/${hostname}`,
    `--pod-infra-container-image=${runtime.sandboxImage}`,
    ...(opts.manifestURL ? ["--manifest-url", opts.manifestURL] : []),
    ...(opts.extraArgs ?? []),
  ];
  // `exec` keeps the pid the agent's own, so signals reach it directly; the shell only
  // redirects both streams into one file that outlives a crashed test process.
  const startedAt = realClock.monotonic();
  const child = new Deno.Command("sh", {
    args: ["-c", 'exec "$0" "$@" >"$DENOLET_E2E_LOG" 2>&1', ...args],
    env: { ...ownDenoDir(opts.mainModule), ...opts.env, DENOLET_E2E_LOG: logFile, NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const exited = child.status;
  const baseURL = `http://127.0.0.1:${readOnlyPort}`;

  const logTail = async (lines = 40) => {
    const text = await Deno.readTextFile(logFile).catch((err) => `(no log: ${err})`);
    return text.trimEnd().split("\n").slice(-lines).join("\n");
  };
  let exitStatus: Deno.CommandStatus | undefined;
  // Aborted when the process exits, so waits on a dead agent fail at once instead of timing out.
  const exitAbort = new AbortController();
  const exitedNoted = exited.then((s) => {
    exitStatus = s;
    exitAbort.abort(new DevSetupError(`agent exited with code ${s.code} (signal ${s.signal})`));
    return s;
  });
  const get = (path: string) => fetch(`${baseURL}${path}`);
  const signalChild = (signal: Deno.Signal) => {
    if (exitStatus) return;
    try {
      child.kill(signal);
    } catch (err) {
      // It may exit between the check and the kill; only that race is expected here.
      if (!(err instanceof TypeError)) throw err;
    }
  };

  const agent: AgentProcess = {
    pid: child.pid,
    hostname,
    readOnlyPort,
    baseURL,
    healthzURL: `http://127.0.0.1:${healthzPort}`,
    manifestDir,
    rootDir,
    logFile,
    runtime,
    startedAt,
    exited,
    async waitHealthy(w = {}) {
      try {
        const signals = [exitAbort.signal, ...(w.signal ? [w.signal] : [])];
        await waitFor(async () => {
          const res = await get("/healthz");
          await res.body?.cancel();
          return res.status === 200;
        }, {
          timeoutMs: w.timeoutMs ?? 30_000,
          what: "agent /healthz",
          signal: AbortSignal.any(signals),
        });
      } catch (err) {
        throw new DevSetupError(`Agent ${hostname} is not healthy. Log tail:\n${await logTail()}`, {
          cause: err,
        });
      }
    },
    async pods() {
      const res = await get("/pods");
      if (!res.ok) {
        throw new DevSetupError(`GET /pods returned ${res.status}: ${await res.text()}`);
      }
      return (await res.json()) as V1PodList;
    },
    get,
    logTail,
    kill(signal = "SIGTERM") {
      signalChild(signal);
    },
    async stop(s = {}) {
      const timeoutMs = s.timeoutMs ?? STOP_TIMEOUT_MS;
      if (!exitStatus) {
        signalChild("SIGTERM");
        try {
          await waitFor(() => exitStatus, {
            timeoutMs,
            intervalMs: 50,
            what: "agent exit after SIGTERM",
          });
        } catch (err) {
          if (!(err instanceof WaitTimeoutError)) throw err;
          console.error(`[denolet-e2e] agent ${hostname} ignored SIGTERM; sending SIGKILL`);
          signalChild("SIGKILL");
        }
      }
      const status = await exitedNoted;
      // The pods' cgroups can only go once the pods have (a restart test keeps them running).
      if (opts.cleanupWith) {
        await removeAgentSandboxes(opts.cleanupWith, hostname);
        await removeCgroupTree(`denolet-e2e/${hostname}`);
      }
      return status;
    },
    async [Symbol.asyncDispose]() {
      await agent.stop();
      if (!Deno.env.get("DENOLET_KEEP_E2E")) await removeTree(tmp);
    },
  };
  return agent;
}

/**
 * Stops and removes every sandbox of one agent: those it labelled with its node name (every
 * pod, API pods included) and those whose pod name ends in `-<hostname>` (static pod names
 * carry the node name as a suffix).
 */
export async function removeAgentSandboxes(rs: RuntimeService, hostname: string): Promise<number> {
  const sandboxes = await rs.listPodSandbox();
  const mine = sandboxes.filter((s) =>
    s.labels?.["io.denolet.node-name"] === hostname || s.metadata.name.endsWith(`-${hostname}`)
  );
  for (const s of mine) {
    try {
      await rs.stopPodSandbox(s.id);
      await rs.removePodSandbox(s.id);
    } catch (err) {
      // Removed meanwhile (by the agent still stopping, or its GC): what was wanted.
      if (!(err instanceof NotFoundError)) throw err;
    }
  }
  return mine.length;
}

async function removeTree(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (err) {
    // A volume still mounted under root-dir (busy) must not fail the test that just passed.
    console.error(`[denolet-e2e] cannot remove ${path}: ${(err as Error).message}`);
  }
}

/**
 * Removes an agent's (now empty) cgroup tree below every hierarchy, deepest first. Best effort:
 * a cgroup that still holds a process stays, and says so.
 */
export async function removeCgroupTree(rel: string, mount = "/sys/fs/cgroup"): Promise<void> {
  const roots: string[] = [];
  try {
    for await (const e of Deno.readDir(mount)) if (e.isDirectory) roots.push(`${mount}/${e.name}`);
  } catch {
    return; // no cgroupfs here
  }
  roots.push(mount); // cgroup v2: the tree sits right under the mount
  for (const root of roots) await rmdirDeep(`${root}/${rel}`);
}

async function rmdirDeep(dir: string): Promise<void> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch {
    return; // not in this hierarchy
  }
  for (const e of entries) if (e.isDirectory) await rmdirDeep(`${dir}/${e.name}`);
  try {
    await Deno.remove(dir); // rmdir: cgroupfs directories go only when empty of cgroups
  } catch (err) {
    console.error(`[denolet-e2e] cannot remove cgroup ${dir}: ${err}`);
  }
}

/** `{ DENO_DIR }` when the program has a `deno_dir/` beside it (see `mainModule`). */
function ownDenoDir(mainModule: string | undefined): Record<string, string> {
  if (!mainModule) return {};
  const dir = `${mainModule.slice(0, mainModule.lastIndexOf("/") + 1)}${DENO_DIR_NAME}`;
  try {
    return Deno.statSync(dir).isDirectory ? { DENO_DIR: dir } : {};
  } catch {
    return {};
  }
}

/** The numbers given to `--*port` flags in `args`, either as `--port N` or `--port=N`. */
export function portsNamedIn(args: readonly string[]): number[] {
  const ports: number[] = [];
  args.forEach((arg, i) => {
    const m = /^--[\w-]*port(?:=(\d+))?$/.exec(arg);
    if (!m) return;
    const value = Number(m[1] ?? args[i + 1]);
    if (Number.isInteger(value) && value > 0) ports.push(value);
  });
  return ports;
}
