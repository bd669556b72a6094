/**
 * Builds the control plane's binaries from the Go module proxy into a per-version cache under the
 * dev directory, once per machine. Private to tests/support; `control_plane.ts` is the surface.
 *
 * Kubernetes is not meant to be consumed as a module: its go.mod requires the 31 staging modules
 * (k8s.io/api, k8s.io/client-go, ...) at v0.0.0 and points them at ./staging with `replace`, which
 * a dependent module ignores. A throwaway module that requires k8s.io/kubernetes and replaces each
 * of them with the published v0.<minor>.<patch> builds the upstream commands unchanged.
 */
import { realClock } from "../../src/util/clock.ts";
import { DevSetupError, exists, hasCommand, run } from "./_exec.ts";

export const KUBERNETES_VERSION = "v1.37.2";
export const ETCD_VERSION = "v3.7.3";

/** The upstream commands built from k8s.io/kubernetes, by binary name. */
export const KUBERNETES_COMMANDS = [
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubectl",
  "kubelet",
] as const;
export type KubernetesCommand = typeof KUBERNETES_COMMANDS[number];

/** Where the binaries, the throwaway modules and Go's own caches live. */
export interface BuildLayout {
  /** `<devDir>/control-plane` */
  root: string;
  /** `<root>/<kubernetes version>/bin` */
  kubernetesBin: string;
  /** `<root>/etcd/<etcd version>/bin` */
  etcdBin: string;
  lockFile: string;
}

export function buildLayout(devDir: string): BuildLayout {
  const root = `${devDir}/control-plane`;
  return {
    root,
    kubernetesBin: `${root}/${KUBERNETES_VERSION}/bin`,
    etcdBin: `${root}/etcd/${ETCD_VERSION}/bin`,
    lockFile: `${root}/.lock`,
  };
}

/** One `go build` of main packages from one upstream module into one bin dir. */
interface GoBuild {
  /** For messages: "kubernetes v1.37.2". */
  what: string;
  module: string;
  version: string;
  /** The bin dir; the throwaway module and the build log sit beside it. */
  bin: string;
  /** Binary name → import path of its main package. */
  commands: Record<string, string>;
  ldflags: string;
  goMod(upstreamGoMod: string): string;
}

/**
 * Builds whatever binary is missing (all of a module's binaries together, into a temp dir that
 * replaces the bin dir when complete), under a lock file so that parallel test files build once.
 * Returns at once when everything is in place.
 */
export async function buildControlPlane(
  devDir: string,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<BuildLayout> {
  const l = buildLayout(devDir);
  await Deno.mkdir(l.root, { recursive: true });
  const builds = [kubernetesBuild(l), etcdBuild(l)];
  if (await allPresent(builds)) return l;
  const file = await Deno.open(l.lockFile, { create: true, write: true });
  try {
    // flock(2): released by the kernel if this process dies mid-build.
    await file.lock(true);
    let built = false;
    for (const b of builds) {
      if (await allPresent([b])) continue;
      await goBuild(l, b, opts);
      built = true;
    }
    // The build cache (4 GB after kubernetes; etcd, built next, reuses its gRPC and etcd client
    // packages) is worth nothing once the binaries are cached by version. The module cache
    // (under 1 GB) stays for the next version's download.
    if (built) await Deno.remove(goEnv(l).GOCACHE, { recursive: true }).catch(ignoreNotFound);
  } finally {
    file.close();
  }
  return l;
}

function kubernetesBuild(l: BuildLayout): GoBuild {
  const pkg = "k8s.io/component-base/version";
  const clientPkg = "k8s.io/client-go/pkg/version";
  const [major, minor] = KUBERNETES_VERSION.slice(1).split(".");
  // What hack/lib/version.sh stamps, so `kubectl version` and the API server's /version say
  // v1.37.2 instead of v0.0.0-master.
  const stamps = [pkg, clientPkg].flatMap((p) => [
    `-X ${p}.gitVersion=${KUBERNETES_VERSION}`,
    `-X ${p}.gitMajor=${major}`,
    `-X ${p}.gitMinor=${minor}`,
    `-X ${p}.gitTreeState=clean`,
  ]);
  return {
    what: `kubernetes ${KUBERNETES_VERSION}`,
    module: "k8s.io/kubernetes",
    version: KUBERNETES_VERSION,
    bin: l.kubernetesBin,
    commands: Object.fromEntries(
      KUBERNETES_COMMANDS.map((c) => [c, `k8s.io/kubernetes/cmd/${c}`]),
    ),
    ldflags: ["-s", "-w", ...stamps].join(" "),
    goMod: (upstream) => kubernetesGoMod(upstream, KUBERNETES_VERSION),
  };
}

function etcdBuild(l: BuildLayout): GoBuild {
  return {
    what: `etcd ${ETCD_VERSION}`,
    module: "go.etcd.io/etcd/server/v3",
    version: ETCD_VERSION,
    bin: l.etcdBin,
    // The server module's root package is the etcd command.
    commands: { etcd: "go.etcd.io/etcd/server/v3" },
    ldflags: "-s -w",
    goMod: (upstream) =>
      throwawayGoMod("denolet.test/etcd-build", upstream, [
        `require go.etcd.io/etcd/server/v3 ${ETCD_VERSION}`,
      ]),
  };
}

/**
 * The staging modules kubernetes' go.mod requires at v0.0.0 (its `replace` points them at
 * ./staging), each with the published version that matches the release: v1.37.2 → v0.37.2.
 */
export function stagingModules(upstreamGoMod: string, version: string): Map<string, string> {
  const published = version.replace(/^v1\./, "v0.");
  const out = new Map<string, string>();
  for (const m of upstreamGoMod.matchAll(/^\s*(?:require\s+)?(k8s\.io\/\S+)\s+v0\.0\.0\s*$/gm)) {
    out.set(m[1], published);
  }
  return out;
}

/** go.mod of the throwaway module that builds kubernetes' commands at `version`. */
export function kubernetesGoMod(upstreamGoMod: string, version: string): string {
  const staging = stagingModules(upstreamGoMod, version);
  if (staging.size === 0) {
    throw new DevSetupError(
      `Cannot build kubernetes ${version}: its go.mod requires no k8s.io module at v0.0.0`,
    );
  }
  const replaces = [...staging].map(([mod, v]) => `\t${mod} => ${mod} ${v}`);
  return throwawayGoMod("denolet.test/kubernetes-build", upstreamGoMod, [
    `require k8s.io/kubernetes ${version}`,
    `replace (\n${replaces.join("\n")}\n)`,
  ]);
}

/**
 * A module named `name` with the upstream's `go` and `godebug` directives (a dependency's own
 * are ignored, and they choose the GODEBUG defaults the binaries are meant to run with).
 */
function throwawayGoMod(name: string, upstreamGoMod: string, body: string[]): string {
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
  l: BuildLayout,
  b: GoBuild,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<void> {
  if (!(await hasCommand("go"))) {
    throw new DevSetupError(`Cannot build ${b.what}: the go command is not on PATH`);
  }
  const versionDir = b.bin.slice(0, b.bin.lastIndexOf("/"));
  const moduleDir = `${versionDir}/module`;
  const logFile = `${versionDir}/build.log`;
  const env = goEnv(l);
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
  const args = ["build", "-mod=mod", "-v", "-ldflags", b.ldflags, "-o", out];
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
      (n) => opts.log(`  still building ${b.what}: ${n} packages compiled, ${since(started)}`),
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
 * Go's module and build caches under the control-plane dir, so one `rm -r` frees everything and
 * the user's own GOFLAGS/GOPATH settings do not change what is built.
 */
function goEnv(l: BuildLayout): Record<string, string> {
  return {
    GOMODCACHE: `${l.root}/go/mod`,
    GOCACHE: `${l.root}/go/build-cache`,
    GOPATH: `${l.root}/go/path`,
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
