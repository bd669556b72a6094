/**
 * What build this is: the version from deno.json and the source commit.
 *
 * A binary must not shell out to git to learn its commit (it has no git, and --allow-run=git
 * would widen its permissions), so the commit is data: `build_info.json` is committed with
 * `"commit": "dev"`, and `deno task compile` and `deno task package` overwrite it in a temporary
 * copy of the sources with `git rev-parse --short HEAD` (plus `-dirty` for uncommitted changes)
 * and `"compiled": true` (the package also sets `"packed": true`). Running from source therefore
 * reports `dev`.
 */
import denoJson from "../../deno.json" with { type: "json" };
import { DenoletError } from "../util/errors.ts";
import info from "./build_info.json" with { type: "json" };

export interface BuildInfo {
  /** deno.json `version`, e.g. "0.1.0". */
  version: string;
  /** Short source commit the binary was built from; "dev" when running from source. */
  commit: string;
  /**
   * True in a built executable, a `deno compile` binary or a packed file (`deno task package`):
   * its permissions are fixed at build time and it reads no file of the sources.
   */
  compiled: boolean;
  /**
   * True in a packed file: a shell header that runs the Deno runtime on a bundle of the agent.
   * The running executable is then the runtime, not the file to install (see executablePath).
   */
  packed?: boolean;
  /**
   * The permission options the binary was compiled with (probe networks, hostPath roots), so
   * its start-up check compares against what was baked. Absent from source.
   */
  permissionOptions?: BakedPermissionOptions;
}

export interface BakedPermissionOptions {
  probeNetworks?: string[] | "any";
  hostPathRoots?: string[];
}

interface BuildInfoFile {
  commit: string;
  compiled: boolean;
  packed?: boolean;
  permissionOptions?: BakedPermissionOptions;
}

const file: BuildInfoFile = info;

export const BUILD_INFO: BuildInfo = { version: denoJson.version, ...file };

/** The path of the generated file, relative to the repository root (compile rewrites it). */
export const BUILD_INFO_FILE = "src/build_info/build_info.json";

/** The JSON `deno task compile` writes into its copy of the sources. */
export function renderBuildInfo(info: BuildInfoFile): string {
  return JSON.stringify(info, null, 2) + "\n";
}

/** Set by a packed file's shell header to the absolute path of that file. */
export const PACKED_EXECUTABLE_ENV = "DENOLET_EXECUTABLE";

/** Why a packed file cannot tell which file it was started from. */
export class ExecutablePathError extends DenoletError {}

/**
 * The executable a user started, the one `install` copies: Deno.execPath() for a compiled
 * binary; for a packed file the path its header exports (Deno.execPath() there is the unpacked
 * runtime, which would run nothing on its own). Throws ExecutablePathError when a packed file's
 * header did not say, or this process may not read the variable.
 */
export function executablePath(info: Pick<BuildInfo, "packed"> = BUILD_INFO): string {
  if (!info.packed) return Deno.execPath();
  const granted = Deno.permissions.querySync({ name: "env", variable: PACKED_EXECUTABLE_ENV });
  const path = granted.state === "granted" ? Deno.env.get(PACKED_EXECUTABLE_ENV) : undefined;
  if (!path?.startsWith("/")) {
    throw new ExecutablePathError(
      `Cannot tell which file this denolet was started from: ${PACKED_EXECUTABLE_ENV} is ` +
        (granted.state === "granted" ? "not an absolute path" : "not readable (--allow-env)") +
        "; its shell header sets it. Pass the file with --binary.",
    );
  }
  return path;
}

/**
 * V8 flags the agent runs with, wherever it is launched (compile bakes them, a packed file's
 * header passes them; the run task, demo, e2e harness and benchmark pass them). Lite mode (no
 * optimizing compiler) halves the agent's resident memory with 30 pods for a small CPU cost: the
 * right trade on an edge node. A 1 MB young generation (V8 grows it to 16 MB during bursts and
 * keeps it) held 110 pods at 68.5–70.8 MB against 70.6–71.6 without it (three bench runs each,
 * 2026-11-26), with no CPU cost seen. Figures: tests/bench/RESULTS.md.
 */
export const AGENT_V8_FLAGS = "--lite-mode,--max-semi-space-size=1";
