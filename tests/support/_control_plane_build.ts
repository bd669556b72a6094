/**
 * Builds the control plane's binaries from the Go module proxy into a per-version cache under the
 * dev directory, once per machine. Private to tests/support; `control_plane.ts` is the surface.
 *
 * Kubernetes is not meant to be consumed as a module: its go.mod requires the 31 staging modules
 * (k8s.io/api, k8s.io/client-go, ...) at v0.0.0 and points them at ./staging with `replace`, which
 * a dependent module ignores. A throwaway module that requires k8s.io/kubernetes and replaces each
 * of them with the published v0.<minor>.<patch> builds the upstream commands unchanged.
 */
import { DevSetupError } from "./_exec.ts";
import { buildMissing, type GoBuild, throwawayGoMod } from "./_go_build.ts";

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
}

export function buildLayout(devDir: string): BuildLayout {
  const root = `${devDir}/control-plane`;
  return {
    root,
    kubernetesBin: `${root}/${KUBERNETES_VERSION}/bin`,
    etcdBin: `${root}/etcd/${ETCD_VERSION}/bin`,
  };
}

/** Builds the control plane's binaries unless they are in place (see `buildMissing`). */
export async function buildControlPlane(
  devDir: string,
  opts: { log: (s: string) => void; signal?: AbortSignal },
): Promise<BuildLayout> {
  const l = buildLayout(devDir);
  await buildMissing(l.root, [kubernetesBuild(l), etcdBuild(l)], opts);
  return l;
}

function kubernetesBuild(l: BuildLayout): GoBuild {
  return {
    what: `kubernetes ${KUBERNETES_VERSION}`,
    module: "k8s.io/kubernetes",
    version: KUBERNETES_VERSION,
    bin: l.kubernetesBin,
    commands: Object.fromEntries(
      KUBERNETES_COMMANDS.map((c) => [c, `k8s.io/kubernetes/cmd/${c}`]),
    ),
    ldflags: ["-s", "-w", ...kubernetesVersionStamps()].join(" "),
    goMod: (upstream) => kubernetesGoMod(upstream, KUBERNETES_VERSION),
  };
}

/**
 * What hack/lib/version.sh stamps, so `kubectl version` and the API server's /version say
 * v1.37.2 instead of v0.0.0-master: `-X` linker flags.
 */
export function kubernetesVersionStamps(): string[] {
  const [major, minor] = KUBERNETES_VERSION.slice(1).split(".");
  return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((p) => [
    `-X ${p}.gitVersion=${KUBERNETES_VERSION}`,
    `-X ${p}.gitMajor=${major}`,
    `-X ${p}.gitMinor=${minor}`,
    `-X ${p}.gitTreeState=clean`,
  ]);
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

/**
 * go.mod of the throwaway module that builds kubernetes' commands at `version`; `name` names the
 * module (each build of other kubernetes packages has a module of its own, see conformance).
 */
export function kubernetesGoMod(
  upstreamGoMod: string,
  version: string,
  opts: { name?: string } = {},
): string {
  const staging = stagingModules(upstreamGoMod, version);
  if (staging.size === 0) {
    throw new DevSetupError(
      `Cannot build kubernetes ${version}: its go.mod requires no k8s.io module at v0.0.0`,
    );
  }
  const replaces = [...staging].map(([mod, v]) => `\t${mod} => ${mod} ${v}`);
  return throwawayGoMod(opts.name ?? "denolet.test/kubernetes-build", upstreamGoMod, [
    `require k8s.io/kubernetes ${version}`,
    `replace (\n${replaces.join("\n")}\n)`,
  ]);
}
