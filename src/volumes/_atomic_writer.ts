/**
 * Atomic projection of a set of files into a volume directory (pkg/volume/util/atomic_writer.go),
 * for configMap, secret, downwardAPI and projected volumes. The real files live in a hidden
 * timestamped directory `..<YYYY_MM_DD_HH_MM_SS>.<random>`; `..data` is a symlink to it and each
 * top-level user-visible name is a symlink into `..data`. An update writes a new timestamped
 * directory and renames a fresh `..data_tmp` symlink over `..data`, so a reader sees either the
 * whole old content or the whole new one, never a mix. Names starting with `..` are reserved.
 */
import { lchown } from "node:fs/promises";
import { posix } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { type Logger, nullLogger } from "../util/log.ts";
import { ownedMode, setVolumeOwnership } from "./_ownership.ts";

/** One file of a volume's payload. */
export interface FileProjection {
  data: Uint8Array;
  /** Permission bits, e.g. 0o644. */
  mode: number;
  /**
   * The uid to own the file and its top-level link (upstream FsUser: a projected token when
   * every container runs as one user); unset leaves it root's.
   */
  owner?: number;
}

const DATA_DIR = "..data";
const NEW_DATA_DIR = "..data_tmp";
const MAX_FILE_NAME = 255;
const MAX_PATH = 4096;

/**
 * Checks one payload path as upstream does: relative, not empty, no `..` element, not starting
 * with `..`, names of at most 255 and paths of at most 4096 characters. Returns it cleaned.
 */
export function validatePayloadPath(path: string): string {
  const bad = (why: string) =>
    new ConfigError(`path ${JSON.stringify(path)}`, `invalid path: ${why}`);
  if (path === "") throw bad("must not be empty");
  if (path.startsWith("/")) throw bad("must be relative path");
  if (path.length > MAX_PATH) throw bad(`must be less than or equal to ${MAX_PATH} characters`);
  const items = path.split("/");
  for (const item of items) {
    if (item === "..") throw bad("must not contain '..'");
    if (item.length > MAX_FILE_NAME) {
      throw bad(`filenames must be less than or equal to ${MAX_FILE_NAME} characters`);
    }
  }
  if (items[0].startsWith("..") && items[0].length > 2) throw bad("must not start with '..'");
  if (path.includes("\0")) throw bad("must not contain NUL");
  const clean = posix.normalize(path).replace(/\/+$/, "");
  if (clean === "." || clean === "") throw bad("must name a file");
  return clean;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0");
}

/** `..2026_01_31_23_59_59.` (UTC), the prefix of a timestamped data directory. */
function timestampPrefix(nowMs: number): string {
  const d = new Date(nowMs);
  return `..${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${
    pad(d.getUTCHours())
  }_${pad(d.getUTCMinutes())}_${pad(d.getUTCSeconds())}.`;
}

async function readLinkOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.readLink(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

async function lstatOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.lstat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** Every path below `dir`, relative to it (files and directories). */
async function walk(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    out.push(rel);
    if (e.isDirectory) out.push(...await walk(`${dir}/${e.name}`, rel));
  }
  return out;
}

/**
 * Whether `file` differs from what `path` holds (content or permission bits, those an fsGroup
 * adds included).
 */
async function differs(path: string, file: FileProjection, fsGroup?: number): Promise<boolean> {
  const info = await lstatOrUndefined(path);
  if (!info?.isFile) return true;
  const mode = fsGroup === undefined ? file.mode : ownedMode(file.mode, READ_ONLY_FILE);
  if (((info.mode ?? 0) & 0o7777) !== mode) return true;
  const onDisk = await Deno.readFile(path);
  if (onDisk.length !== file.data.length) return true;
  return onDisk.some((b, i) => b !== file.data[i]);
}

/** Every path the payload needs, its parent directories included. */
function neededPaths(payload: Map<string, FileProjection>): Set<string> {
  const out = new Set<string>();
  for (const p of payload.keys()) {
    for (let sub = p; sub !== "." && sub !== ""; sub = posix.dirname(sub)) out.add(sub);
  }
  return out;
}

/** Every volume the writer serves is mounted read-only (upstream's ReadOnly attribute). */
const READ_ONLY_FILE = { readOnly: true, dir: false } as const;

export interface AtomicWriteOptions {
  /** The clock's time, for the timestamped directory's name. */
  now: number;
  /**
   * The pod's fsGroup. Each new version, once written and before `..data` points to it, gets
   * it with the whole volume (setVolumeOwnership, read-only masks), as upstream's setPerms:
   * updates too, not only the first write.
   */
  fsGroup?: number;
  /** Where a failed chown or chmod of the ownership change is logged; default nowhere. */
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * Makes `targetDir` (which must exist) hold exactly `payload`. Does nothing and resolves false
 * when it already does (same content and modes, nothing to remove); otherwise writes a new
 * timestamped directory, swaps `..data` to it in one rename, adds the user-visible symlinks of
 * new top-level names, removes those of dropped ones and the previous timestamped directory,
 * and resolves true. Not safe to run twice at once on one directory: the volume manager calls
 * it from the pod's own worker. Throws ConfigError for an invalid path, before writing anything.
 */
export async function writeAtomically(
  targetDir: string,
  payload: Map<string, FileProjection>,
  opts: AtomicWriteOptions,
): Promise<boolean> {
  const clean = new Map<string, FileProjection>();
  for (const [path, file] of payload) clean.set(validatePayloadPath(path), file);

  const dataDir = `${targetDir}/${DATA_DIR}`;
  const oldTs = await readLinkOrUndefined(dataDir);
  let toRemove: string[] = [];
  if (oldTs !== undefined) {
    const oldDir = `${targetDir}/${oldTs}`;
    const needed = neededPaths(clean);
    const existing = (await lstatOrUndefined(oldDir))?.isDirectory ? await walk(oldDir) : [];
    toRemove = existing.filter((p) => !needed.has(p));
    let changed = toRemove.length > 0;
    for (const [path, file] of clean) {
      if (changed) break;
      changed = await differs(`${oldDir}/${path}`, file, opts.fsGroup);
    }
    if (!changed) return false;
  }
  opts.signal?.throwIfAborted();

  const tsDir = await Deno.makeTempDir({ dir: targetDir, prefix: timestampPrefix(opts.now) });
  const tsName = posix.basename(tsDir);
  try {
    // 0755 whatever the umask, so containers running as any user can walk the tree.
    await Deno.chmod(tsDir, 0o755);
    for (const [path, file] of clean) {
      const full = `${tsDir}/${path}`;
      await Deno.mkdir(posix.dirname(full), { recursive: true, mode: 0o755 });
      await Deno.writeFile(full, file.data, { mode: file.mode });
      // writeFile's mode is narrowed by the umask; the projection's mode is what counts.
      await Deno.chmod(full, file.mode);
      if (file.owner !== undefined) await lchown(full, file.owner, -1);
    }
    if (opts.fsGroup !== undefined) {
      // The whole volume, not only the new directory: on a first write the root is new too.
      await setVolumeOwnership(targetDir, { fsGroup: opts.fsGroup, readOnly: true }, {
        logger: opts.logger ?? nullLogger,
      });
    }
    const tmpLink = `${targetDir}/${NEW_DATA_DIR}`;
    // A leftover from an agent stopped mid-write would make symlink() fail.
    if (await lstatOrUndefined(tmpLink)) await Deno.remove(tmpLink);
    await Deno.symlink(tsName, tmpLink);
    await Deno.rename(tmpLink, dataDir);
  } catch (err) {
    // The write's own failure is what to report; a leftover directory is only disk space.
    await Deno.remove(tsDir, { recursive: true }).catch(() => "left behind");
    throw err;
  }

  // Made after the ownership change, as upstream's: a new link keeps root's group.
  for (const [path, file] of clean) {
    const top = path.split("/")[0];
    const visible = `${targetDir}/${top}`;
    if (await lstatOrUndefined(visible)) continue;
    await Deno.symlink(`${DATA_DIR}/${top}`, visible);
    if (file.owner !== undefined) await lchown(visible, file.owner, -1);
  }
  // Only top-level names are user-visible links; deeper paths went with the old directory.
  for (const p of toRemove) {
    if (p.includes("/")) continue;
    const visible = `${targetDir}/${p}`;
    if ((await lstatOrUndefined(visible))?.isSymlink) await Deno.remove(visible);
  }
  if (oldTs !== undefined && oldTs !== tsName) {
    await Deno.remove(`${targetDir}/${oldTs}`, { recursive: true }).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
  return true;
}
