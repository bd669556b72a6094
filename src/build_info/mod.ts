/**
 * What build this is: the version from deno.json and the source commit.
 *
 * A binary must not shell out to git to learn its commit (it has no git, and --allow-run=git
 * would widen its permissions), so the commit is data: `build_info.json` is committed with
 * `"commit": "dev"`, and `deno task compile` overwrites it in a temporary copy of the sources
 * with `git rev-parse --short HEAD` (plus `-dirty` for uncommitted changes) and
 * `"compiled": true`. Running from source therefore reports `dev`.
 */
import denoJson from "../../deno.json" with { type: "json" };
import info from "./build_info.json" with { type: "json" };

export interface BuildInfo {
  /** deno.json `version`, e.g. "0.1.0". */
  version: string;
  /** Short source commit the binary was built from; "dev" when running from source. */
  commit: string;
  /** True in a `deno compile` binary (permissions are baked in; proto files are embedded). */
  compiled: boolean;
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

/**
 * V8 flags the agent runs with, wherever it is launched (compile bakes them; the run task, demo,
 * e2e harness and benchmark pass them). Lite mode (no optimizing compiler) halves the agent's
 * resident memory with 30 pods for a small CPU cost — the right trade on an edge node; see the
 * README's Performance section for the figures.
 */
export const AGENT_V8_FLAGS = "--lite-mode";
