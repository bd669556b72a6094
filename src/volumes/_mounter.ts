/**
 * The seam to the kernel's mount table. The real one runs mount(8)/umount(8); unit tests pass
 * a fake so they never mount anything.
 */
import { dirname } from "node:path";
import { DenoletError } from "../util/errors.ts";

/** A mount or unmount that the system refused. */
export class MountError extends DenoletError {}

export interface Mounter {
  /**
   * Mounts `source` of type `fstype` on the existing directory `target` with `options`
   * (e.g. ["size=1048576"]). Not idempotent: callers check isMountPoint first. Aborting kills
   * the mount process. Throws MountError with mount's stderr on failure.
   */
  mount(
    source: string,
    target: string,
    opts: { fstype: string; options?: string[]; signal?: AbortSignal },
  ): Promise<void>;
  /**
   * Bind-mounts `source` onto the existing file or directory `target`, taking `source` as
   * given: a /proc/<pid>/fd/<n> source binds the file that descriptor holds, never a path
   * looked up again. `readOnly` makes the bind mount read-only. Not idempotent. Throws
   * MountError with mount's stderr on failure.
   */
  bind(
    source: string,
    target: string,
    opts?: { readOnly?: boolean; signal?: AbortSignal },
  ): Promise<void>;
  /** Unmounts `target` (the topmost mount there). Throws MountError when busy or not mounted. */
  unmount(target: string, opts?: { signal?: AbortSignal }): Promise<void>;
  /** True when `path` is itself a mount point (per /proc/self/mountinfo). Never throws for a missing path. */
  isMountPoint(path: string): Promise<boolean>;
  /** Every mount point at or below `dir`. */
  mountPointsUnder(dir: string): Promise<string[]>;
}

/** Mount points listed in /proc/self/mountinfo, with octal escapes (\040 etc.) decoded. */
export function parseMountInfo(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    if (fields.length < 5) continue;
    out.push(
      fields[4].replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8))),
    );
  }
  return out;
}

async function run(cmd: string, args: string[], signal?: AbortSignal): Promise<void> {
  let res: Deno.CommandOutput;
  try {
    res = await new Deno.Command(cmd, { args, stdout: "null", stderr: "piped", signal }).output();
  } catch (err) {
    throw new MountError(`Cannot run ${cmd} ${args.join(" ")}`, { cause: err });
  }
  if (!res.success) {
    const stderr = new TextDecoder().decode(res.stderr).trim();
    throw new MountError(`${cmd} ${args.join(" ")} failed (exit ${res.code}): ${stderr}`);
  }
}

async function mountPoints(): Promise<string[]> {
  return parseMountInfo(await Deno.readTextFile("/proc/self/mountinfo"));
}

/** mountinfo lists resolved paths, so compare against the resolved form; undefined if missing. */
async function realPathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new MountError(`Cannot resolve ${path}`, { cause: err });
  }
}

async function onOtherDeviceThanParent(path: string): Promise<boolean> {
  if (path === "/") return false;
  try {
    const [self, parent] = await Promise.all([Deno.stat(path), Deno.stat(dirname(path))]);
    return self.dev !== parent.dev;
  } catch {
    return false; // let the mount table decide
  }
}

/** The Mounter for a real Linux host (needs root). */
export function systemMounter(): Mounter {
  return {
    async mount(source, target, opts) {
      const args = ["-t", opts.fstype];
      if (opts.options?.length) args.push("-o", opts.options.join(","));
      await run("mount", [...args, source, target], opts.signal);
    },
    async bind(source, target, opts) {
      // mount(8) canonicalizes by default: it would turn /proc/<pid>/fd/<n> back into a path
      // string and mount(2) would look that up again, reopening the symlink-swap race.
      // mount(8) turns `-o ro` with --bind into the bind and a read-only remount of it.
      const ro = opts?.readOnly ? ["-o", "ro"] : [];
      await run("mount", ["--no-canonicalize", "--bind", ...ro, source, target], opts?.signal);
    },
    async unmount(target, opts) {
      await run("umount", [target], opts?.signal);
    },
    async isMountPoint(path) {
      const want = await realPathOrUndefined(path);
      if (want === undefined) return false;
      // Upstream's IsLikelyNotMountPoint test first: on another device than its parent, it is a
      // mount point, without reading the mount table (which grows with every pod, and secret
      // and projected volumes ask on every pod sync). Same device: a bind mount or none.
      if (await onOtherDeviceThanParent(want)) return true;
      return (await mountPoints()).includes(want);
    },
    async mountPointsUnder(dir) {
      const base = await realPathOrUndefined(dir);
      if (base === undefined) return [];
      return (await mountPoints()).filter((m) => m === base || m.startsWith(base + "/"));
    },
  };
}
