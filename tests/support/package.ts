/**
 * `deno task package`: one self-contained executable file per target, built from what the
 * registries carry, without `denort` (see compile.ts for `deno compile`).
 *
 *   deno task package                                 # dist/denolet-linux-{amd64,arm64}, SHA256SUMS
 *   deno task package aarch64-unknown-linux-gnu       # one target
 *   deno task package -- --config ./node.yaml         # the permission set of another layout
 *   deno task package --probe-networks 10.42.0.0/16 --host-path /srv
 *
 * Each file is a POSIX shell header (`_package_header.ts`) followed by a gzip'd tar of the Deno
 * runtime from the npm registry (pinned in `_package_runtime.ts`) and `deno bundle` of main.ts
 * (an entry file and the chunks it imports when a feature is first used, see `bundleAgent`),
 * built from a temporary copy of the sources whose build_info.json records the commit,
 * "compiled" and "packed", and whose generated proto modules are regenerated from proto/. The
 * header runs the bundle with the V8 flags and exactly the permission set compile bakes
 * (`denolet permissions` for the same configuration). Same sources, Deno and pins give the same
 * bytes; `dist/SHA256SUMS` lists the files written.
 */
import { AGENT_V8_FLAGS, BUILD_INFO, renderBuildInfo } from "../../src/build_info/mod.ts";
import type { BakedPermissionOptions } from "../../src/build_info/mod.ts";
import { LAYOUT } from "../../src/install/mod.ts";
import { errorMessage } from "../../src/util/log.ts";
import { bakedPermissionFlags, copySources, parseCompileArgs, sourceCommit } from "./compile.ts";
import { devDir } from "./containerd.ts";
import { DevSetupError, run, sha256Hex } from "./_exec.ts";
import {
  buildId,
  BUNDLE_FILE,
  bundleDigestInput,
  type ParsedHeader,
  parseHeader,
  renderHeader,
  RUN_FLAGS,
  RUNTIME_FILE,
} from "./_package_header.ts";
import {
  type ElfInfo,
  elfInfo,
  fetchRuntime,
  PACK_TARGETS,
  type PackTarget,
} from "./_package_runtime.ts";
import { concat, gunzip, gzip, readTar, writeTar } from "./_package_tar.ts";
import { generateCodecModules } from "./proto_codec.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface BuildPackagesOptions {
  targets?: readonly PackTarget[];
  /** Where the files and SHA256SUMS go; default dist/. */
  outDir?: string;
  /** Agent flags choosing the configuration whose permission set is baked (default: install layout). */
  agentArgs?: readonly string[];
  permissionOptions?: BakedPermissionOptions;
  /** Where runtime tarballs are kept; default `<dev dir>/npm-runtime`. */
  cacheDir?: string;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

export interface BuiltPackage {
  target: PackTarget;
  path: string;
  sha256: string;
  bytes: number;
  /** The unpack directory's name. */
  build: string;
}

export interface BuildResult {
  commit: string;
  permissionFlags: string[];
  /** The agent bundle every target carries. */
  bundle: BundleFile[];
  packages: BuiltPackage[];
  sumsFile: string;
}

/** Builds the packed files; throws DevSetupError naming the step that failed. */
export async function buildPackages(opts: BuildPackagesOptions = {}): Promise<BuildResult> {
  const targets = opts.targets ?? PACK_TARGETS;
  const outDir = opts.outDir ?? `${ROOT}dist`;
  const log = opts.log ?? (() => {});
  const flags = await bakedPermissionFlags(opts.agentArgs ?? [], opts.permissionOptions);
  const commit = await sourceCommit();
  const bundle = await bundleAgent({
    info: renderBuildInfo({
      commit,
      compiled: true,
      packed: true,
      permissionOptions: opts.permissionOptions,
    }),
    signal: opts.signal,
  });
  const bytes = bundle.reduce((n, f) => n + f.data.length, 0);
  log(
    `package: commit ${commit}, bundle ${bytes} bytes in ${bundle.length} files, ` +
      `permissions: ${flags.join(" ")}`,
  );
  await Deno.mkdir(outDir, { recursive: true });
  const packages: BuiltPackage[] = [];
  for (const target of targets) {
    const runtime = await fetchRuntime(target, {
      cacheDir: opts.cacheDir ?? `${devDir()}/npm-runtime`,
      log,
      signal: opts.signal,
    });
    const elf = elfInfo(runtime);
    if (elf.machine !== target.elfMachine) {
      throw new DevSetupError(
        `${target.runtime.package} holds a runtime for ELF machine ${elf.machine}, not ` +
          `${target.elfMachine} (${target.target})`,
      );
    }
    const { file, build } = await packFile({
      target,
      runtime,
      bundle,
      commit,
      interpreter: elf.interpreter,
      permissionFlags: flags,
    });
    const path = `${outDir}/${target.file}`;
    await Deno.writeFile(`${path}.tmp`, file, { mode: 0o755 });
    await Deno.chmod(`${path}.tmp`, 0o755);
    await Deno.rename(`${path}.tmp`, path);
    const built = { target, path, sha256: await sha256Hex(file), bytes: file.length, build };
    packages.push(built);
    log(`package: wrote ${path} (${built.bytes} bytes, runtime ${target.runtime.version})`);
  }
  const sumsFile = `${outDir}/SHA256SUMS`;
  await Deno.writeTextFile(
    sumsFile,
    packages.map((p) => `${p.sha256}  ${p.target.file}\n`).join(""),
  );
  return { commit, permissionFlags: flags, bundle, packages, sumsFile };
}

/** One file of the agent bundle: a name of `[A-Za-z0-9._-]` and its bytes. */
export interface BundleFile {
  name: string;
  data: Uint8Array;
}

export interface PackInput {
  target: PackTarget;
  runtime: Uint8Array;
  /** BUNDLE_FILE (the entry) first, then the chunks it imports. */
  bundle: readonly BundleFile[];
  commit: string;
  /** The runtime's ELF loader, checked for on the node; none for a static runtime. */
  interpreter?: string;
  permissionFlags: readonly string[];
  /** Default AGENT_V8_FLAGS. */
  v8Flags?: string;
}

/** One packed file: the header, then the payload. A pure function of its input. */
export async function packFile(input: PackInput): Promise<{ file: Uint8Array; build: string }> {
  const payload = gzip(writeTar([
    { name: RUNTIME_FILE, mode: 0o555, data: input.runtime },
    ...input.bundle.map((f) => ({ name: f.name, mode: 0o444, data: f.data })),
  ]));
  const payloadSha256 = await sha256Hex(payload);
  const other = PACK_TARGETS.find((t) => t.file !== input.target.file);
  const header = renderHeader({
    version: BUILD_INFO.version,
    commit: input.commit,
    target: input.target.target,
    machines: input.target.machines,
    otherFile: other?.file,
    interpreter: input.interpreter,
    runtime: `${input.target.runtime.package} ${input.target.runtime.version}`,
    rootUnpackDir: LAYOUT.unpackDir,
    payloadSha256,
    runtimeSha256: await sha256Hex(input.runtime),
    bundleFiles: input.bundle.map((f) => f.name),
    bundleSha256: await bundleDigest(input.bundle),
    v8Flags: input.v8Flags ?? AGENT_V8_FLAGS,
    permissionFlags: input.permissionFlags,
  });
  return {
    file: concat([new TextEncoder().encode(header), payload]),
    build: buildId({ version: BUILD_INFO.version, commit: input.commit, payloadSha256 }),
  };
}

/** The bundle's SHA-256 as the header checks it (`bundleDigestInput`). */
async function bundleDigest(files: readonly BundleFile[]): Promise<string> {
  const sums = [];
  for (const f of files) sums.push({ name: f.name, sha256: await sha256Hex(f.data) });
  return await sha256Hex(new TextEncoder().encode(bundleDigestInput(sums)));
}

export interface Inspection {
  header: ParsedHeader;
  runtime: Uint8Array;
  bundle: BundleFile[];
  elf: ElfInfo;
}

/**
 * Checks a packed file's structure without running it: the header's fields, the payload's
 * SHA-256, the files in it and theirs, and the runtime's ELF header. Throws naming the first
 * thing that does not hold.
 */
export async function inspectPackage(file: Uint8Array): Promise<Inspection> {
  const header = parseHeader(file);
  const payload = file.subarray(header.payloadOffset);
  const payloadSha = await sha256Hex(payload);
  if (payloadSha !== header.payloadSha256) {
    throw new Error(`payload SHA-256 ${payloadSha}, header says ${header.payloadSha256}`);
  }
  const entries = readTar(gunzip(payload));
  const names = entries.map((e) => e.name);
  if (names.join(",") !== [RUNTIME_FILE, ...header.bundleFiles].join(",")) {
    throw new Error(`the payload holds ${names.join(", ")}`);
  }
  if (header.bundleFiles[0] !== BUNDLE_FILE) throw new Error(`the entry is not ${BUNDLE_FILE}`);
  const [runtime, ...rest] = entries.map((e) => e.data);
  const bundle = rest.map((data, i) => ({ name: header.bundleFiles[i], data }));
  if (await sha256Hex(runtime) !== header.runtimeSha256) throw new Error("runtime SHA-256 differs");
  if (await bundleDigest(bundle) !== header.bundleSha256) throw new Error("bundle SHA-256 differs");
  return { header, runtime, bundle, elf: elfInfo(runtime) };
}

/**
 * What keeps the agent's idle memory low (issue 14): V8 holds the whole bundle's source text for
 * as long as the agent runs, so minifying it (no comments, short local names) saves ~6 MB of RSS
 * against the plain bundle (measured with `tests/bench/memory_breakdown.ts`). Minified output is
 * also pure ASCII, which V8 stores one byte per character (a single non-ASCII character anywhere
 * would make the whole text two bytes per character). grpc-js `require`s @grpc/proto-loader (and
 * so protobufjs) only inside its channelz and ORCA server features, which read `.proto` files the
 * package does not carry and the agent never uses: leaving it out drops ~140 KB of source.
 * Logs carry error messages, not class names, so minified names show only in a crash's stack.
 * Code splitting puts what only dynamic imports reach (API mode, TLS, CSI, credential
 * providers, the upstream-settings table, ...) in chunk files of their own, which the agent
 * reads only when it first uses them: with one file V8 would hold their text (and the functions
 * that declare them) all the same, ~0.6 MB of heap at idle in standalone mode.
 */
const BUNDLE_SIZE_FLAGS = ["--minify", "--external", "@grpc/proto-loader", "--code-splitting"];

/**
 * `deno bundle` of main.ts in a temporary copy of the sources holding `info` as build_info.json.
 * npm packages come through a node_modules directory inside the copy, so the module paths the
 * bundle records are the same wherever the Deno cache lives. `entry` bundles another program
 * written beside main.ts instead (its imports relative to the repository root), the same way:
 * `memory_breakdown.ts` measures parts of the agent as the single file would run them.
 * Returns the entry, BUNDLE_FILE, first and then its chunks by name; they import each other by
 * relative path, so they run from one directory (`writeBundle`).
 */
export async function bundleAgent(
  opts: { info: string; entry?: string; signal?: AbortSignal },
): Promise<BundleFile[]> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-package-" });
  try {
    await copySources(dir, opts.info);
    await generateCodecModules(`${dir}/`);
    // Named so that the entry chunk comes out as BUNDLE_FILE.
    const entry = BUNDLE_FILE.replace(/\.js$/, ".ts");
    await Deno.writeTextFile(
      `${dir}/${entry}`,
      opts.entry ?? await Deno.readTextFile(`${dir}/main.ts`),
    );
    const outDir = `${dir}/.bundle`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--platform",
        "deno",
        "--node-modules-dir=auto",
        ...BUNDLE_SIZE_FLAGS,
        "--outdir",
        outDir,
        entry,
      ],
      cwd: dir,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
      signal: opts.signal,
    }).output();
    if (!out.success) {
      const err = new TextDecoder().decode(out.stderr).trim();
      throw new DevSetupError(`deno bundle of ${entry} failed:\n${err}`);
    }
    const names: string[] = [];
    for await (const e of Deno.readDir(outDir)) {
      if (!e.isFile) throw new DevSetupError(`deno bundle wrote ${e.name}, not a file`);
      if (e.name !== BUNDLE_FILE) names.push(e.name);
    }
    names.sort();
    const files: BundleFile[] = [];
    for (const name of [BUNDLE_FILE, ...names]) {
      files.push({ name, data: await Deno.readFile(`${outDir}/${name}`) });
    }
    return files;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes the bundle's files into `dir`; returns the entry's path, what `deno run` runs. */
export async function writeBundle(dir: string, files: readonly BundleFile[]): Promise<string> {
  for (const f of files) await Deno.writeFile(`${dir}/${f.name}`, f.data);
  return `${dir}/${BUNDLE_FILE}`;
}

/**
 * Runs a bundle once with `--version`, as the package's header does on a first start, so that
 * Deno's caches are filled before the agent runs from it (the bench measures it afterwards).
 * `denoDir`: the caches' directory (the header's `$dir/deno_dir`); default Deno's own.
 */
export async function warmBundle(
  file: string,
  opts: { v8Flags: string; denoDir?: string; signal?: AbortSignal },
): Promise<void> {
  const args = ["run", ...RUN_FLAGS, "-A", `--v8-flags=${opts.v8Flags}`, file, "--version"];
  await run(Deno.execPath(), args, {
    signal: opts.signal,
    env: opts.denoDir ? { DENO_DIR: opts.denoDir } : undefined,
  });
}

async function main(args: string[]): Promise<number> {
  try {
    const req = parseCompileArgs(args);
    const targets = PACK_TARGETS.filter((t) => req.targets.includes(t.target));
    const res = await buildPackages({
      targets,
      agentArgs: req.agentArgs,
      permissionOptions: req.permissionOptions,
      log: (line) => console.log(line),
    });
    console.log(`package: wrote ${res.sumsFile}`);
    return 0;
  } catch (err) {
    console.error(`package: ${errorMessage(err)}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
