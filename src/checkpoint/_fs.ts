/**
 * The file operations the checkpoint needs, as a seam: tests wrap the real one to fail (or
 * "lose power") at any step of a write.
 */

export interface CheckpointFs {
  /**
   * Creates `path`, which must not exist, with `mode`, writes all of `data`, fsyncs and closes
   * it. On failure the file may exist with part of the data.
   */
  writeNew(path: string, data: Uint8Array, mode: number): Promise<void>;
  /** rename(2): atomic within a file system; replaces `to`. */
  rename(from: string, to: string): Promise<void>;
  /** fsync of a directory: makes the renames in it survive a power cut. */
  syncDir(dir: string): Promise<void>;
  /** The file's bytes; throws Deno.errors.NotFound when it does not exist. */
  readFile(path: string): Promise<Uint8Array>;
  /** Removes a file or an empty directory; NotFound is not an error. */
  remove(path: string): Promise<void>;
  /** Names of the entries of `dir`. */
  list(dir: string): Promise<string[]>;
  /** Creates `dir` (and parents) when missing and sets its mode to exactly `mode`. */
  ensureDir(dir: string, mode: number): Promise<void>;
  /** Sets the mode of an existing file; NotFound is not an error. */
  chmod(path: string, mode: number): Promise<void>;
}

export const denoFs: CheckpointFs = {
  async writeNew(path, data, mode) {
    const file = await Deno.open(path, { write: true, createNew: true, mode });
    try {
      let off = 0;
      while (off < data.length) off += await file.write(data.subarray(off));
      await file.sync();
    } finally {
      file.close();
    }
  },
  rename: (from, to) => Deno.rename(from, to),
  async syncDir(dir) {
    const d = await Deno.open(dir, { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  },
  readFile: (path) => Deno.readFile(path),
  async remove(path) {
    try {
      await Deno.remove(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  },
  async list(dir) {
    const names: string[] = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    return names;
  },
  async ensureDir(dir, mode) {
    await Deno.mkdir(dir, { recursive: true, mode });
    // mkdir leaves an existing directory's mode alone, and the umask may have narrowed it.
    await Deno.chmod(dir, mode);
  },
  async chmod(path, mode) {
    try {
      await Deno.chmod(path, mode);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  },
};
