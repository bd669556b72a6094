/**
 * The file operations the cgroup code needs, behind a seam so unit tests run on a temp dir.
 * Paths are absolute (they include the mount root, e.g. /sys/fs/cgroup/memory/kubepods).
 */
import { DenoletError } from "../util/errors.ts";

/** A cgroup directory could not be created, written or removed. */
export class CgroupError extends DenoletError {}

export interface CgroupFs {
  /** mkdir -p; succeeds when the directory exists. */
  mkdir(path: string): Promise<void>;
  /** Writes a control file (one write, as `echo > file`). */
  writeFile(path: string, data: string): Promise<void>;
  /** Reads a file; undefined when it does not exist. */
  readFile(path: string): Promise<string | undefined>;
  exists(path: string): Promise<boolean>;
  /** Names of the real (non-symlink) sub-directories; [] when `path` does not exist. */
  listDirs(path: string): Promise<string[]>;
  /**
   * Removes one empty cgroup directory; succeeds when it is already gone. Fails (EBUSY) while it
   * has child cgroups or processes.
   */
  rmdir(path: string): Promise<void>;
}

export interface DirCgroupFsOptions {
  /**
   * For plain directories (tests): control files are ordinary files there and are deleted with
   * the directory, as the kernel does on cgroupfs. Never set this on a real cgroup mount.
   */
  plainDirs?: boolean;
}

/** The real filesystem (Deno APIs); with `plainDirs` it emulates rmdir of a cgroup. */
export function dirCgroupFs(opts: DirCgroupFsOptions = {}): CgroupFs {
  return {
    async mkdir(path) {
      await Deno.mkdir(path, { recursive: true });
    },
    async writeFile(path, data) {
      try {
        await Deno.writeTextFile(path, data);
      } catch (err) {
        throw new CgroupError(`Cannot write ${JSON.stringify(data)} to ${path}`, { cause: err });
      }
    },
    async readFile(path) {
      try {
        return await Deno.readTextFile(path);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return undefined;
        throw err;
      }
    },
    async exists(path) {
      try {
        await Deno.stat(path);
        return true;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return false;
        throw err;
      }
    },
    async listDirs(path) {
      const out: string[] = [];
      try {
        for await (const e of Deno.readDir(path)) {
          if (e.isDirectory && !e.isSymlink) out.push(e.name);
        }
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return [];
        throw err;
      }
      return out.sort();
    },
    async rmdir(path) {
      try {
        if (opts.plainDirs) await removeControlFiles(path);
        await Deno.remove(path);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return;
        throw new CgroupError(`Cannot remove cgroup ${path}`, { cause: err });
      }
    },
  };
}

async function removeControlFiles(path: string): Promise<void> {
  for await (const e of Deno.readDir(path)) {
    if (e.isFile) await Deno.remove(`${path}/${e.name}`);
  }
}
