/**
 * Mount points, for `uninstall --purge`: a running pod's subPath, tmpfs (secret, memory
 * emptyDir) and other volume mounts live under the root directory, and a bind mount shows host
 * files there. Deleting through it deletes the host's files, so a purge refuses while any mount
 * is left under what it removes, and its walk never enters another mount.
 */
import { posix } from "node:path";

export const MOUNTINFO = "/proc/self/mountinfo";

/** The mount points listed in a mountinfo text (field 5, octal escapes decoded). */
export function mountPoints(mountinfo: string): string[] {
  const out: string[] = [];
  for (const line of mountinfo.split("\n")) {
    const field = line.split(" ")[4];
    if (field) out.push(unescapeOctal(field));
  }
  return out;
}

/**
 * The mount points below `dir` (not `dir` itself: a root directory on a partition of its own is
 * emptied, not refused).
 */
export function mountsUnder(dir: string, points: readonly string[]): string[] {
  const base = posix.normalize(dir).replace(/\/+$/, "") || "/";
  return points.filter((m) => m !== base && m.startsWith(base === "/" ? "/" : `${base}/`));
}

/** Whether `dir` is itself a mount point. */
export function isMountPoint(dir: string, points: readonly string[]): boolean {
  const base = posix.normalize(dir).replace(/\/+$/, "") || "/";
  return points.includes(base);
}

/** The kernel writes space, tab, newline and backslash in mount paths as `\ooo`. */
function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}
