/**
 * journalctl as the node log query runs it (upstream's checkForNativeLogger and copyServiceLogs on
 * Linux): which units journald holds, and a query's output streamed with journalctl's own error
 * text after it. The process is killed when the signal aborts, and its output is cut at a cap so
 * one query cannot hold the agent's memory or the connection without end.
 */

const encoder = new TextEncoder();

/** What journalctl's `--field _SYSTEMD_UNIT` printed, or undefined when it could not run. */
export async function journalUnits(
  program: string,
  opts: { signal: AbortSignal },
): Promise<string | undefined> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(program, {
      args: ["--field", "_SYSTEMD_UNIT"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: opts.signal,
    }).output();
  } catch (err) {
    // Upstream reads any failure as "not a journald unit" and falls back to /var/log files.
    if (cannotRun(err) || opts.signal.aborted) return undefined;
    throw err;
  }
  if (!out.success) return undefined;
  return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
}

export interface JournalRunOptions {
  signal: AbortSignal;
  /** Output beyond this many bytes is dropped and journalctl killed. */
  capBytes: number;
  /**
   * Upstream writes "error: journal output not available" when journalctl cannot run (or its
   * deadline passes) only for the current boot's query.
   */
  reportFailure: boolean;
}

/**
 * journalctl's stdout, then its stderr, as upstream copies both to the response; a journalctl
 * that exits non-zero adds nothing (its stderr says why). Returning early kills the process.
 */
export async function* journalOutput(
  program: string,
  args: string[],
  opts: JournalRunOptions,
): AsyncGenerator<Uint8Array> {
  const stop = new AbortController();
  const signal = AbortSignal.any([opts.signal, stop.signal]);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal,
    }).spawn();
  } catch (err) {
    if (!cannotRun(err)) throw err;
    if (opts.reportFailure) yield encoder.encode("\nerror: journal output not available\n");
    return;
  }
  const stderr = readCapped(child.stderr, 64 * 1024);
  try {
    let sent = 0;
    let truncated = false;
    for await (const chunk of child.stdout) {
      if (sent + chunk.length > opts.capBytes) {
        yield chunk.subarray(0, opts.capBytes - sent);
        truncated = true;
        break;
      }
      sent += chunk.length;
      yield chunk;
    }
    if (truncated) stop.abort();
    await child.status;
    yield await stderr;
    if (truncated) {
      yield encoder.encode(`\nerror: journal output exceeds ${opts.capBytes} bytes, truncated\n`);
    } else if (opts.signal.aborted && opts.reportFailure) {
      // Killed by the query's deadline: upstream's exec sees the context error, not an exit.
      yield encoder.encode("\nerror: journal output not available\n");
    }
  } finally {
    // The reader went away (or the output was cut): the process must not outlive the response.
    stop.abort();
    await child.status;
    await stderr;
  }
}

/** No such program, not executable, or not in the agent's --allow-run. */
function cannotRun(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied ||
    err instanceof Deno.errors.NotCapable;
}

async function readCapped(stream: ReadableStream<Uint8Array>, cap: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    // Past the cap the rest is drained, not kept, so journalctl never blocks on a full pipe.
    if (size >= cap) continue;
    const part = chunk.subarray(0, cap - size);
    parts.push(part);
    size += part.length;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
