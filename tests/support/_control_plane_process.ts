/**
 * One control-plane daemon (etcd, kube-apiserver, ...) run as a child process whose output goes
 * to a log file, so a failure can show what the daemon said. Private to tests/support.
 */
import { realClock } from "../../src/util/clock.ts";
import { DevSetupError } from "./_exec.ts";
import { waitFor, WaitTimeoutError } from "./wait.ts";

const STOP_TIMEOUT_MS = 30_000;

export interface Daemon {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** `realClock.monotonic()` just before the process was spawned (the bench's start-to-Ready). */
  readonly startedAt: number;
  /** Resolves when the process has exited (and been reaped). */
  readonly exited: Promise<Deno.CommandStatus>;
  /** Aborted when the process exits: waits on a dead daemon fail at once. */
  readonly exitSignal: AbortSignal;
  running(): boolean;
  /** The last `lines` lines of the log. */
  logTail(lines?: number): Promise<string>;
  /** SIGTERM, SIGKILL after 30 s; resolves once the process is gone. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts `binary args...`. The log is appended to, so a daemon restarted with the same file
 * keeps the earlier run's output above the new one.
 */
export function startDaemon(
  name: string,
  binary: string,
  opts: { args: string[]; logFile: string },
): Daemon {
  // `exec` keeps the pid the daemon's own, so signals reach it directly; the shell only
  // redirects both streams into the log.
  const startedAt = realClock.monotonic();
  const child = new Deno.Command("sh", {
    args: ["-c", 'exec "$0" "$@" >>"$DAEMON_LOG" 2>&1', binary, ...opts.args],
    env: { DAEMON_LOG: opts.logFile },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let status: Deno.CommandStatus | undefined;
  const exitAbort = new AbortController();
  const exited = child.status.then((s) => {
    status = s;
    exitAbort.abort(
      new DevSetupError(`${name} exited with code ${s.code}${s.signal ? ` (${s.signal})` : ""}`),
    );
    return s;
  });
  const signal = (sig: Deno.Signal) => {
    if (status) return;
    try {
      child.kill(sig);
    } catch (err) {
      // It may exit between the check and the kill; only that race is expected here.
      if (!(err instanceof TypeError)) throw err;
    }
  };
  const logTail = (lines = 30) => tail(opts.logFile, lines);
  return {
    name,
    pid: child.pid,
    logFile: opts.logFile,
    startedAt,
    exited,
    exitSignal: exitAbort.signal,
    running: () => status === undefined,
    logTail,
    async stop() {
      signal("SIGTERM");
      try {
        await waitFor(() => status, {
          timeoutMs: STOP_TIMEOUT_MS,
          intervalMs: 50,
          what: `${name} to exit after SIGTERM`,
        });
      } catch (err) {
        if (!(err instanceof WaitTimeoutError)) throw err;
        console.error(`[denolet-cp] ${name} ignored SIGTERM for 30s; sending SIGKILL`);
        signal("SIGKILL");
      }
      await exited;
    },
  };
}

/**
 * Polls `fn` until it is true, failing at once if the daemon exits and, either way, with the
 * daemon's log tail in the error.
 */
export async function waitDaemon(
  d: Daemon,
  fn: () => Promise<boolean>,
  opts: { what: string; timeoutMs: number; signal?: AbortSignal },
): Promise<void> {
  try {
    await waitFor(fn, {
      what: opts.what,
      timeoutMs: opts.timeoutMs,
      intervalMs: 500,
      signal: AbortSignal.any([d.exitSignal, ...(opts.signal ? [opts.signal] : [])]),
    });
  } catch (err) {
    const why = d.running() ? (err as Error).message : `${d.name} exited`;
    throw new DevSetupError(
      `Cannot start ${d.name}: ${why}. Log tail (${d.logFile}):\n${await d.logTail()}`,
      { cause: err },
    );
  }
}

async function tail(file: string, lines: number): Promise<string> {
  const text = await Deno.readTextFile(file).catch((err) => `(cannot read ${file}: ${err})`);
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}
