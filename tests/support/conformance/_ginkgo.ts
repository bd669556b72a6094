/**
 * Runs Ginkgo over the e2e suite with its output in a log file, and says every minute how far
 * it got (Ginkgo prints one `•` per finished spec in parallel runs).
 */
import { realClock } from "../../../src/util/clock.ts";
import { DevSetupError } from "../_exec.ts";

export interface GinkgoRun {
  /** Ginkgo's exit code: non-zero when a spec failed, which is an outcome, not an error. */
  code: number;
  seconds: number;
}

export async function runGinkgo(
  ginkgo: string,
  args: string[],
  opts: { cwd: string; logFile: string; log: (s: string) => void; signal?: AbortSignal },
): Promise<GinkgoRun> {
  const started = realClock.now();
  let child: Deno.ChildProcess;
  try {
    // A process group of its own: Ginkgo's CLI leaves an interrupt to its test processes,
    // which get it from the terminal's group signal; setsid execs in place (the child is no
    // group leader), so the child's pid is the group's.
    child = new Deno.Command("setsid", {
      args: ["sh", "-c", 'exec "$0" "$@" >"$GINKGO_LOG" 2>&1', ginkgo, ...args],
      cwd: opts.cwd,
      env: { GINKGO_LOG: opts.logFile },
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch (err) {
    throw new DevSetupError(`Cannot run ${ginkgo}`, { cause: err });
  }
  // Ginkgo interrupts the running specs, runs their clean-up and writes the report on SIGINT
  // to the whole group (SIGTERM would kill the processes with no report).
  const onAbort = () => {
    opts.log("interrupting Ginkgo (it writes the report of the specs that finished)");
    try {
      Deno.kill(-child.pid, "SIGINT");
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err; // the group had exited already
    }
  };
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const stopTicker = realClock.every(60_000, () => {
    progress(opts.logFile).then(
      (p) =>
        opts.log(
          `  ginkgo: ${p.done} specs done, ${p.failed} failed, ${minutes(started)} min`,
        ),
      (err) => opts.log(`  ginkgo: cannot read ${opts.logFile}: ${err}`),
    );
  });
  try {
    const status = await child.status;
    return { code: status.code, seconds: Math.round((realClock.now() - started) / 1000) };
  } finally {
    stopTicker();
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

/** Finished and failed specs so far, from Ginkgo's default (succinct, parallel) output. */
export function countProgress(log: string): { done: number; failed: number } {
  const done = (log.match(/•/g) ?? []).length;
  const failed = (log.match(/^\s*• \[(FAILED|TIMEDOUT|PANICKED|INTERRUPTED)\]/gm) ?? []).length;
  return { done, failed };
}

async function progress(logFile: string): Promise<{ done: number; failed: number }> {
  return countProgress(await Deno.readTextFile(logFile));
}

function minutes(started: number): number {
  return Math.round((realClock.now() - started) / 60_000);
}
