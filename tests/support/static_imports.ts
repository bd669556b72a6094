/**
 * The modules a program evaluates before any dynamic import runs: its static import closure, as
 * `deno info` reports it. The single file keeps every evaluated module's objects for as long as
 * the agent runs, so footprint tests check what stays out of it (loaded only when used).
 */

/** The repository files (paths relative to its root) `entry` reaches through static imports. */
export async function staticClosure(entry: string, opts: { root: string }): Promise<Set<string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: opts.root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno info ${entry} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as DenoInfo;
  const deps = new Map(info.modules.map((m) => [m.specifier, m.dependencies ?? []]));
  const prefix = new URL(`${opts.root.replace(/\/$/, "")}/`, "file:///").href;
  const seen = new Set<string>();
  const walk = (specifier: string) => {
    if (seen.has(specifier)) return;
    seen.add(specifier);
    for (const d of deps.get(specifier) ?? []) {
      // `code` is a value import; `type`-only imports are erased and never evaluated.
      if (!d.isDynamic && d.code?.specifier) walk(d.code.specifier);
    }
  };
  for (const root of info.roots) walk(root);
  return new Set(
    [...seen].filter((s) => s.startsWith(prefix)).map((s) => s.slice(prefix.length)),
  );
}

interface DenoInfo {
  roots: string[];
  modules: {
    specifier: string;
    dependencies?: { isDynamic?: boolean; code?: { specifier?: string } }[];
  }[];
}
