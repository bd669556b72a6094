import { posix } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { errorMessage } from "../util/log.ts";
import { defaultConfig } from "./_defaults.ts";
import { applyConfigFile } from "./_file.ts";
import { applyDropins, type DropinFs } from "./_dropins.ts";
import { applyFlags, parseArgv } from "./_flags.ts";
import { type Given, loadUpstreamTable } from "./_upstream_given.ts";
import type { NodeFacts } from "./_upstream_rules.ts";
import { validateConfig } from "./_validate.ts";
import { helpText, versionText } from "./help.ts";
import type { AgentConfig } from "./types.ts";

/** What the command line asks for: run with a configuration, or print help or the version. */
export type LoadResult =
  | {
    kind: "run";
    config: AgentConfig;
    /** Accepted but ignored settings (upstream fields denolet does not implement, deprecations). */
    warnings: string[];
    /** The --config file that was read, if any. */
    configFile?: string;
  }
  | { kind: "help"; text: string }
  | { kind: "version"; text: string };

export interface LoadDeps {
  /** Reads the --config file; defaults to Deno.readTextFile. */
  readFile?: (path: string) => Promise<string>;
  /** The machine's hostname; defaults to Deno.hostname. */
  hostname?: () => string;
  /** Resolves a relative --config path (and the relative paths inside it); defaults to Deno.cwd. */
  cwd?: () => string;
  /**
   * Whether the node runs the unified cgroup hierarchy (v2), for the few upstream settings whose
   * acceptance depends on it; asked only then. Defaults to a look at /sys/fs/cgroup.
   */
  cgroupV2?: () => boolean;
  /** Lists a --config-dir directory; defaults to Deno.readDir. */
  readDir?: DropinFs["readDir"];
}

/**
 * Builds the agent configuration the way the kubelet does: defaults < --config file < flags
 * given on the command line, then validation of the merged result. `argv` excludes the program
 * name. Throws ConfigError naming the flag or `file: field` at fault; a file that cannot be read
 * is a ConfigError on `--config` with the I/O error as cause.
 */
export async function loadConfig(
  argv: readonly string[],
  deps: LoadDeps = {},
): Promise<LoadResult> {
  const args = parseArgv(argv);
  if (args.help) return { kind: "help", text: helpText() };
  if (args.version) return { kind: "version", text: versionText() };

  const origin = new Map<keyof AgentConfig, string>();
  const warnings: string[] = [];
  const hasFile = args.configPath !== undefined && args.configPath !== "";
  const cfg = defaultConfig({ withConfigFile: hasFile });
  const given: Given[] = [];

  if (hasFile) {
    const file = args.configPath!;
    const cwd = (deps.cwd ?? Deno.cwd)();
    const readFile = deps.readFile ?? Deno.readTextFile;
    let text: string;
    try {
      text = await readFile(file);
    } catch (e) {
      throw new ConfigError("--config", `cannot read ${file}: ${errorMessage(e)}`, { cause: e });
    }
    const dir = posix.dirname(posix.resolve(cwd, file));
    const read = await applyConfigFile(cfg, origin, { text, file, dir });
    warnings.push(...read.warnings);
    given.push(...read.given);
  }

  if (args.configDir) {
    const cwd = (deps.cwd ?? Deno.cwd)();
    const read = await applyDropins(cfg, origin, {
      dir: posix.resolve(cwd, args.configDir),
      cwd,
      defaults: defaultConfig({ withConfigFile: hasFile }),
      fs: { readFile: deps.readFile ?? Deno.readTextFile, readDir: deps.readDir ?? Deno.readDir },
    });
    warnings.push(...read.warnings);
    given.push(...read.given);
  }
  const fileGates = origin.get("featureGates");

  applyFlags(cfg, args.flags, origin);
  // Upstream settings denolet does not implement: accepted at upstream's default, else refused.
  // Their table is loaded only when one is given.
  const upstream = [...given, ...args.upstream];
  if (upstream.length > 0) {
    const { checkUpstream } = await loadUpstreamTable();
    warnings.push(...checkUpstream(upstream, nodeFacts(deps)));
  }
  if (Object.keys(cfg.featureGates).length > 0) {
    // The gate table is large and gates are rare: loaded only when one is set.
    const { checkGates } = await import("./_gate_check.ts");
    const fromFlags = new Set(
      args.flags.filter((f) => f.def.name === "feature-gates").flatMap((f) =>
        Object.keys(f.value as Record<string, boolean>)
      ),
    );
    checkGates(
      cfg.featureGates,
      (name) => fromFlags.has(name) ? "--feature-gates" : `${fileGates}.${name}`,
    );
  }

  // Upstream's --cert-dir is fixed; denolet keeps it with the rest of the agent's state.
  if (cfg.certDir === "") cfg.certDir = posix.join(cfg.rootDir, "pki");
  if (cfg.nodeName === "") {
    // Upstream GetHostname: trim, then lowercase, so the node name is a valid object name.
    cfg.nodeName = (deps.hostname ?? Deno.hostname)().trim().toLowerCase();
  }
  warnings.push(...validateConfig(cfg, origin));
  return {
    kind: "run",
    config: cfg,
    warnings,
    ...(hasFile ? { configFile: args.configPath } : {}),
  };
}

/** The node facts, read once and only when a rule asks. */
function nodeFacts(deps: LoadDeps): () => NodeFacts {
  let facts: NodeFacts | undefined;
  return () => facts ??= { cgroupV2: (deps.cgroupV2 ?? hostCgroupV2)() };
}

/** cgroup v2 mounts cgroup.controllers at the root of /sys/fs/cgroup; v1 has no such file. */
function hostCgroupV2(): boolean {
  try {
    Deno.statSync("/sys/fs/cgroup/cgroup.controllers");
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    // Asked only for a setting whose answer depends on it (failCgroupV1, singleProcessOOMKill).
    throw new ConfigError("/sys/fs/cgroup", `cannot tell the cgroup version: ${errorMessage(e)}`, {
      cause: e,
    });
  }
}
