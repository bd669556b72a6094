/**
 * The CNCF distribution registry (`registry`) built from the Go module proxy, for pulls from a
 * private registry with real authentication. Built once per machine into
 * `<devDir>/registry-build/<version>/bin`. Private to tests/support; `registry.ts` runs it.
 */
import { buildMissing, type GoBuild, throwawayGoMod } from "./_go_build.ts";

export const DISTRIBUTION_VERSION = "v3.1.2";
const MODULE = "github.com/distribution/distribution/v3";

/** Builds the registry unless it is in place; returns the binary's path. */
export async function buildRegistry(
  devDir: string,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<string> {
  const root = `${devDir}/registry-build`;
  const bin = `${root}/${DISTRIBUTION_VERSION}/bin`;
  const build: GoBuild = {
    what: `distribution ${DISTRIBUTION_VERSION}`,
    module: MODULE,
    version: DISTRIBUTION_VERSION,
    bin,
    commands: { registry: `${MODULE}/cmd/registry` },
    ldflags: `-s -w -X ${MODULE}/version.version=${DISTRIBUTION_VERSION}`,
    // The cloud storage drivers are not needed on loopback; the filesystem driver is built in.
    tags: ["noresumabledigest"],
    goMod: (upstream) =>
      throwawayGoMod("denolet.test/registry-build", upstream, [
        `require ${MODULE} ${DISTRIBUTION_VERSION}`,
      ]),
  };
  await buildMissing(root, [build], opts);
  return `${bin}/registry`;
}
