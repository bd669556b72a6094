/**
 * `GET /logs/?query=...` with enableSystemLogQuery: the node log query, as upstream's kubelet
 * serves it (kubelet.go's logServer and kubelet_server_journal.go). A query with a slash names a
 * file under the log directory, served as `/logs/<file>` is; other queries are services: the
 * journald units among them through journalctl (`--unit`, `--since`/`--until`, `--lines`,
 * `--grep`, `--boot`), the rest by upstream's file heuristics (`<s>`, `<s>.log`, `<s>/<s>.log`).
 * Loaded on the first query only: an agent nobody asks for logs does not carry it.
 */
import { type Clock, deadlineSignal } from "../../util/clock.ts";
import { BadRequestError, NotAcceptableError } from "../_errors.ts";
import { journalOutput, journalUnits } from "./_journal.ts";
import {
  aggregate,
  hasOptions,
  journalctlArgs,
  type NodeLogQuery,
  parseNodeLogQuery,
  validateNodeLogQuery,
} from "./_query.ts";
import { resolveInRoot, RootPathError } from "./_root.ts";

export interface LogQueryDeps {
  /** The directory files are looked up in, /var/log upstream. */
  logDir: string;
  clock: Clock;
  /** The journalctl program; "journalctl" (from PATH) when absent. */
  journalctl?: string;
  /** Journal output past this many bytes is cut; 64 MiB when absent. */
  outputCapBytes?: number;
}

/** Serves `/logs/<subpath>` (subpath still percent-encoded), as the plain file handler does. */
export type LogFileServer = (req: Request, subpath: string) => Promise<Response>;

/** Upstream's deadline for the whole query, journalctl runs included. */
const QUERY_DEADLINE_MS = 30_000;
const DEFAULT_CAP_BYTES = 64 * 1024 * 1024;
const encoder = new TextEncoder();

/**
 * Answers a `/logs/` request that carries a query string. Parse errors throw BadRequestError
 * (400), validation errors NotAcceptableError (406), with upstream's messages; a request with no
 * log query parameters is served by `serveFile` as upstream's file server would.
 */
export async function handleLogQuery(
  deps: LogQueryDeps,
  req: Request,
  opts: { subpath: string; serveFile: LogFileServer },
): Promise<Response> {
  const url = new URL(req.url);
  const { query, errors } = parseNodeLogQuery(url.searchParams);
  if (errors.length > 0) throw new BadRequestError(aggregate(errors));
  if (query === undefined) return opts.serveFile(req, opts.subpath);
  if (opts.subpath !== "" && opts.subpath !== "/") {
    throw new NotAcceptableError("path not allowed in query mode");
  }
  const invalid = validateNodeLogQuery(query);
  if (query.files.length === 1 && query.services.length === 0 && !hasOptions(query)) {
    try {
      await resolveInRoot(deps.logDir, query.files[0], "statat");
    } catch (err) {
      if (!(err instanceof RootPathError)) throw err;
      invalid.unshift(`query: Invalid value: ${JSON.stringify(query.files)}: ${err.message}`);
    }
  }
  if (invalid.length > 0) throw new NotAcceptableError(aggregate(invalid));
  if (query.services.length === 0) {
    const file = query.files[0].split("/").map(encodeURIComponent).join("/");
    const fileUrl = new URL(`/logs/${file.replace(/^\/+/, "")}`, url);
    return opts.serveFile(new Request(fileUrl, req), file);
  }

  const logs = ReadableStream.from(serviceLogs(deps, query, req.signal));
  const headers: Record<string, string> = { "content-type": "text/plain;charset=UTF-8" };
  // Upstream compresses only when asked with exactly "gzip".
  if (req.headers.get("accept-encoding") === "gzip") {
    headers["content-encoding"] = "gzip";
    const gzip = new CompressionStream("gzip") as unknown as TransformStream<
      Uint8Array,
      Uint8Array
    >;
    return new Response(logs.pipeThrough(gzip), { headers });
  }
  return new Response(logs, { headers });
}

/** The services' logs: journald's for its units, then the others' files (upstream's Copy). */
async function* serviceLogs(
  deps: LogQueryDeps,
  query: NodeLogQuery,
  parent: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const deadline = deadlineSignal(deps.clock, QUERY_DEADLINE_MS, {
    parent,
    reason: () => new DOMException("context deadline exceeded", "TimeoutError"),
  });
  const program = deps.journalctl ?? "journalctl";
  try {
    const units = await journalUnits(program, { signal: deadline.signal });
    // journalctl names no error for an unknown unit, so upstream looks for it in the unit list.
    const inJournal = (s: string) => units?.includes(`${s}.service`) ?? false;
    const native = query.services.filter(inJournal);
    const files = query.services.filter((s) => !inJournal(s));
    if (native.length > 0) {
      yield* journalOutput(program, journalctlArgs(query, native), {
        signal: deadline.signal,
        capBytes: deps.outputCapBytes ?? DEFAULT_CAP_BYTES,
        reportFailure: (query.boot ?? 0n) === 0n,
      });
    }
    if (files.length > 0 && hasOptions(query)) {
      yield encoder.encode(
        `\noptions present and query resolved to log files for [${files.join(" ")}]\n` +
          "try without specifying options\n",
      );
      return;
    }
    for (const service of files) {
      if (deadline.signal.aborted) {
        yield encoder.encode("\ncontext error: context deadline exceeded\n");
        return;
      }
      yield* serviceFileLog(deps.logDir, service, deadline.signal);
    }
  } finally {
    deadline.cancel();
  }
}

/** The first of `<s>`, `<s>.log`, `<s>/<s>.log` under the log directory that is a file. */
async function* serviceFileLog(
  logDir: string,
  service: string,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  let failure: RootPathError | undefined;
  for (const name of [service, `${service}.log`, `${service}/${service}.log`]) {
    let path: string;
    try {
      path = await resolveInRoot(logDir, name, "openat");
    } catch (err) {
      if (!(err instanceof RootPathError)) throw err;
      failure = err;
      if (err.kind === "not-found") continue;
      break;
    }
    // A directory named like the service (/var/log/<s>/) is where <s>/<s>.log may be.
    if ((await Deno.stat(path)).isDirectory) {
      failure = new RootPathError("not-found", `${name} is a directory`);
      continue;
    }
    const file = await Deno.open(path, { read: true });
    // Leaving the loop cancels the stream, which closes the file.
    for await (const chunk of file.readable) {
      if (signal.aborted) {
        yield encoder.encode(`\nerror getting log for ${service}: context deadline exceeded\n`);
        return;
      }
      yield chunk;
    }
    return;
  }
  yield encoder.encode(
    failure?.kind === "not-found"
      ? `\nlog not found for ${service}\n`
      : `\nerror getting log for ${service}: ${failure?.message}\n`,
  );
}
