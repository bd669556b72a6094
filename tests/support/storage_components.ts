/**
 * The storage components the e2e suites deploy as pods on the denolet node, as clusters deploy
 * them: rancher's local-path-provisioner (k3s's default StorageClass). Built once per machine
 * from the Go module proxy beside the control plane's binaries (cached by version, under the
 * same lock and module cache), packed with busybox into a local image and imported into the
 * containerd the test node uses.
 */
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
