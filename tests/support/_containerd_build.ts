/**
 * containerd 2 built from the Go module proxy, for what Debian's containerd 1.6 cannot show: the
 * runtime's container events (CRI GetContainerEvents, served from containerd 1.7 on) that drive
 * the evented PLEG, and user namespaces (the handler feature `user_namespaces`). Built once per
 * machine into `<devDir>/containerd-build/<version>/bin`, with a runc of its generation beside it
 * in `<devDir>/containerd-build/runc-<version>/bin`: Debian 12's runc 1.1.5 has no idmapped
 * mounts (`runc features` lists no `mountExtensions.idmap`), so containerd 2 would report no
 * user namespace support with it.
 */
import { run, tryRun } from "./_exec.ts";
import { buildMissing, type GoBuild, throwawayGoMod } from "./_go_build.ts";

export const CONTAINERD_VERSION = "v2.4.2";
const MODULE = "github.com/containerd/containerd/v2";
/** The runc release line containerd 2.4 is tested with (its script/setup/runc-version). */
export const RUNC_VERSION = "v1.5.3";
const RUNC_MODULE = "github.com/opencontainers/runc";

/** The daemon, its runc shim (found on the daemon's PATH) and ctr. */
const COMMANDS = ["containerd", "containerd-shim-runc-v2", "ctr"] as const;

/** The bin dir of the built containerd for dev dir `devDir`. */
export function containerdBinDir(devDir: string): string {
  return `${devDir}/containerd-build/${CONTAINERD_VERSION}/bin`;
}

/** The bin dir of the built runc for dev dir `devDir`. */
export function runcBinDir(devDir: string): string {
  return `${devDir}/containerd-build/runc-${RUNC_VERSION}/bin`;
}

/**
 * Builds containerd and runc unless they are in place; returns their bin dirs, runc's first
 * (the daemon's PATH: the shim runs the first `runc` it finds).
 */
export async function buildContainerd(
  devDir: string,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<string[]> {
  const bin = containerdBinDir(devDir);
  const build: GoBuild = {
    what: `containerd ${CONTAINERD_VERSION}`,
    module: MODULE,
    version: CONTAINERD_VERSION,
    bin,
    commands: Object.fromEntries(COMMANDS.map((c) => [c, `${MODULE}/cmd/${c}`])),
    // What the release Makefile stamps, so the CRI Version answer names the release.
    ldflags: `-s -w -X ${MODULE}/version.Version=${CONTAINERD_VERSION}`,
    // Snapshotters that need C headers or kernel features the tests do not use.
    tags: ["no_btrfs", "no_devmapper"],
    goMod: (upstream) =>
      throwawayGoMod("denolet.test/containerd-build", upstream, [
        `require ${MODULE} ${CONTAINERD_VERSION}`,
      ]),
  };
  const runcBin = runcBinDir(devDir);
  const runc: GoBuild = {
    what: `runc ${RUNC_VERSION}`,
    module: RUNC_MODULE,
    version: RUNC_VERSION,
    bin: runcBin,
    commands: { runc: RUNC_MODULE },
    ldflags: `-X main.version=${RUNC_VERSION.slice(1)}`,
    // The Makefile's tags less libpathrs (a Rust library Debian does not ship); seccomp links
    // libseccomp, so the build needs cgo and libseccomp-dev.
    tags: ["seccomp", "urfave_cli_no_docs"],
    cgo: true,
    goMod: (upstream) =>
      throwawayGoMod("denolet.test/runc-build", upstream, [
        `require ${RUNC_MODULE} ${RUNC_VERSION}`,
      ]),
  };
  await ensureBuildPackages(["gcc", "pkg-config", "libseccomp-dev"], opts.log);
  await buildMissing(`${devDir}/containerd-build`, [build, runc], opts);
  return [runcBin, bin];
}

/** Installs Debian packages a cgo build needs, when dpkg does not list them as installed. */
async function ensureBuildPackages(names: string[], log: (s: string) => void): Promise<void> {
  const missing: string[] = [];
  for (const name of names) {
    const res = await tryRun("dpkg-query", ["-W", "-f", "${Status}", name]);
    if (res.code !== 0 || !res.stdout.includes("install ok installed")) missing.push(name);
  }
  if (missing.length === 0) return;
  log(`installing ${missing.join(" ")} (to build runc)`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update"], { env });
  await run("apt-get", ["install", "-y", "--no-install-recommends", ...missing], { env });
}
