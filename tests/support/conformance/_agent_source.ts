/**
 * The denolet source a conformance run starts, copied into the run's directory first: a run
 * takes 30–60 minutes, and an edit made meanwhile must not reach the agent (it loads some
 * modules only when first used). The copy also records exactly what ran.
 */
import { DevSetupError, run, tryRun } from "../_exec.ts";

const REPO = new URL("../../../", import.meta.url).pathname;
/** What `deno run main.ts` reads: the program, its config and lock, the sources. */
const AGENT_PATHS = ["main.ts", "deno.json", "deno.lock", "src", "proto"];

export interface AgentSource {
  /** `<dir>/main.ts` */
  main: string;
  /** `denolet <commit>`, `+dirty` when the work tree's sources differ from it. */
  description: string;
}

/**
 * Copies the agent's sources into `dir`: those of `commit` when given (`git archive`), else the
 * work tree's as they are now.
 */
export async function snapshotAgent(
  dir: string,
  opts: { commit?: string } = {},
): Promise<AgentSource> {
  await Deno.mkdir(dir, { recursive: true });
  const tar = `${dir}/.agent.tar`;
  let description: string;
  if (opts.commit) {
    const res = await tryRun("git", ["-C", REPO, "rev-parse", "--short", opts.commit]);
    if (res.code !== 0) {
      throw new DevSetupError(`Cannot run denolet at ${opts.commit}: ${res.stderr.trim()}`);
    }
    const commit = res.stdout.trim();
    await run("git", ["-C", REPO, "archive", "--format=tar", "-o", tar, commit, ...AGENT_PATHS]);
    description = `denolet ${commit}`;
  } else {
    await run("tar", ["-c", "-C", REPO, "-f", tar, ...AGENT_PATHS]);
    const commit = (await run("git", ["-C", REPO, "rev-parse", "--short", "HEAD"])).trim();
    const dirty = await run("git", ["-C", REPO, "status", "--porcelain", "--", ...AGENT_PATHS]);
    description = `denolet ${commit}${dirty.trim() ? "+dirty" : ""}`;
  }
  await run("tar", ["-x", "-C", dir, "-f", tar]);
  await Deno.remove(tar);
  return { main: `${dir}/main.ts`, description };
}
