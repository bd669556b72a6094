/**
 * `deno task compile`: builds the single executable(s) into dist/ with `deno compile`.
 *
 * `deno compile` needs a `denort` base binary for each target, which it downloads unless
 * DENORT_BIN names a local one (offline builds). A missing DENORT_BIN file or a failed download
 * ends with a clear message and exit code 1, not a stack trace.
 *
 *   deno task compile                      # both targets
 *   deno task compile x86_64-unknown-linux-gnu
 *   DENORT_BIN=/path/to/denort deno task compile x86_64-unknown-linux-gnu
 */
const ROOT = new URL("../../", import.meta.url).pathname;
const TARGETS = ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

async function main(args: string[]): Promise<number> {
  const targets = args.length > 0 ? args : TARGETS;
  for (const t of targets) {
    if (!TARGETS.includes(t)) {
      console.error(`compile: unknown target "${t}" (known: ${TARGETS.join(", ")})`);
      return 1;
    }
  }
  const denort = Deno.env.get("DENORT_BIN");
  if (denort) {
    try {
      await Deno.stat(denort);
    } catch {
      console.error(
        `compile: DENORT_BIN=${denort} does not exist; point it at a denort binary for the target`,
      );
      return 1;
    }
    if (targets.length > 1) {
      console.error("compile: DENORT_BIN holds one base binary; name the single target it is for");
      return 1;
    }
  }
  await Deno.mkdir(`${ROOT}dist`, { recursive: true });
  for (const target of targets) {
    const out = `${ROOT}dist/denolet-${target}`;
    const cmd = new Deno.Command(Deno.execPath(), {
      args: [
        "compile",
        "--allow-all",
        "--include",
        `${ROOT}proto`,
        "--target",
        target,
        "--output",
        out,
        `${ROOT}main.ts`,
      ],
      stdout: "inherit",
      stderr: "piped",
    });
    const res = await cmd.output();
    const err = new TextDecoder().decode(res.stderr);
    if (!res.success) {
      if (/dl\.deno\.land|denort|Setting up base binary/.test(err)) {
        console.error(
          `compile: cannot get the denort base binary for ${target}: the download host is not ` +
            `reachable. Set DENORT_BIN=/path/to/denort (built for ${target}) and name that one target.`,
        );
      } else {
        console.error(`compile: deno compile failed for ${target}:\n${err.trim()}`);
      }
      return 1;
    }
    console.log(`compile: wrote ${out}`);
  }
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
