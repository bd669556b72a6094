/**
 * volumeMount.subPath: the path inside a volume, created on first use, never escaping the volume
 * (kubelet_pods.go makeMounts + pkg/volume/util/subpath SafeMakeDir).
 */
import { ConfigError } from "../util/errors.ts";

function realPathOrUndefined(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

function inside(base: string, path: string): boolean {
  return path === base || path.startsWith(base === "/" ? "/" : base + "/");
}

/** Rejects absolute subPaths and any ".." component, as ValidatePathNoBacksteps. */
export function validateSubPath(subPath: string, field: string): string[] {
  if (subPath.startsWith("/")) {
    throw new ConfigError(field, `subPath ${JSON.stringify(subPath)} must not be an absolute path`);
  }
  const parts = subPath.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) {
    throw new ConfigError(field, `subPath ${JSON.stringify(subPath)} must not contain '..'`);
  }
  return parts;
}

/**
 * Returns `<volumePath>/<subPath>`, creating missing directories (with the volume dir's mode)
 * one at a time and checking after each step that symlinks do not lead out of the volume.
 * Synchronous because container config building is.
 */
export function prepareSubPath(volumePath: string, subPath: string, field: string): string {
  const parts = validateSubPath(subPath, field);
  let base: string;
  let mode: number;
  try {
    base = Deno.realPathSync(volumePath);
    mode = (Deno.statSync(base).mode ?? 0o755) & 0o7777;
  } catch (err) {
    throw new ConfigError(field, `volume path ${volumePath} is not usable`, { cause: err });
  }
  let current = base;
  for (const part of parts) {
    const next = `${current === "/" ? "" : current}/${part}`;
    let resolved: string | undefined;
    try {
      resolved = realPathOrUndefined(next);
      if (resolved === undefined) {
        Deno.mkdirSync(next, { mode });
        Deno.chmodSync(next, mode);
        resolved = Deno.realPathSync(next);
      }
    } catch (err) {
      // Upstream keeps host details out of the pod's status message; the cause has them.
      throw new ConfigError(
        field,
        `failed to create subPath directory ${JSON.stringify(subPath)}`,
        {
          cause: err,
        },
      );
    }
    if (!inside(base, resolved)) {
      throw new ConfigError(
        field,
        `subPath ${JSON.stringify(subPath)} resolves outside the volume`,
      );
    }
    current = resolved;
  }
  return current;
}
