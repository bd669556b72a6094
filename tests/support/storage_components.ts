/**
 * The storage components the e2e suites deploy as pods on the denolet node, as clusters deploy
 * them: rancher's local-path-provisioner (k3s's default StorageClass), and a CSI driver (a
 * small one on csi-test/v5's driver server, images/csi_mock, with a registrar on
 * k8s.io/kubelet's pluginregistration API) with external-provisioner and external-attacher.
 * Built once per machine
 * from the Go module proxy beside the control plane's binaries (cached by version, under the
 * same lock and module cache), packed with busybox into a local image and imported into the
 * containerd the test node uses.
 */
import { exists, run, sha256Hex } from "./_exec.ts";
import { buildMissing, type GoBuild, throwawayGoMod } from "./_go_build.ts";
import { devDir } from "./containerd.ts";
import { ensureBinaryImage, type ImageTarget } from "./images.ts";

export const LOCAL_PATH_VERSION = "v0.0.30";
export const LOCAL_PATH_IMAGE = `denolet.test/local-path-provisioner:${LOCAL_PATH_VERSION}`;
const LOCAL_PATH_MODULE = "github.com/rancher/local-path-provisioner";

const root = () => `${devDir()}/control-plane`;

function localPathBuild(): GoBuild {
  return {
    what: `local-path-provisioner ${LOCAL_PATH_VERSION}`,
    module: LOCAL_PATH_MODULE,
    version: LOCAL_PATH_VERSION,
    bin: `${root()}/local-path-provisioner/${LOCAL_PATH_VERSION}/bin`,
    commands: { "local-path-provisioner": LOCAL_PATH_MODULE },
    ldflags: `-s -w -X main.VERSION=${LOCAL_PATH_VERSION}`,
    goMod: (upstream) =>
      throwawayGoMod("denolet.test/local-path-build", upstream, [
        `require ${LOCAL_PATH_MODULE} ${LOCAL_PATH_VERSION}`,
      ]),
  };
}

/**
 * The local-path-provisioner image (`/usr/bin/local-path-provisioner` on busybox) in the
 * containerd at `rt`, built and imported unless there. Returns the image name.
 */
export async function ensureLocalPathImage(
  rt: ImageTarget,
  opts: { log?: (s: string) => void; signal?: AbortSignal } = {},
): Promise<string> {
  const log = opts.log ?? ((s: string) => console.error(`[denolet-storage] ${s}`));
  const b = localPathBuild();
  await buildMissing(root(), [b], { log, signal: opts.signal });
  return await ensureBinaryImage(rt, LOCAL_PATH_IMAGE, {
    log,
    binaries: { "/usr/bin/local-path-provisioner": `${b.bin}/local-path-provisioner` },
  });
}

export const CSI_PROVISIONER_VERSION = "v6.4.0";
export const CSI_ATTACHER_VERSION = "v4.13.0";
/** The image's name; its tag is the mock's source hash, so a changed mock makes a new image. */
export const CSI_MOCK_IMAGE = "denolet.test/csi-mock";
const CSI_MOCK_SOURCE = new URL("./images/csi_mock", import.meta.url).pathname;

/** The upstream go.mod's replace lines: a dependent module ignores them, so the build restates them. */
function replaces(upstream: string): string[] {
  return upstream.split("\n").filter((l) => /^replace\s+\S+\s+=>/.test(l.trim())).map((l) =>
    l.trim()
  );
}

function sidecarBuild(name: string, module: string, version: string): GoBuild {
  return {
    what: `${name} ${version}`,
    module,
    version,
    bin: `${root()}/${name}/${version}/bin`,
    commands: { [name]: `${module}/cmd/${name}` },
    ldflags: `-s -w -X main.version=${version}`,
    goMod: (upstream) =>
      throwawayGoMod(`denolet.test/${name}-build`, upstream, [
        `require ${module} ${version}`,
        ...replaces(upstream),
      ]),
  };
}

/**
 * The CSI image (`/usr/bin/csi-mock`, `/usr/bin/csi-provisioner`, `/usr/bin/csi-attacher` on
 * busybox) in the containerd at `rt`, built and imported unless there.
 */
export async function ensureCsiImage(
  rt: ImageTarget,
  opts: { log?: (s: string) => void; signal?: AbortSignal } = {},
): Promise<string> {
  const log = opts.log ?? ((s: string) => console.error(`[denolet-storage] ${s}`));
  const provisioner = sidecarBuild(
    "csi-provisioner",
    "github.com/kubernetes-csi/external-provisioner/v6",
    CSI_PROVISIONER_VERSION,
  );
  const attacher = sidecarBuild(
    "csi-attacher",
    "github.com/kubernetes-csi/external-attacher/v4",
    CSI_ATTACHER_VERSION,
  );
  await buildMissing(root(), [provisioner, attacher], { log, signal: opts.signal });
  const mock = await buildCsiMock(log);
  const tag = mock.slice(mock.lastIndexOf("-") + 1);
  return await ensureBinaryImage(rt, `${CSI_MOCK_IMAGE}:${tag}`, {
    log,
    binaries: {
      "/usr/bin/csi-mock": mock,
      "/usr/bin/csi-provisioner": `${provisioner.bin}/csi-provisioner`,
      "/usr/bin/csi-attacher": `${attacher.bin}/csi-attacher`,
    },
  });
}

/** images/csi_mock built with the control plane's module cache, cached by the source's hash. */
async function buildCsiMock(log: (s: string) => void): Promise<string> {
  const parts = await Promise.all(
    ["main.go", "go.mod", "go.sum"].map((f) => Deno.readFile(`${CSI_MOCK_SOURCE}/${f}`)),
  );
  const hash = await sha256Hex(new Uint8Array(parts.flatMap((p) => [...p])));
  const out = `${root()}/csi-mock/csi-mock-${hash.slice(0, 16)}`;
  if (await exists(out)) return out;
  await Deno.mkdir(`${root()}/csi-mock`, { recursive: true });
  log(`building ${out}`);
  const tmp = `${out}.${crypto.randomUUID()}.tmp`;
  await run("go", ["build", "-trimpath", "-ldflags=-s -w", "-o", tmp, "."], {
    cwd: CSI_MOCK_SOURCE,
    env: {
      CGO_ENABLED: "0",
      GOMODCACHE: `${root()}/go/mod`,
      GOFLAGS: "-modcacherw",
      GOTOOLCHAIN: "local",
      GOWORK: "off",
    },
  });
  await Deno.rename(tmp, out);
  return out;
}
