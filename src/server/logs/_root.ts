/**
 * A path looked up inside a root directory as Go's os.Root does (upstream checks a log query's
 * file with root.Stat and opens a service's log file with os.OpenInRoot): the name must be
 * relative, `..` may not climb above the root, and symbolic links are followed only when their
 * target is relative and stays inside. Errors carry Go's wording ("statat x: path escapes from
 * parent").
 */
import { posix } from "node:path";

/** Go's os.Root allows this many links on one lookup, as the kernel does. */
const MAX_LINKS = 40;

export type RootErrorKind = "escapes" | "not-found" | "not-dir" | "loop" | "other";

export class RootPathError extends Error {
  constructor(readonly kind: RootErrorKind, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RootPathError";
  }
}

/**
 * The absolute path `name` names inside `root`, after the checks; throws RootPathError with
 * `op` ("statat", "openat") in its message. The last component may be a file or a directory.
 */
export async function resolveInRoot(root: string, name: string, op: string): Promise<string> {
  const fail = (kind: RootErrorKind, why: string, cause?: unknown): never => {
    throw new RootPathError(kind, `${op} ${name}: ${why}`, { cause });
  };
  if (name === "") fail("other", "empty path");
  if (name.startsWith("/")) fail("escapes", "path escapes from parent");
  const trailingSlash = name.endsWith("/");
  const pending = name.split("/").filter((p) => p !== "" && p !== ".");
  const at: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === "..") {
      if (at.length === 0) fail("escapes", "path escapes from parent");
      at.pop();
      continue;
    }
    const path = posix.join(root, ...at, part);
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) fail("not-found", "no such file or directory", err);
      if (err instanceof Deno.errors.NotADirectory) fail("not-dir", "not a directory", err);
      fail("other", err instanceof Error ? err.message : String(err), err);
    }
    if (info!.isSymlink) {
      if (++links > MAX_LINKS) fail("loop", "too many levels of symbolic links");
      const target = await Deno.readLink(path);
      if (target.startsWith("/")) fail("escapes", "path escapes from parent");
      pending.unshift(...target.split("/").filter((p) => p !== "" && p !== "."));
      continue;
    }
    if (pending.length > 0 && !info!.isDirectory) fail("not-dir", "not a directory");
    at.push(part);
  }
  const resolved = posix.join(root, ...at);
  if (trailingSlash && !(await Deno.stat(resolved)).isDirectory) fail("not-dir", "not a directory");
  return resolved;
}
