/**
 * Directory usage (du): walks the tree with lstat, counting allocated blocks like `du`, and
 * inodes like `find | wc -l`. Filesystem capacity (statfs) is in util/statfs.ts.
 */

export interface DirUsage {
  usedBytes: number;
  inodesUsed: number;
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
