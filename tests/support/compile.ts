/**
 * `deno task compile`: builds the single executable(s) into dist/ with `deno compile`, carrying
 * exactly the permission set src/permissions derives for the configuration it is built for.
 *
 *   deno task compile                                   # both targets, the install layout
 *   deno task compile x86_64-unknown-linux-gnu
 *   DENORT_BIN=/path/to/denort deno task compile aarch64-unknown-linux-gnu
 *   deno task compile x86_64-unknown-linux-gnu -- --config ./node.yaml --root-dir /data/kubelet
 *   deno task compile --probe-networks 10.42.0.0/16 --host-path /srv
 *
 * Agent flags after `--` choose the configuration (as on the node; a --config file is read
 * now). Without them it is the layout `denolet install` writes (/etc/denolet/config.yaml).
 *
 * The sources are copied to a temporary directory whose src/build_info/build_info.json records
 * the commit, "compiled" and the permission options; proto/ and deno.json are embedded.
 * `deno compile` needs a `denort` base binary per target: downloaded from dl.deno.land, or the
 * one DENORT_BIN names (offline builds). A missing DENORT_BIN file or a failed download ends
 * with a clear message and exit code 1, not a stack trace.
 */
import { AGENT_V8_FLAGS } from "../../src/build_info/mod.ts";
import { BUILD_INFO_FILE, renderBuildInfo } from "../../src/build_info/mod.ts";
import type { BakedPermissionOptions } from "../../src/build_info/mod.ts";
import { loadConfig } from "../../src/config/mod.ts";
import { defaultConfigYaml, LAYOUT } from "../../src/install/mod.ts";
import { permissionFlags } from "../../src/permissions/mod.ts";
import { errorMessage } from "../../src/util/log.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
export const TARGETS = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];
/** What the temporary copy holds: everything the program imports or reads at run time. */
const SOURCES = ["main.ts", "deno.json", "deno.lock", "src", "proto"];

export interface CompileRequest {
  targets: string[];
  agentArgs: string[];
  permissionOptions: BakedPermissionOptions;
}

/** Parses `[targets] [--probe-networks a,b|any] [--host-path dir]... [-- agent flags]`. */
export function parseCompileArgs(args: readonly string[]): CompileRequest {
  const dash = args.indexOf("--");
  const own = dash < 0 ? [...args] : args.slice(0, dash);
  const agentArgs = dash < 0 ? [] : args.slice(dash + 1);
  const targets: string[] = [];
  const opts: BakedPermissionOptions = {};
  for (let i = 0; i < own.length; i++) {
    const a = own[i];
    if (a === "--probe-networks" || a === "--host-path") {
      const v = own[++i];
      if (!v) throw new Error(`${a} needs a value`);
      if (a === "--host-path") (opts.hostPathRoots ??= []).push(v);
      else opts.probeNetworks = v === "any" ? "any" : v.split(",");
    } else if (TARGETS.includes(a)) {
      targets.push(a);
    } else {
      throw new Error(`unknown target or option "${a}" (targets: ${TARGETS.join(", ")})`);
    }
  }
  return { targets: targets.length ? targets : TARGETS, agentArgs, permissionOptions: opts };
}

/**
 * The permission flags baked into the binary: permissionFlags for the configuration `agentArgs`
 * give (default: the install layout),.
 */
export async function bakedPermissionFlags(
  agentArgs: readonly string[],
  opts: BakedPermissionOptions = {},
): Promise<string[]> {
  const args = agentArgs.length ? agentArgs : ["--config", LAYOUT.configFile];
  const useDefault = agentArgs.length === 0;
  const loaded = await loadConfig(args, {
    readFile: useDefault ? () => Promise.resolve(defaultConfigYaml()) : undefined,
    // The node name is the node's business; the build host's name must not matter.
    hostname: () => "build-host",
  });
  if (loaded.kind !== "run") throw new Error(`agent flags ask for ${loaded.kind}, not a run`);
  const configFile = loaded.configFile
    ? new URL(loaded.configFile, `file://${Deno.cwd()}/`).pathname
    : undefined;
  return permissionFlags(loaded.config, { ...opts, configFile });
}

/** The `deno compile` arguments for one target, run in the temporary copy `dir`. */
export function compileArgs(
  opts: { dir: string; target: string; out: string; permissionFlags: readonly string[] },
): string[] {
  return [
    "compile",
    "--no-prompt",
    `--v8-flags=${AGENT_V8_FLAGS}`,
    ...opts.permissionFlags,
    "--config",
    `${opts.dir}/deno.json`,
    "--include",
    `${opts.dir}/proto`,
    "--include",
    `${opts.dir}/deno.json`,
    "--target",
    opts.target,
    "--output",
    opts.out,
    `${opts.dir}/main.ts`,
  ];
}

/** `git rev-parse --short HEAD`, with `-dirty` when tracked files changed; "unknown" without git. */
export async function sourceCommit(): Promise<string> {
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", { args, cwd: ROOT, stderr: "null" }).output();
    return out.success ? new TextDecoder().decode(out.stdout).trim() : undefined;
  };
  const commit = await git("rev-parse", "--short", "HEAD");
  if (!commit) return "unknown";
  const dirty = await git("status", "--porcelain", "--untracked-files=no");
  return dirty ? `${commit}-dirty` : commit;
}

/** Copies what the program imports into `dir`, with `info` as its build_info.json. */
export async function copySources(dir: string, info: string): Promise<void> {
  for (const entry of SOURCES) {
    const out = await new Deno.Command("cp", { args: ["-R", `${ROOT}${entry}`, `${dir}/`] })
      .output();
    if (!out.success) {
      throw new Error(`cannot copy ${entry}: ${new TextDecoder().decode(out.stderr)}`);
    }
  }
  await Deno.writeTextFile(`${dir}/${BUILD_INFO_FILE}`, info);
}

/** Checks DENORT_BIN; returns an error message or undefined. */
export async function checkDenort(targets: readonly string[]): Promise<string | undefined> {
  const denort = Deno.env.get("DENORT_BIN");
  if (!denort) return undefined;
  try {
    const st = await Deno.stat(denort);
    if (!st.isFile) return `DENORT_BIN=${denort} is not a file; point it at a denort binary`;
  } catch {
    return `DENORT_BIN=${denort} does not exist; point it at a denort binary for the target ` +
      `(from denort-<target>.zip on dl.deno.land, matching deno ${Deno.version.deno})`;
  }
  if (targets.length > 1) {
    return "DENORT_BIN holds one base binary; name the single target it is for";
  }
  return undefined;
}

async function main(args: string[]): Promise<number> {
  let req: CompileRequest;
  let flags: string[];
  try {
    req = parseCompileArgs(args);
    flags = await bakedPermissionFlags(req.agentArgs, req.permissionOptions);
  } catch (err) {
    console.error(`compile: ${errorMessage(err)}`);
    return 1;
  }
  const denortProblem = await checkDenort(req.targets);
  if (denortProblem) {
    console.error(`compile: ${denortProblem}`);
    return 1;
  }
  const dir = await Deno.makeTempDir({ prefix: "denolet-compile-" });
  try {
    const commit = await sourceCommit();
    await copySources(
      dir,
      renderBuildInfo({ commit, compiled: true, permissionOptions: req.permissionOptions }),
    );
    await Deno.mkdir(`${ROOT}dist`, { recursive: true });
    console.log(`compile: commit ${commit}, permissions: ${flags.join(" ")}`);
    for (const target of req.targets) {
      const out = `${ROOT}dist/denolet-${target}`;
      const res = await new Deno.Command(Deno.execPath(), {
        args: compileArgs({ dir, target, out, permissionFlags: flags }),
        stdout: "inherit",
        stderr: "piped",
      }).output();
      const err = new TextDecoder().decode(res.stderr);
      if (!res.success) {
        if (/dl\.deno\.land|denort|Setting up base binary/i.test(err)) {
          console.error(
            `compile: cannot get the denort base binary for ${target}: the download host is not ` +
              `reachable. Set DENORT_BIN=/path/to/denort (built for ${target}) and name that one ` +
              "target.",
          );
        } else {
          console.error(`compile: deno compile failed for ${target}:\n${err.trim()}`);
        }
        return 1;
      }
      console.log(`compile: wrote ${out}`);
    }
    return 0;
  } catch (err) {
    console.error(`compile: ${errorMessage(err)}`);
    return 1;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
