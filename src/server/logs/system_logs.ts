/**
 * `GET /logs/...`: the node's log directory as upstream serves it (Go's http.FileServer on
 * /var/log/): a file's bytes, or a directory as an HTML list of links; a directory asked for
 * without its trailing slash is redirected to it. `..` never leaves the directory; symbolic
 * links are followed, as the file server does (/var/log/containers links into /var/log/pods).
 */
import { posix } from "node:path";
import { NotFoundError } from "../../util/errors.ts";
import type { LogQueryDeps } from "./log_query.ts";

export interface SystemLogsDeps {
  /** The directory served, /var/log upstream. */
  logDir: string;
  /** Set with enableSystemLogQuery: `/logs/?query=` is the node log query. */
  query?: Omit<LogQueryDeps, "logDir">;
}

const HTML = { "content-type": "text/html; charset=utf-8" };

/** `subpath` is the part after `/logs/`, still percent-encoded as in the URL. */
export async function handleSystemLogs(
  deps: SystemLogsDeps,
  req: Request,
  subpath: string,
): Promise<Response> {
  if (deps.query !== undefined && new URL(req.url).search !== "") {
    // The log query's code (journalctl, the query checks) loads on the first query only.
    const { handleLogQuery } = await import("./log_query.ts");
    return handleLogQuery({ ...deps.query, logDir: deps.logDir }, req, {
      subpath,
      serveFile: (r, sub) => serveLogPath(deps, r, sub),
    });
  }
  return serveLogPath(deps, req, subpath);
}

/** A file's bytes or a directory's listing, as Go's http.FileServer on the log directory. */
async function serveLogPath(
  deps: SystemLogsDeps,
  req: Request,
  subpath: string,
): Promise<Response> {
  let rel: string;
  try {
    rel = decodeURIComponent(subpath);
  } catch {
    throw new NotFoundError(`No such log: ${subpath}`);
  }
  // Go's http.Dir: the path is cleaned as if rooted, so ".." cannot climb above the root.
  const clean = posix.normalize(`/${rel}`);
  const path = posix.join(deps.logDir, clean);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      throw new NotFoundError(`No such log: ${clean}`, { cause: err });
    }
    throw err;
  }
  const url = new URL(req.url);
  if (info.isDirectory) {
    if (!url.pathname.endsWith("/")) {
      return new Response(null, { status: 301, headers: { location: `${url.pathname}/` } });
    }
    const names: string[] = [];
    for await (const e of Deno.readDir(path)) names.push(e.isDirectory ? `${e.name}/` : e.name);
    names.sort();
    const links = names.map((n) => `<a href="${escapeHtml(encodeURI(n))}">${escapeHtml(n)}</a>\n`);
    return new Response(
      `<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n${
        links.join("")
      }</pre>\n`,
      { headers: HTML },
    );
  }
  const file = await Deno.open(path, { read: true });
  return new Response(file.readable, {
    headers: {
      "content-type": contentType(path),
      "content-length": String(info.size),
    },
  });
}

function contentType(path: string): string {
  if (/\.(log|txt)$/.test(path) || !posix.basename(path).includes(".")) {
    return "text/plain; charset=utf-8";
  }
  if (path.endsWith(".gz")) return "application/gzip";
  return "application/octet-stream";
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(
    /"/g,
    "&#34;",
  );
}
