/**
 * Builds upstream Go commands from the Go module proxy into per-version bin dirs, once per
 * machine: a throwaway module requires the upstream one, `go build` writes all of a module's
 * binaries into a temp dir that replaces the bin dir when complete. Private to tests/support.
 */
import { realClock } from "../../src/util/clock.ts";
import { DevSetupError, exists, hasCommand, run } from "./_exec.ts";

/** One `go build` of main packages from one upstream module into one bin dir. */
export interface GoBuild {
  /** For messages: "kubernetes v1.37.2". */
  what: string;
  module: string;
  version: string;
  /** The bin dir; the throwaway module and the build log sit beside it. */
  bin: string;
  /** Binary name → import path of its main package. */
  commands: Record<string, string>;
  ldflags: string;
  /** Build tags (`-tags`), if any. */
  tags?: string[];
  /** Needs cgo (runc's nsenter is C); the default builds static binaries without it. */
  cgo?: boolean;
  /**
   * `go test -c` of the one package in `commands` instead of `go build` (the e2e suite is a test
   * binary). go test has no -v for the build, so the log counts no packages.
   */
  testBinary?: boolean;
  goMod(upstreamGoMod: string): string;
}

/**
 * Builds whatever binary of `builds` is missing, under `<root>/.lock` so that parallel test files
 * build once; Go's caches live under `<root>/go`. Returns at once when everything is in place.
 */
export async function buildMissing(
  root: string,
  builds: GoBuild[],
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<void> {
  await Deno.mkdir(root, { recursive: true });
  if (await allPresent(builds)) return;
  const file = await Deno.open(`${root}/.lock`, { create: true, write: true });
  try {
    // flock(2): released by the kernel if this process dies mid-build.
    await file.lock(true);
    let built = false;
    for (const b of builds) {
      if (await allPresent([b])) continue;
      await goBuild(root, b, opts);
      built = true;
    }
    // The build cache (4 GB after kubernetes; etcd, built next, reuses its gRPC and etcd client
    // packages) is worth nothing once the binaries are cached by version. The module cache
    // (under 1 GB) stays for the next version's download.
    if (built) await Deno.remove(goEnv(root).GOCACHE, { recursive: true }).catch(ignoreNotFound);
  } finally {
    file.close();
  }
}

/**
 * A module named `name` with the upstream's `go` and `godebug` directives (a dependency's own
 * are ignored, and they choose the GODEBUG defaults the binaries are meant to run with).
 */
export function throwawayGoMod(name: string, upstreamGoMod: string, body: string[]): string {
  const directives: string[] = [];
  const lines = upstreamGoMod.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (/^go\s+\S+$/.test(line)) directives.push(line);
    if (/^godebug\s+\($/.test(line)) {
      const block = [line];
      while (i + 1 < lines.length && lines[i].trim() !== ")") block.push(lines[++i].trim());
      directives.push(block.join("\n"));
    } else if (/^godebug\s+\S/.test(line)) {
      directives.push(line);
    }
  }
  return [`module ${name}`, "", ...directives, "", ...body, ""].join("\n");
}

async function allPresent(builds: GoBuild[]): Promise<boolean> {
  for (const b of builds) {
    for (const name of Object.keys(b.commands)) {
      if (!(await exists(`${b.bin}/${name}`))) return false;
    }
  }
  return true;
}

async function goBuild(
  root: string,
  b: GoBuild,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<void> {
  if (!(await hasCommand("go"))) {
    throw new DevSetupError(`Cannot build ${b.what}: the go command is not on PATH`);
  }
  const versionDir = b.bin.slice(0, b.bin.lastIndexOf("/"));
  const moduleDir = `${versionDir}/module`;
  const logFile = `${versionDir}/build.log`;
  const env = { ...goEnv(root), ...(b.cgo ? { CGO_ENABLED: "1" } : {}) };
  await Deno.remove(moduleDir, { recursive: true }).catch(ignoreNotFound);
  await Deno.mkdir(moduleDir, { recursive: true });
  const names = Object.keys(b.commands);
  opts.log(
    `building ${b.what} (${names.join(", ")}) from the Go module proxy; ` +
      `a new machine takes several minutes (log ${logFile})`,
  );
  const started = realClock.now();
  const info = JSON.parse(
    await run("go", ["mod", "download", "-json", `${b.module}@${b.version}`], {
      cwd: moduleDir,
      env,
      signal: opts.signal,
    }),
  ) as { GoMod?: string; Error?: string };
  if (!info.GoMod) {
    throw new DevSetupError(
      `Cannot download ${b.module}@${b.version}: ${info.Error ?? "no go.mod"}`,
    );
  }
  await Deno.writeTextFile(`${moduleDir}/go.mod`, b.goMod(await Deno.readTextFile(info.GoMod)));

  const tmpBin = `${versionDir}/bin.tmp-${Deno.pid}`;
  await Deno.remove(tmpBin, { recursive: true }).catch(ignoreNotFound);
  await Deno.mkdir(tmpBin, { recursive: true });
  // -v lists each package as it is compiled: the log doubles as a progress counter. One
  // command gets its name explicitly (etcd's package would be named after its path, "server");
  // several go into the dir under their own names (`cmd/kubectl` → kubectl).
  const out = names.length === 1 ? `${tmpBin}/${names[0]}` : `${tmpBin}/`;
  const tags = b.tags?.length ? ["-tags", b.tags.join(",")] : [];
  if (b.testBinary && names.length !== 1) {
    throw new DevSetupError(`Cannot build ${b.what}: go test -c builds one package at a time`);
  }
  const verb = b.testBinary ? ["test", "-c"] : ["build", "-v"];
  const args = [...verb, "-mod=mod", ...tags, "-ldflags", b.ldflags, "-o", out];
  const child = new Deno.Command("sh", {
    args: ["-c", 'exec "$0" "$@" >"$BUILD_LOG" 2>&1', "go", ...args, ...Object.values(b.commands)],
    cwd: moduleDir,
    env: { ...env, BUILD_LOG: logFile },
    stdin: "null",
    stdout: "null",
    stderr: "null",
    signal: opts.signal,
  }).spawn();
  const stopTicker = realClock.every(30_000, () => {
    countLines(logFile).then(
      (n) =>
        opts.log(
          b.testBinary
            ? `  still building ${b.what}: ${since(started)}`
            : `  still building ${b.what}: ${n} packages compiled, ${since(started)}`,
        ),
      (err) => opts.log(`  still building ${b.what} (cannot read ${logFile}: ${err})`),
    );
  }, { signal: opts.signal });
  let status: Deno.CommandStatus;
  try {
    status = await child.status;
  } finally {
    stopTicker();
  }
  if (!status.success) {
    await Deno.remove(tmpBin, { recursive: true }).catch(ignoreNotFound);
    throw new DevSetupError(
      `Cannot build ${b.what}: go build exited with ${status.code}:\n${await buildErrors(logFile)}`,
    );
  }
  for (const name of names) {
    if (!(await exists(`${tmpBin}/${name}`))) {
      throw new DevSetupError(`Cannot build ${b.what}: go build produced no ${name} in ${tmpBin}`);
    }
  }
  // Replace the bin dir as a whole: a reader sees the old set or the new one, never a mix.
  const old = `${versionDir}/bin.old-${Deno.pid}`;
  if (await exists(b.bin)) await Deno.rename(b.bin, old);
  await Deno.rename(tmpBin, b.bin);
  await Deno.remove(old, { recursive: true }).catch(ignoreNotFound);
  opts.log(`built ${b.what} into ${b.bin} in ${since(started)}`);
}

/**
 * Go's module and build caches under the build root, so one `rm -r` frees everything and the
 * user's own GOFLAGS/GOPATH settings do not change what is built.
 */
function goEnv(root: string): Record<string, string> {
  return {
    GOMODCACHE: `${root}/go/mod`,
    GOCACHE: `${root}/go/build-cache`,
    GOPATH: `${root}/go/path`,
    // -modcacherw: the module cache stays removable; -trimpath: no build paths in binaries.
    GOFLAGS: "-modcacherw -trimpath -buildvcs=false",
    GOTOOLCHAIN: "local",
    GOWORK: "off",
    GO111MODULE: "on",
    // Static binaries, as upstream releases them; no C toolchain needed.
    CGO_ENABLED: "0",
  };
}

async function countLines(file: string): Promise<number> {
  const text = await Deno.readTextFile(file);
  return text.split("\n").filter((s) => s.trim() !== "").length;
}

/** The log without the -v package lines (one import path, no spaces): what went wrong. */
async function buildErrors(logFile: string, lines = 40): Promise<string> {
  const text = await Deno.readTextFile(logFile).catch((err) => `(cannot read ${logFile}: ${err})`);
  const errors = text.split("\n").filter((s) => /\s/.test(s.trim()));
  return `${errors.slice(-lines).join("\n")}\n(full log: ${logFile})`;
}

function since(started: number): string {
  const s = Math.round((realClock.now() - started) / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
}

function ignoreNotFound(err: unknown): void {
  if (!(err instanceof Deno.errors.NotFound)) throw err;
}
