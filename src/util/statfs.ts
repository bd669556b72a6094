/**
 * Filesystem capacity and inodes from statfs(2), through node:fs, which Deno implements
 * in-process: no `stat -f` subprocess and no --allow-run for it (it needs --allow-sys=statfs
 * and read access to the path). Used by stats (nodefs, imagefs, tmpfs emptyDirs) and image GC.
 */
import { statfs as nodeStatfs } from "node:fs/promises";
import { DenoletError } from "./errors.ts";
import { errorMessage } from "./log.ts";

export interface FsCapacity {
  capacityBytes: number;
  /** Space available to unprivileged users, as df shows it. */
  availableBytes: number;
  /** capacity - free (root's reserved blocks count as used, as upstream). */
  usedBytes: number;
  inodes: number;
  inodesFree: number;
  inodesUsed: number;
}

/** The statfs(2) fields the capacity is computed from. */
export interface StatfsBlocks {
  bsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
}

/** Reads statfs(2) of the filesystem holding `path`. */
export type Statfs = (path: string, opts?: { signal?: AbortSignal }) => Promise<FsCapacity>;

export class StatfsError extends DenoletError {}

/** Block counts to bytes and inode counts. */
export function fsCapacity(s: StatfsBlocks): FsCapacity {
  return {
    capacityBytes: s.blocks * s.bsize,
    availableBytes: s.bavail * s.bsize,
    usedBytes: (s.blocks - s.bfree) * s.bsize,
    inodes: s.files,
    inodesFree: s.ffree,
    inodesUsed: s.files - s.ffree,
  };
}

/**
 * statfs of `path`; throws StatfsError (with the system error as cause) when it cannot be read.
 * The call itself is not cancellable; an aborted signal stops it from starting.
 */
export const statfs: Statfs = async (path, opts) => {
  opts?.signal?.throwIfAborted();
  try {
    return fsCapacity(await nodeStatfs(path));
  } catch (err) {
    throw new StatfsError(`Cannot statfs ${path}: ${errorMessage(err)}`, { cause: err });
  }
};
