/**
 * Builds the upstream e2e suite (`e2e.test`), the `ginkgo` runner that drives it and `agnhost`
 * (the e2e suite's multi-purpose test image binary) from the Go module proxy, once per machine,
 * cached under `<devDir>/conformance`. Private to the conformance folder.
 *
 * Each build has a throwaway module of its own, apart from the control plane's: `go build
 * -mod=mod` of another package in a module records that package's requirements in its go.mod,
 * which changes the staging modules' versions and with them every build-cache key.
 */
import {
  KUBERNETES_VERSION,
  kubernetesGoMod,
  kubernetesVersionStamps,
} from "../_control_plane_build.ts";
import { buildMissing, type GoBuild, throwawayGoMod } from "../_go_build.ts";

/** The ginkgo that k8s.io/kubernetes v1.37.2's go.mod requires: the CLI matches the library. */
export const GINKGO_VERSION = "v2.32.0";

export interface ConformanceBuild {
  /** `<devDir>/conformance`: Go's caches and the lock. */
  root: string;
  e2eTest: string;
  ginkgo: string;
  agnhost: string;
  /** The nonewprivs image's setuid program (prints its effective uid). */
  nnp: string;
  /** k8s.io/kubernetes's source in the module cache (the images' data files). */
  kubernetesSource: string;
}

export function conformanceLayout(devDir: string): ConformanceBuild {
  const root = `${devDir}/conformance`;
  return {
    root,
    e2eTest: `${root}/e2e/${KUBERNETES_VERSION}/bin/e2e.test`,
    agnhost: `${root}/agnhost/${KUBERNETES_VERSION}/bin/agnhost`,
    ginkgo: `${root}/ginkgo/${GINKGO_VERSION}/bin/ginkgo`,
    nnp: `${root}/nonewprivs/${KUBERNETES_VERSION}/bin/nnp`,
    // Where _go_build.ts's GOMODCACHE puts the module (`go mod download` of the build).
    kubernetesSource: `${root}/go/mod/k8s.io/kubernetes@${KUBERNETES_VERSION}`,
  };
}

/**
 * Builds whatever is missing; cold, e2e.test is 20–40 minutes on 2 cores (about 2 900 packages).
 * agnhost is built right after it and reuses most of its build cache.
 */
export async function buildConformance(
  devDir: string,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<ConformanceBuild> {
  const l = conformanceLayout(devDir);
  await buildMissing(l.root, [
    e2eBuild(l),
    agnhostBuild(l),
    kubernetesPackage("nonewprivs", l.nnp, "k8s.io/kubernetes/test/images/nonewprivs"),
    ginkgoBuild(l),
  ], opts);
  return l;
}

function kubernetesPackage(what: string, bin: string, pkg: string): GoBuild {
  const name = bin.slice(bin.lastIndexOf("/") + 1);
  return {
    what: `${what} ${KUBERNETES_VERSION}`,
    module: "k8s.io/kubernetes",
    version: KUBERNETES_VERSION,
    bin: bin.slice(0, bin.lastIndexOf("/")),
    commands: { [name]: pkg },
    ldflags: ["-s", "-w", ...kubernetesVersionStamps()].join(" "),
    goMod: (upstream) =>
      kubernetesGoMod(upstream, KUBERNETES_VERSION, { name: "denolet.test/conformance-build" }),
  };
}

function e2eBuild(l: ConformanceBuild): GoBuild {
  return {
    ...kubernetesPackage("the e2e suite", l.e2eTest, "k8s.io/kubernetes/test/e2e"),
    testBinary: true,
  };
}

function agnhostBuild(l: ConformanceBuild): GoBuild {
  return kubernetesPackage("agnhost", l.agnhost, "k8s.io/kubernetes/test/images/agnhost");
}

function ginkgoBuild(l: ConformanceBuild): GoBuild {
  return {
    what: `ginkgo ${GINKGO_VERSION}`,
    module: "github.com/onsi/ginkgo/v2",
    version: GINKGO_VERSION,
    bin: l.ginkgo.slice(0, l.ginkgo.lastIndexOf("/")),
    commands: { ginkgo: "github.com/onsi/ginkgo/v2/ginkgo" },
    ldflags: "-s -w",
    goMod: (upstream) =>
      throwawayGoMod("denolet.test/ginkgo-build", upstream, [
        `require github.com/onsi/ginkgo/v2 ${GINKGO_VERSION}`,
      ]),
  };
}
