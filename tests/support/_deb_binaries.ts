/**
 * Programs taken out of a Debian package without installing it: `apt-get download` and
 * `dpkg-deb -x`, so no maintainer script runs and no service starts. For the test peers Debian
 * ships as static Go binaries (Prometheus, the distribution registry): seconds instead of
 * minutes of Go builds on a fresh machine. Private to tests/support.
 */
import { DevSetupError, exists, run, tryRun } from "./_exec.ts";

/**
 * Makes `dest/<name>` of each `files` entry (name → path inside the package, `usr/bin/promtool`)
 * from package `pkg` unless all are there. Concurrent callers each write whole files, renamed
 * into place, so a reader never sees half of one.
 */
export async function debBinaries(
  pkg: string,
  files: Record<string, string>,
  opts: { dest: string; log: (s: string) => void },
): Promise<Record<string, string>> {
  const out = Object.fromEntries(Object.keys(files).map((n) => [n, `${opts.dest}/${n}`]));
  const present = await Promise.all(Object.values(out).map(exists));
  if (present.every(Boolean)) return out;
  await Deno.mkdir(opts.dest, { recursive: true });
  const tmp = await Deno.makeTempDir({ dir: opts.dest, prefix: ".deb-" });
  try {
    opts.log(`fetching Debian package ${pkg}`);
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    let got = await tryRun("apt-get", ["download", pkg], { cwd: tmp, env });
    if (got.code !== 0) {
      // A fresh machine may have no package lists yet.
      await run("apt-get", ["update"], { env });
      got = await tryRun("apt-get", ["download", pkg], { cwd: tmp, env });
    }
    if (got.code !== 0) {
      throw new DevSetupError(`apt-get download ${pkg} failed: ${got.stderr.trim()}`);
    }
    const deb = [...Deno.readDirSync(tmp)].find((e) => e.name.endsWith(".deb"));
    if (!deb) throw new DevSetupError(`apt-get download ${pkg} left no .deb`);
    await run("dpkg-deb", ["-x", `${tmp}/${deb.name}`, `${tmp}/x`]);
    for (const [name, inside] of Object.entries(files)) {
      const staged = `${tmp}/${name}`;
      await Deno.copyFile(`${tmp}/x/${inside}`, staged);
      await Deno.chmod(staged, 0o755);
      await Deno.rename(staged, out[name]);
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
  return out;
}
