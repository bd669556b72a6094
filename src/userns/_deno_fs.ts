/** The real file operations of the user namespace manager. */
import type { UsernsFs } from "./types.ts";

/** Reads and writes under `<root-dir>/pods`; `podsDir` is listed for the persisted ranges. */
export function denoUsernsFs(podsDir: string): UsernsFs {
  return {
    async readFile(path) {
      try {
        return await Deno.readTextFile(path);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return undefined;
        throw err;
      }
    },
    async writeFileAtomic(path, data) {
      // The checkpoint's crash-safe writer, loaded with the first allocation.
      const { denoFs, writeFileAtomic } = await import("../checkpoint/mod.ts");
      await writeFileAtomic(denoFs, path, { data: new TextEncoder().encode(data), mode: 0o600 });
    },
    async remove(path) {
      try {
        await Deno.remove(path);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
    },
    async ensureDir(path) {
      await Deno.mkdir(path, { recursive: true, mode: 0o750 });
    },
    async listPodDirs() {
      const uids: string[] = [];
      try {
        for await (const e of Deno.readDir(podsDir)) if (e.isDirectory) uids.push(e.name);
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      }
      return uids;
    },
  };
}
