/**
 * Filesystem capacity (statfs) and directory usage (du). Deno has no statfs, so capacity comes
 * from coreutils `stat -f`: one short process (~2 ms) per filesystem per background sample,
 * never on a request path. Directory usage walks the tree with lstat, counting allocated blocks
 * like `du`, and inodes like `find | wc -l`.
 */
import { DenoletError } from "../util/errors.ts";

export interface FsCapacity {
  capacityBytes: number;
  availableBytes: number;
  /** capacity - free (root's reserved blocks count as used, as upstream). */
  usedBytes: number;
  inodes: number;
  inodesFree: number;
  inodesUsed: number;
}

export interface DirUsage {
  usedBytes: number;
  inodesUsed: number;
}

/** Reads statfs(2) of the filesystem holding `path`. */
export type Statfs = (path: string, opts?: { signal?: AbortSignal }) => Promise<FsCapacity>;

export class StatfsError extends DenoletError {}

// %S fundamental block size, %b total blocks, %f free blocks, %a blocks available to
// non-root, %c total inodes, %d free inodes.
const STAT_FORMAT = "%S %b %f %a %c %d";

/** statfs through `stat -f`. */
export const statfs: Statfs = async (path, opts) => {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("stat", {
      args: ["-f", "-c", STAT_FORMAT, "--", path],
      stdout: "piped",
      stderr: "piped",
      signal: opts?.signal,
    }).output();
  } catch (err) {
    throw new StatfsError(`Cannot statfs ${path}: cannot run stat`, { cause: err });
  }
  const stderr = new TextDecoder().decode(out.stderr).trim();
  if (!out.success) throw new StatfsError(`Cannot statfs ${path}: ${stderr}`);
  const parsed = parseStatOutput(new TextDecoder().decode(out.stdout));
  if (parsed === undefined) throw new StatfsError(`Cannot statfs ${path}: unexpected stat output`);
  return parsed;
};

/** Parses `stat -f -c "%S %b %f %a %c %d"` output. */
export function parseStatOutput(text: string): FsCapacity | undefined {
  const f = text.trim().split(/\s+/).map(Number);
  if (f.length !== 6 || f.some((n) => !Number.isFinite(n) || n < 0)) return undefined;
  const [bsize, blocks, bfree, bavail, files, ffree] = f;
  return {
    capacityBytes: blocks * bsize,
    availableBytes: bavail * bsize,
    usedBytes: (blocks - bfree) * bsize,
    inodes: files,
    inodesFree: ffree,
    inodesUsed: files - ffree,
  };
}

/** Usage of the tree at `dir`; a missing dir is zero. Symlinks are not followed. */
export async function dirUsage(dir: string, opts?: { signal?: AbortSignal }): Promise<DirUsage> {
  const total: DirUsage = { usedBytes: 0, inodesUsed: 0 };
  const seen = new Set<number>();
  const walk = async (path: string): Promise<void> => {
    opts?.signal?.throwIfAborted();
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch (err) {
      // Files come and go while a container runs (log rotation, temp files).
      if (err instanceof Deno.errors.NotFound) return;
      throw err;
    }
    // Hard links are counted once, as du does.
    if (info.ino !== null && (info.nlink ?? 1) > 1) {
      if (seen.has(info.ino)) return;
      seen.add(info.ino);
    }
    total.inodesUsed++;
    total.usedBytes += info.blocks !== null ? info.blocks * 512 : info.size;
    if (!info.isDirectory) return;
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(path));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      throw err;
    }
    for (const e of entries) await walk(`${path}/${e.name}`);
  };
  await walk(dir);
  return total;
}
