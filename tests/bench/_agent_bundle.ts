/**
 * The agent as the single file runs it (issue 13): the package's own bundle of main.ts (built by
 * `bundleAgent`, minified and split as `deno task package` ships it), run by the same Deno with the same V8
 * flags. The packaged file adds only its shell header, the unpacking and a narrower permission
 * set, none of which changes the agent's memory or CPU once it runs; so `--agent bundle` measures
 * what users run, and the default (`main.ts` from source) what developers run.
 */
import { AGENT_V8_FLAGS, renderBuildInfo } from "../../src/build_info/mod.ts";
import { bundleAgent, warmBundle, writeBundle } from "../support/package.ts";
import { sourceCommit } from "../support/compile.ts";
import { DENO_DIR_NAME } from "../support/_package_header.ts";

/** How the bench starts the agent: from source, or from the package's bundle. */
export type AgentForm = "source" | "bundle";

export function parseAgentForm(s: string): AgentForm {
  if (s === "source" || s === "bundle") return s;
  throw new Error(`--agent: ${JSON.stringify(s)} is neither "source" nor "bundle"`);
}

/**
 * Writes the bundle (its entry and chunks) into `dir` and runs it once with `--version`, as the package's header does on
 * a first start, so that Deno's caches are filled before anything is measured (a first run fills
 * them from inside the agent and keeps ~35 MB more for as long as it runs). Returns its path.
 *
 * The caches go to `deno_dir/` beside it, which `startAgent` gives the agent as DENO_DIR, as the
 * header does: in the developer's shared DENO_DIR the agent read its code cache out of a database
 * other deno processes (the bench's own) kept open, and held ~0.5 MB more.
 */
export async function buildAgentBundle(
  dir: string,
  opts: { v8Flags?: string; signal?: AbortSignal } = {},
): Promise<string> {
  const info = renderBuildInfo({
    commit: await sourceCommit(),
    compiled: true,
    packed: true,
  });
  const file = await writeBundle(dir, await bundleAgent({ info, signal: opts.signal }));
  await warmBundle(file, {
    v8Flags: opts.v8Flags ?? AGENT_V8_FLAGS,
    denoDir: `${dir}/${DENO_DIR_NAME}`,
    signal: opts.signal,
  });
  return file;
}
