/**
 * containerd 2 built from the Go module proxy, for what Debian's containerd 1.6 cannot show: the
 * runtime's container events (CRI GetContainerEvents, served from containerd 1.7 on) that drive
 * the evented PLEG. Built once per machine into `<devDir>/containerd-build/<version>/bin`.
 */
import { buildMissing, type GoBuild, throwawayGoMod } from "./_go_build.ts";

export const CONTAINERD_VERSION = "v2.4.2";
const MODULE = "github.com/containerd/containerd/v2";

/** The daemon, its runc shim (found on the daemon's PATH) and ctr. */
const COMMANDS = ["containerd", "containerd-shim-runc-v2", "ctr"] as const;

/** The bin dir of the built containerd for dev dir `devDir`. */
export function containerdBinDir(devDir: string): string {
  return `${devDir}/containerd-build/${CONTAINERD_VERSION}/bin`;
}

/** Builds containerd unless it is in place; returns its bin dir. */
export async function buildContainerd(
  devDir: string,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<string> {
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
  await buildMissing(`${devDir}/containerd-build`, [build], opts);
  return bin;
}
