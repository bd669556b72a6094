/**
 * The bind mounts that hand a subPath to the runtime (subpath_linux.go doBindSubPath,
 * prepareSubpathTarget, CleanSubPaths). The subPath is opened by descriptor, that descriptor is
 * bind-mounted onto <podDir>/volume-subpaths/<volume>/<container>/<mountIndex>, and the runtime
 * gets that path, which no container can reach or change.
 */
import { dirname } from "node:path";
import { errorMessage } from "../util/log.ts";
import { type FdFs, type FdInfo, FsCallError } from "./_fd_fs.ts";
import type { Mounter } from "./_mounter.ts";
import { openSubPath, SubPathError } from "./_subpath.ts";

export const SUBPATH_DIR = "volume-subpaths";
/** Mounts stacked on one target that clean-up pops before giving up. */
const MAX_STACKED = 8;

export interface BindSubPathOptions {
  /** <rootDir>/pods/<uid>. */
  podDir: string;
  volumeName: string;
  containerName: string;
  /** Index of the volumeMount in the container's list; each has its own bind mount. */
  mountIndex: number;
  fs: FdFs;
  mounter: Mounter;
  signal?: AbortSignal;
}

function component(name: string, what: string): string {
  if (!name || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new SubPathError(`${what} ${JSON.stringify(name)} cannot name a directory`);
  }
  return name;
}

/** <podDir>/volume-subpaths/<volume>/<container>/<mountIndex> */
export function subPathTarget(
  podDir: string,
  volumeName: string,
  opts: { containerName: string; mountIndex: number },
): string {
  const volume = component(volumeName, "volume name");
  const container = component(opts.containerName, "container name");
  return `${podDir}/${SUBPATH_DIR}/${volume}/${container}/${opts.mountIndex}`;
}

/** The id of the file at `path` (a last-component symlink not followed); undefined if none. */
function idAt(fs: FdFs, path: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openRoot(path);
  } catch (err) {
    if (err instanceof FsCallError && err.code === "ENOENT") return undefined;
    throw err;
  }
  try {
    return fs.stat(fd).id;
  } finally {
    fs.close(fd);
  }
}

async function lstatOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** Pops every mount on `target`; throws when it stays mounted. */
async function unmountAll(target: string, mounter: Mounter, signal?: AbortSignal): Promise<void> {
  for (let i = 0; i < MAX_STACKED && (await mounter.isMountPoint(target)); i++) {
    await mounter.unmount(target, { signal });
  }
  if (await mounter.isMountPoint(target)) {
    throw new SubPathError(`${target} is still mounted after ${MAX_STACKED} unmounts`);
  }
}

/**
 * Makes `target` ready for a bind mount of a file like `info` (a directory for a directory, an
 * empty file for anything else). "mounted" when the same file is bound there already (a
 * restarted container reuses it); a stale bind of another file is unmounted first.
 */
async function prepareTarget(
  target: string,
  info: FdInfo,
  opts: BindSubPathOptions,
): Promise<"mounted" | "ready"> {
  if (await opts.mounter.isMountPoint(target)) {
    if (idAt(opts.fs, target) === info.id) return "mounted";
    await unmountAll(target, opts.mounter, opts.signal);
  }
  await Deno.mkdir(dirname(target), { recursive: true, mode: 0o750 });
  const wantDir = info.kind === "directory";
  const existing = await lstatOrUndefined(target);
  const stale = existing !== undefined && (existing.isSymlink || existing.isDirectory !== wantDir);
  // Not recursive: an unmounted target is empty; anything else is not ours to delete.
  if (stale) await Deno.remove(target);
  if (!existing || stale) {
    if (wantDir) await Deno.mkdir(target, { mode: 0o750 });
    else await Deno.writeFile(target, new Uint8Array(), { mode: 0o640 });
  }
  return "ready";
}

/** Undoes a failed bind: unmounts and removes `target` and the directories it leaves empty. */
async function removeTarget(target: string, opts: BindSubPathOptions): Promise<void> {
  await unmountAll(target, opts.mounter);
  if (await lstatOrUndefined(target)) await Deno.remove(target);
  const stop = `${opts.podDir}/${SUBPATH_DIR}`;
  for (let dir = dirname(target); dir.startsWith(stop); dir = dirname(dir)) {
    try {
      await Deno.remove(dir);
    } catch (err) {
      // Another mount of the pod still lives here (or it is gone already): stop climbing.
      if (err instanceof Deno.errors.NotFound || (await lstatOrUndefined(dir))) break;
      throw err;
    }
  }
}

/**
 * Opens `subPath` inside `volumePath` (see openSubPath: symlinks refused, missing directories
 * created) and bind-mounts the opened file, through its descriptor, onto the subPath target;
 * returns the target, the path to hand to the runtime. The descriptor is held until the bind is
 * done and checked, so no swap in the volume can redirect it. Idempotent for an unchanged
 * subPath. On failure nothing is left mounted and the target is removed. Throws SubPathError,
 * FsCallError or MountError with node paths in the message (for logs).
 */
export async function bindSubPath(
  volumePath: string,
  subPath: string,
  opts: BindSubPathOptions,
): Promise<string> {
  const target = subPathTarget(opts.podDir, opts.volumeName, opts);
  const opened = await openSubPath(volumePath, subPath, opts);
  try {
    if ((await prepareTarget(target, opened.info, opts)) === "mounted") return target;
    try {
      await opts.mounter.bind(opts.fs.procPath(opened.fd), target, { signal: opts.signal });
      const bound = idAt(opts.fs, target);
      if (bound !== opened.info.id) {
        throw new SubPathError(
          `bind mount at ${target} holds ${bound}, not ${opened.path} (${opened.info.id})`,
        );
      }
    } catch (err) {
      try {
        await removeTarget(target, opts);
      } catch (cleanupErr) {
        throw new SubPathError(`${errorMessage(err)}; then cannot remove ${target}`, {
          cause: cleanupErr,
        });
      }
      throw err;
    }
    return target;
  } finally {
    opts.fs.close(opened.fd);
  }
}

/**
 * Unmounts every subPath bind mount of the pod (all volumes and containers), so the pod
 * directory can be removed without reaching into volume contents. Idempotent; a pod without
 * subPath mounts costs one mount-table read.
 */
export async function cleanSubPaths(
  podDir: string,
  deps: { mounter: Mounter; signal?: AbortSignal },
): Promise<void> {
  const root = `${podDir}/${SUBPATH_DIR}`;
  for (let round = 0; round < MAX_STACKED; round++) {
    deps.signal?.throwIfAborted();
    const mounted = await deps.mounter.mountPointsUnder(root);
    if (!mounted.length) return;
    // A target listed twice has stacked mounts: one unmount per round pops one.
    for (const m of new Set(mounted)) await deps.mounter.unmount(m, { signal: deps.signal });
  }
  const left = await deps.mounter.mountPointsUnder(root);
  if (left.length) {
    throw new SubPathError(`Cannot unmount subPath mounts: still mounted: ${left.join(", ")}`);
  }
}
