/**
 * Which `pod<uid>` cgroups are this agent's to remove. The `kubepods` tree may be shared: another
 * agent, a test, or another runtime's kubelet on the same host keeps its pods there too, so
 * "every pod cgroup no source of mine asks for" is not an orphan of mine. Like the
 * `io.denolet.node-name` label for sandboxes, ownership is recorded where the agent keeps its
 * state: an empty file `<root-dir>/pod-cgroups/<uid>` is written before the pod's cgroup is
 * created and removed once the cgroup is gone from every hierarchy. The record outlives a
 * restart and a failed removal (pod directories do not: they go before the cgroup), and an
 * operator can see at a glance what the agent considers its own.
 */
import { CgroupError } from "./_cgroup_fs.ts";

/** Below `--root-dir`. */
export const OWNERSHIP_DIR = "pod-cgroups";

export class CgroupOwnership {
  readonly #dir: string | undefined;
  #uids?: Promise<Set<string>>;

  /** `dir` undefined: records in memory only (what this process created). */
  constructor(dir: string | undefined) {
    this.#dir = dir;
  }

  /** The UIDs whose pod cgroups this agent created and has not removed yet. */
  async list(): Promise<string[]> {
    return [...await this.#load()];
  }

  /**
   * Records `uid` as this agent's (idempotent; written once per process). Throws CgroupError
   * when the record cannot be written: a cgroup nobody records would never be cleaned up.
   */
  async claim(uid: string): Promise<void> {
    const uids = await this.#load();
    if (uids.has(uid)) return;
    checkUid(uid);
    if (this.#dir !== undefined) {
      try {
        await Deno.mkdir(this.#dir, { recursive: true, mode: 0o750 });
        await Deno.writeTextFile(`${this.#dir}/${uid}`, "");
      } catch (err) {
        throw new CgroupError(`Cannot record pod cgroup ownership in ${this.#dir}/${uid}`, {
          cause: err,
        });
      }
    }
    uids.add(uid);
  }

  /** Forgets `uid` once its cgroup is gone; a missing record is not an error. */
  async release(uid: string): Promise<void> {
    const uids = await this.#load();
    if (this.#dir !== undefined && uids.has(uid)) {
      try {
        await Deno.remove(`${this.#dir}/${uid}`);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) {
          throw new CgroupError(`Cannot remove pod cgroup record ${this.#dir}/${uid}`, {
            cause: err,
          });
        }
      }
    }
    uids.delete(uid);
  }

  #load(): Promise<Set<string>> {
    this.#uids ??= readRecords(this.#dir).catch((err) => {
      this.#uids = undefined; // read again next time
      throw err;
    });
    return this.#uids;
  }
}

async function readRecords(dir: string | undefined): Promise<Set<string>> {
  const uids = new Set<string>();
  if (dir === undefined) return uids;
  try {
    for await (const e of Deno.readDir(dir)) if (e.isFile && isUid(e.name)) uids.add(e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new CgroupError(`Cannot read pod cgroup records in ${dir}`, { cause: err });
    }
  }
  return uids;
}

/** A UID is one file name and one cgroup name: no separators, no "." or "..". */
function isUid(uid: string): boolean {
  return /^[A-Za-z0-9._-]+$/.test(uid) && uid !== "." && uid !== "..";
}

function checkUid(uid: string): void {
  if (!isUid(uid)) throw new CgroupError(`Cannot make a pod cgroup for UID ${JSON.stringify(uid)}`);
}
