/**
 * Runs an install/uninstall plan with Deno's file APIs, or renders it as a POSIX shell script.
 * A recursive remove never deletes through a mount: the plan is refused while any mount is left
 * under what it removes (a running pod's volumes; a bind mount shows host files), and the walk
 * stops at any directory on another device or listed as a mount point.
 */
import { posix } from "node:path";
import { DenoletError } from "../util/errors.ts";
import { isMountPoint, MOUNTINFO, mountPoints, mountsUnder } from "./_mounts.ts";
import { type Step, underPrefix } from "./_plan.ts";

/** An install step that failed; the message names the path and the step. */
export class InstallError extends DenoletError {}

/** Nothing was changed: mounts are left under a directory the plan removes. */
export class MountsLeftError extends InstallError {}

const MOUNTS_LEFT = "mounts remain under what --purge removes (a running pod's volumes, whose " +
  "bind mounts show host files); stop the pods (remove their manifests and let the agent finish " +
  "them) or unmount these first:";

/**
 * Applies `steps` under `prefix`. Idempotent: re-running converges on the same files and modes.
 * Throws MountsLeftError, having changed nothing, while a mount is left under a recursive remove.
 */
export async function applyPlan(steps: readonly Step[], prefix: string): Promise<string[]> {
  const trees = steps.filter((s) => s.op === "remove" && s.recursive)
    .map((s) => underPrefix(prefix, s.path));
  if (trees.length > 0) {
    const left = mountsUnderAny(trees.map((t) => physical(t)), await readMountPoints());
    if (left.length > 0) throw new MountsLeftError(`${MOUNTS_LEFT}\n${left.join("\n")}`);
  }
  const done: string[] = [];
  for (const step of steps) {
    const path = underPrefix(prefix, step.path);
    try {
      if (await applyStep(step, path, prefix)) done.push(`${step.op} ${path}`);
    } catch (err) {
      throw new InstallError(`Cannot ${step.op} ${path}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }
  return done;
}

/** True when something changed on disk (or could have). */
async function applyStep(step: Step, path: string, prefix: string): Promise<boolean> {
  switch (step.op) {
    case "dir":
      await Deno.mkdir(path, { recursive: true, mode: step.mode });
      // mkdir's mode is masked by the umask and ignored for an existing directory.
      await Deno.chmod(path, step.mode);
      return true;
    case "file":
      if (step.keep && await exists(path)) return false;
      if (step.unlessExists && await exists(underPrefix(prefix, step.unlessExists))) return false;
      await writeAtomically(path, step.mode, (tmp) => Deno.writeTextFile(tmp, step.content));
      return true;
    case "copy":
      await writeAtomically(path, step.mode, (tmp) => Deno.copyFile(step.from, tmp));
      return true;
    case "remove":
      try {
        if (step.recursive) await removeTree(path);
        else await Deno.remove(path);
        return true;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return false;
        throw err;
      }
  }
}

async function readMountPoints(): Promise<string[]> {
  return mountPoints(await Deno.readTextFile(MOUNTINFO));
}

/** The path with symbolic links resolved, as mountinfo names it (itself when it is not there). */
function physical(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return path;
    throw err;
  }
}

function mountsUnderAny(dirs: readonly string[], points: readonly string[]): string[] {
  return [...new Set(dirs.flatMap((d) => mountsUnder(d, points)))];
}

/**
 * Deletes `top` and what is below it without following links or entering another mount: a
 * directory on another device than `top`'s, or listed as a mount point now, stops it with an
 * error (what was below already is gone; nothing of the mount is). A `top` that is a mount
 * point itself (a partition of its own) is emptied and kept.
 */
export async function removeTree(top: string): Promise<void> {
  const root = await Deno.lstat(top);
  const base = physical(top);
  const all = await readMountPoints();
  const points = new Set(mountsUnder(base, all));
  const walk = async (path: string, real: string, keep = false): Promise<void> => {
    const info = await Deno.lstat(path);
    if (info.isDirectory) {
      if (info.dev !== root.dev || points.has(real)) {
        throw new MountsLeftError(`${MOUNTS_LEFT}\n${real}`);
      }
      for await (const e of Deno.readDir(path)) {
        await walk(posix.join(path, e.name), posix.join(real, e.name));
      }
    }
    if (!keep) await Deno.remove(path);
  };
  await walk(top, base, root.isDirectory && isMountPoint(base, all));
}

/** Write beside, then rename: a running binary or a unit being read is never half-written. */
async function writeAtomically(
  path: string,
  mode: number,
  write: (tmp: string) => Promise<void>,
): Promise<void> {
  const tmp = `${path}.denolet-new`;
  await write(tmp);
  await Deno.chmod(tmp, mode);
  await Deno.rename(tmp, path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** The plan as a `sh` script that does what applyPlan does; run it as root. */
export function renderScript(steps: readonly Step[], prefix: string): string {
  const lines = [
    "#!/bin/sh",
    "# Generated by denolet; run as root: denolet install --script | sh",
    "set -eu",
  ];
  const trees = steps.filter((s) => s.op === "remove" && s.recursive)
    .map((s) => underPrefix(prefix, s.path));
  if (trees.length > 0) lines.push(...mountCheck(trees));
  for (const step of steps) {
    const path = quote(underPrefix(prefix, step.path));
    const mode = step.op === "remove" ? "" : step.mode.toString(8).padStart(4, "0");
    switch (step.op) {
      case "dir":
        lines.push(`mkdir -p ${path}`, `chmod ${mode} ${path}`);
        break;
      case "file": {
        const body = step.content.endsWith("\n") ? step.content : `${step.content}\n`;
        if (body.split("\n").includes("DENOLET_EOF")) {
          throw new InstallError(`Cannot render ${step.path}: its content holds the delimiter`);
        }
        const write = [
          `cat > ${path}.denolet-new <<'DENOLET_EOF'`,
          body + "DENOLET_EOF",
          `chmod ${mode} ${path}.denolet-new`,
          `mv -f ${path}.denolet-new ${path}`,
        ];
        const guard = step.unlessExists ? quote(underPrefix(prefix, step.unlessExists)) : path;
        if (step.keep || step.unlessExists) {
          lines.push(`if [ ! -e ${guard} ]; then`, ...write, "fi");
        } else lines.push(...write);
        break;
      }
      case "copy":
        lines.push(
          `cp -f ${quote(step.from)} ${path}.denolet-new`,
          `chmod ${mode} ${path}.denolet-new`,
          `mv -f ${path}.denolet-new ${path}`,
        );
        break;
      case "remove":
        if (!step.recursive) lines.push(`rm -f ${path}`);
        // A directory that is a mount point itself (a partition of its own) is emptied.
        else {
          lines.push(
            `if denolet_is_mount ${path}; then rm -fr ${path}/* ${path}/.[!.]* ${path}/..?*; ` +
              `else rm -fr ${path}; fi`,
          );
        }
        break;
    }
  }
  return lines.join("\n") + "\n";
}

/** Shell lines that stop the script, before it changes anything, while mounts are left. */
function mountCheck(trees: readonly string[]): string[] {
  return [
    "# A running pod's volume mounts (bind mounts show host files) must not be deleted through.",
    "denolet_at() {",
    '  d=$(cd "$1" 2>/dev/null && pwd -P) || return 1',
    `  d=$(printf '%s' "$d" | sed 's/\\\\/\\\\134/g; s/ /\\\\040/g; s/\t/\\\\011/g')`,
    "}",
    "denolet_mounts() {",
    '  denolet_at "$1" || return 0',
    `  while read -r _ _ _ _ m _; do case "$m" in "$d"/*) printf '%s\\n' "$m" ;; esac; done <${MOUNTINFO}`,
    "}",
    "denolet_is_mount() {",
    '  denolet_at "$1" || return 1',
    `  while read -r _ _ _ _ m _; do [ "$m" = "$d" ] && return 0; done <${MOUNTINFO}`,
    "  return 1",
    "}",
    `left=$(${trees.map((t) => `denolet_mounts ${quote(t)}`).join("; ")})`,
    'if [ -n "$left" ]; then',
    `  echo ${quote(`denolet uninstall: ${MOUNTS_LEFT}`)} >&2`,
    `  printf '%s\\n' "$left" >&2`,
    "  exit 1",
    "fi",
  ];
}

function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}
