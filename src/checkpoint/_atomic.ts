/**
 * Crash-safe replacement of a file: the new content goes to a temp file in the same directory,
 * is fsynced, renamed over the old file, and the directory is fsynced. A failure or a power cut
 * at any step leaves either the old file or the new one, never a mix; a temp file left behind
 * by a crash is swept by `sweepTempFiles`.
 */
import { CheckpointError } from "./types.ts";
import type { CheckpointFs } from "./_fs.ts";
import { errorMessage } from "../util/log.ts";

/** Marks temp files: `<name>.tmp-<random>`. */
export const TEMP_MARK = ".tmp-";

export async function writeFileAtomic(
  fs: CheckpointFs,
  path: string,
  opts: { data: Uint8Array; mode: number },
): Promise<void> {
  const dir = path.slice(0, path.lastIndexOf("/")) || "/";
  const tmp = `${path}${TEMP_MARK}${crypto.randomUUID().slice(0, 8)}`;
  try {
    await fs.writeNew(tmp, opts.data, opts.mode);
    await fs.rename(tmp, path);
  } catch (err) {
    // The old file is untouched; the half-written temp goes now (or at the next sweep).
    const leftover = await fs.remove(tmp).then(
      () => "",
      (e) => ` (and its temp file stays until the next start: ${errorMessage(e)})`,
    );
    throw new CheckpointError(`Cannot write ${path}: ${errorMessage(err)}${leftover}`, {
      cause: err,
    });
  }
  try {
    await fs.syncDir(dir);
  } catch (err) {
    // The rename happened; only its durability across a power cut is in doubt.
    throw new CheckpointError(
      `Wrote ${path} but cannot sync its directory: ${errorMessage(err)}`,
      { cause: err },
    );
  }
}

/** Removes temp files a crash left in `dir`; returns their names. */
export async function sweepTempFiles(fs: CheckpointFs, dir: string): Promise<string[]> {
  const swept: string[] = [];
  for (const name of await fs.list(dir)) {
    if (!name.includes(TEMP_MARK)) continue;
    await fs.remove(`${dir}/${name}`);
    swept.push(name);
  }
  return swept;
}
