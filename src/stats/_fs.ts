/**
 * Directory usage (du): walks the tree with lstat, counting allocated blocks like `du`, and
 * inodes like `find | wc -l`. Filesystem capacity (statfs) is in util/statfs.ts.
 */

export interface DirUsage {
  usedBytes: number;
  inodesUsed: number;
}

/**
 * Entries walked between two turns of the event loop. The walk's calls are synchronous: every
 * sample walks each container's log directory (two or three entries), and an async call costs
 * about three times the CPU of the metadata lookup itself. A large emptyDir still gives the
 * loop a turn every this many entries.
 */
const ENTRIES_PER_TURN = 256;

/** Usage of the tree at `dir`; a missing dir is zero. Symlinks are not followed. */
export async function dirUsage(dir: string, opts?: { signal?: AbortSignal }): Promise<DirUsage> {
  const total: DirUsage = { usedBytes: 0, inodesUsed: 0 };
  const seen = new Set<number>();
  const pending = [dir];
  let walked = 0;
  for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
    // A turn of the event loop (not a wait): timers and I/O due meanwhile run.
    if (++walked % ENTRIES_PER_TURN === 0) await new Promise((r) => setTimeout(r, 0));
    opts?.signal?.throwIfAborted();
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch (err) {
      // Files come and go while a container runs (log rotation, temp files).
      if (err instanceof Deno.errors.NotFound) continue;
      throw err;
    }
    // Hard links are counted once, as du does.
    if (info.ino !== null && (info.nlink ?? 1) > 1) {
      if (seen.has(info.ino)) continue;
      seen.add(info.ino);
    }
    total.inodesUsed++;
    total.usedBytes += info.blocks !== null ? info.blocks * 512 : info.size;
    if (!info.isDirectory) continue;
    try {
      for (const e of Deno.readDirSync(path)) pending.push(`${path}/${e.name}`);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return total;
}
