/**
 * volumeMount.subPath: the file or directory inside a volume that one mount exposes, opened so
 * that what was checked is what gets mounted (kubelet_pods.go makeMounts; pkg/volume/util/subpath
 * SafeMakeDir and doSafeOpen).
 */
import { ConfigError, DenoletError } from "../util/errors.ts";
import { type FdFs, type FdInfo, FsCallError } from "./_fd_fs.ts";

/** A subPath that cannot be opened safely. Messages name node paths: for logs, not pod status. */
export class SubPathError extends DenoletError {}

/** Rejects absolute subPaths and any ".." component, as ValidatePathNoBacksteps. */
export function validateSubPath(subPath: string, field: string): string[] {
  if (subPath.startsWith("/")) {
    throw new ConfigError(field, `subPath ${JSON.stringify(subPath)} must not be an absolute path`);
  }
  const parts = subPath.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) {
    throw new ConfigError(field, `subPath ${JSON.stringify(subPath)} must not contain '..'`);
  }
  return parts;
}

/** An open descriptor of a subPath; the caller closes `fd`. */
export interface OpenedSubPath {
  fd: number;
  info: FdInfo;
  /** The node path it was reached by, for logs. */
  path: string;
}

function join(dir: string, name: string): string {
  return `${dir === "/" ? "" : dir}/${name}`;
}

function inside(base: string, path: string): boolean {
  return path === base || path.startsWith(base === "/" ? "/" : base + "/");
}

async function realPathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new SubPathError(`Cannot resolve ${path}`, { cause: err });
  }
}

/**
 * The subPath's components relative to `base` with symlinks resolved as far as the path exists
 * (upstream resolves first too, so a link to elsewhere in the volume keeps working). Any step
 * that resolves outside the volume is refused.
 */
async function resolveInside(base: string, parts: string[], subPath: string): Promise<string[]> {
  let current = base;
  const missing: string[] = [];
  for (const part of parts) {
    if (missing.length) {
      missing.push(part);
      continue;
    }
    const real = await realPathOrUndefined(join(current, part));
    if (real === undefined) {
      missing.push(part);
      continue;
    }
    if (!inside(base, real)) {
      throw new SubPathError(
        `subPath ${JSON.stringify(subPath)} resolves to ${real}, outside the volume ${base}`,
      );
    }
    current = real;
  }
  const existing = current === base
    ? []
    : current.slice(base === "/" ? 1 : base.length + 1).split("/");
  return [...existing, ...missing];
}

/** Opens `name` in `dirFd`, creating it as a directory first when missing. */
function openOrCreate(
  fs: FdFs,
  dirFd: number,
  name: string,
  mode: number,
): { fd: number; created: boolean } {
  try {
    return { fd: fs.openAt(dirFd, name), created: false };
  } catch (err) {
    if (!(err instanceof FsCallError && err.code === "ENOENT")) throw err;
  }
  let created = true;
  try {
    fs.mkdirAt(dirFd, name, mode);
  } catch (err) {
    // Someone else made it in between: open whatever it is; the checks below still apply.
    if (!(err instanceof FsCallError && err.code === "EEXIST")) throw err;
    created = false;
  }
  return { fd: fs.openAt(dirFd, name), created };
}

/**
 * Walks `parts` from the directory `base` by descriptor, one component at a time, refusing any
 * symlink: a component swapped for a link after `resolveInside` looked makes the walk fail
 * instead of leading elsewhere. Directories it creates get the volume's mode (the umask
 * narrowed it), set through the new directory's own descriptor.
 */
function walk(fs: FdFs, base: string, parts: string[]): OpenedSubPath {
  let fd = fs.openRoot(base);
  let path = base;
  try {
    let info = fs.stat(fd);
    if (info.kind !== "directory") throw new SubPathError(`volume path ${base} is not a directory`);
    const mode = info.mode;
    for (const part of parts) {
      path = join(path, part);
      const child = openOrCreate(fs, fd, part, mode);
      const parent = fd;
      fd = child.fd;
      fs.close(parent);
      info = fs.stat(fd);
      if (info.kind === "symlink") throw new SubPathError(`${path} is a symlink`);
      if (child.created && info.kind === "directory") {
        fs.chmod(fd, mode);
        info = { ...info, mode };
      }
    }
    const opened = { fd, info, path };
    fd = -1;
    return opened;
  } finally {
    if (fd >= 0) fs.close(fd);
  }
}

/**
 * Opens `<volumePath>/<subPath>` (a validated subPath: relative, no ".."), creating missing
 * directories with the volume directory's mode, and returns a descriptor that pins the file it
 * reached: later renames or symlink swaps in the volume cannot change what it refers to.
 * Throws SubPathError (or FsCallError) when a component is a symlink at walk time or the path
 * resolves outside the volume; nothing stays open then.
 */
export async function openSubPath(
  volumePath: string,
  subPath: string,
  deps: { fs: FdFs; signal?: AbortSignal },
): Promise<OpenedSubPath> {
  const parts = validateSubPath(subPath, "subPath");
  let base: string;
  try {
    base = await Deno.realPath(volumePath);
  } catch (err) {
    throw new SubPathError(`volume path ${volumePath} is not usable`, { cause: err });
  }
  const rel = await resolveInside(base, parts, subPath);
  deps.signal?.throwIfAborted();
  return walk(deps.fs, base, rel);
}
