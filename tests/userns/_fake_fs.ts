/** An in-memory UsernsFs: files by path, pod directories as the `pods/<uid>/` prefixes. */
import type { UsernsFs } from "../../src/userns/mod.ts";

export const PODS = "/root/pods";

export class FakeUsernsFs implements UsernsFs {
  readonly files = new Map<string, string>();
  readonly dirs = new Set<string>();
  /** Makes the next writeFileAtomic fail. */
  failNextWrite = false;
  writes = 0;

  readFile(path: string): Promise<string | undefined> {
    return Promise.resolve(this.files.get(path));
  }

  writeFileAtomic(path: string, data: string): Promise<void> {
    if (this.failNextWrite) {
      this.failNextWrite = false;
      return Promise.reject(new Error("disk full"));
    }
    this.writes++;
    this.files.set(path, data);
    return Promise.resolve();
  }

  remove(path: string): Promise<void> {
    this.files.delete(path);
    return Promise.resolve();
  }

  ensureDir(path: string): Promise<void> {
    this.dirs.add(path);
    return Promise.resolve();
  }

  listPodDirs(): Promise<string[]> {
    const uids = new Set<string>();
    for (const p of [...this.dirs, ...this.files.keys()]) {
      const m = new RegExp(`^${PODS}/([^/]+)`).exec(p);
      if (m) uids.add(m[1]);
    }
    return Promise.resolve([...uids]);
  }

  /** Removes a pod directory with everything in it. */
  removePodDir(uid: string): void {
    for (const p of [...this.files.keys()]) {
      if (p.startsWith(`${PODS}/${uid}/`)) this.files.delete(p);
    }
    this.dirs.delete(`${PODS}/${uid}`);
  }
}
