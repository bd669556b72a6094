/**
 * The test images, built locally from the host's static busybox and our own pause binary, and
 * imported into the dev containerd's `k8s.io` namespace (the one the CRI plugin serves).
 */
import { BUSYBOX_PATH } from "./_packages.ts";
import { DevSetupError, exists, hasCommand, run, sha256Hex } from "./_exec.ts";
import { type ImageConfig, writeOciArchive } from "./_oci.ts";

export const BUSYBOX_IMAGE = "denolet.test/busybox:1.35";
export const PAUSE_IMAGE = "denolet.test/pause:1.0";
export const GRPC_HEALTH_IMAGE = "denolet.test/grpc-health:1.0";
export const CRI_NAMESPACE = "k8s.io";

const PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const PAUSE_SOURCE = new URL("./images/pause.c", import.meta.url);
const GRPC_HEALTH_SOURCE = new URL("./images/grpc_health", import.meta.url);
const GO_FALLBACK = "/usr/local/go/bin/go";

/** Where to import: the dev containerd's socket and its directory (for build scratch space). */
export interface ImageTarget {
  socket: string;
  dir: string;
}

export interface EnsureImagesOptions {
  log?: (s: string) => void;
  /** Rebuild and re-import even when the image names are already present. */
  force?: boolean;
}

/** Image names present in the CRI namespace of the containerd at `socket`. */
export async function listImages(socket: string): Promise<string[]> {
  const out = await run("ctr", ["--address", socket, "-n", CRI_NAMESPACE, "images", "ls", "-q"]);
  return out.split("\n").map((s) => s.trim()).filter((s) => s !== "");
}

/**
 * Builds and imports the busybox and pause images unless already present. Idempotent;
 * callers that may race should hold the dev directory lock (as `ensureContainerd` does).
 */
export async function ensureImages(rt: ImageTarget, opts: EnsureImagesOptions = {}): Promise<void> {
  const log = opts.log ?? (() => {});
  const present = new Set(opts.force ? [] : await listImages(rt.socket));
  const builders: [string, (root: string) => Promise<ImageConfig>][] = [
    [BUSYBOX_IMAGE, (root) => busyboxRootfs(root)],
    [PAUSE_IMAGE, (root) => pauseRootfs(root, log)],
  ];
  for (const [name, build] of builders) {
    if (!present.has(name)) await buildAndImport(rt, name, { build, log });
  }
  const after = new Set(await listImages(rt.socket));
  for (const [name] of builders) {
    if (!after.has(name)) throw new DevSetupError(`Image ${name} is missing after import`);
  }
}

/**
 * Builds a rootfs with `opts.build`, writes it as a one-layer OCI archive named `name` and imports
 * it into the CRI namespace at `rt.socket` (scratch space under `<rt.dir>/images`).
 */
export async function buildAndImport(
  rt: ImageTarget,
  name: string,
  opts: { build: (root: string) => Promise<ImageConfig>; log: (s: string) => void },
): Promise<void> {
  await Deno.mkdir(`${rt.dir}/images`, { recursive: true });
  const work = await Deno.makeTempDir({ dir: `${rt.dir}/images`, prefix: "build-" });
  try {
    const rootfs = `${work}/rootfs`;
    await Deno.mkdir(rootfs);
    const config = await opts.build(rootfs);
    const out = `${work}/image.tar`;
    await writeOciArchive({ name, rootfs, config, workDir: work, out });
    opts.log(`importing ${name}`);
    await run("ctr", ["--address", rt.socket, "-n", CRI_NAMESPACE, "images", "import", out]);
  } catch (err) {
    throw new DevSetupError(`Cannot build and import image ${name}`, { cause: err });
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

/**
 * The Go toolchain's `go` command, or undefined when Go is not installed (the gRPC health image
 * cannot be built then; its tests skip).
 */
export async function findGo(): Promise<string | undefined> {
  if (await hasCommand("go")) return "go";
  if (await exists(GO_FALLBACK)) return GO_FALLBACK;
  return undefined;
}

/**
 * Builds and imports `denolet.test/grpc-health:1.0` unless present: busybox (for exec) plus the
 * static grpc.health.v1 server of images/grpc_health as entrypoint (`-port`, default 50051;
 * NOT_SERVING while `-unhealthy-file`, default /tmp/unhealthy, exists). The binary is cached
 * under `<dev dir>/bin`, keyed by the source's hash. Throws a DevSetupError when Go is missing.
 */
export async function ensureGrpcHealthImage(
  rt: ImageTarget,
  opts: EnsureImagesOptions = {},
): Promise<string> {
  const log = opts.log ?? (() => {});
  if (!opts.force && (await listImages(rt.socket)).includes(GRPC_HEALTH_IMAGE)) {
    return GRPC_HEALTH_IMAGE;
  }
  const binary = await buildGrpcHealth(rt.dir, log);
  await buildAndImport(rt, GRPC_HEALTH_IMAGE, {
    log,
    build: async (root) => {
      await busyboxRootfs(root);
      await Deno.copyFile(binary, `${root}/grpc_health`);
      await Deno.chmod(`${root}/grpc_health`, 0o755);
      return { Entrypoint: ["/grpc_health"], Env: [PATH_ENV] };
    },
  });
  if (!(await listImages(rt.socket)).includes(GRPC_HEALTH_IMAGE)) {
    throw new DevSetupError(`Image ${GRPC_HEALTH_IMAGE} is missing after import`);
  }
  return GRPC_HEALTH_IMAGE;
}

/**
 * Builds and imports `image` unless present: busybox (a shell for exec and scripts) plus
 * `binaries` (path in the image → file on the host), with `entrypoint` if given. For the
 * upstream components the e2e suites deploy as pods (storage provisioners, CSI drivers).
 */
export async function ensureBinaryImage(
  rt: ImageTarget,
  image: string,
  opts: EnsureImagesOptions & { binaries: Record<string, string>; entrypoint?: string[] },
): Promise<string> {
  if (!opts.force && (await listImages(rt.socket)).includes(image)) return image;
  await buildAndImport(rt, image, {
    log: opts.log ?? (() => {}),
    build: async (root) => {
      const config = await busyboxRootfs(root);
      for (const [path, source] of Object.entries(opts.binaries)) {
        await Deno.mkdir(`${root}${path.slice(0, path.lastIndexOf("/"))}`, { recursive: true });
        await Deno.remove(`${root}${path}`).catch(() => undefined); // a busybox applet link
        await Deno.copyFile(source, `${root}${path}`);
        await Deno.chmod(`${root}${path}`, 0o755);
      }
      return opts.entrypoint ? { ...config, Entrypoint: opts.entrypoint, Cmd: [] } : config;
    },
  });
  if (!(await listImages(rt.socket)).includes(image)) {
    throw new DevSetupError(`Image ${image} is missing after import`);
  }
  return image;
}

async function buildGrpcHealth(devDir: string, log: (s: string) => void): Promise<string> {
  const go = await findGo();
  if (!go) {
    throw new DevSetupError(
      `Cannot build ${GRPC_HEALTH_IMAGE}: the Go toolchain (go) is not installed`,
    );
  }
  const src = GRPC_HEALTH_SOURCE.pathname;
  const parts = await Promise.all(
    ["main.go", "go.mod", "go.sum"].map((f) => Deno.readFile(`${src}/${f}`)),
  );
  const hash = await sha256Hex(new Uint8Array(parts.flatMap((p) => [...p])));
  const out = `${devDir}/bin/grpc_health-${hash.slice(0, 16)}`;
  if (await exists(out)) return out;
  await Deno.mkdir(`${devDir}/bin`, { recursive: true });
  log(`building ${out} with ${go}`);
  // Build to a private name, then rename: a concurrent builder never sees half a binary.
  const tmp = `${out}.${crypto.randomUUID()}.tmp`;
  await run(go, ["build", "-trimpath", "-ldflags=-s -w", "-o", tmp, "."], {
    cwd: src,
    env: { CGO_ENABLED: "0" },
  });
  await Deno.rename(tmp, out);
  return out;
}

/** A busybox rootfs (every applet linked, root and nobody in /etc/passwd) at `root`. */
export async function busyboxRootfs(root: string): Promise<ImageConfig> {
  for (const d of ["bin", "sbin", "usr/bin", "usr/sbin", "etc", "root", "home", "var", "tmp"]) {
    await Deno.mkdir(`${root}/${d}`, { recursive: true });
  }
  await Deno.chmod(`${root}/tmp`, 0o1777);
  await installBusybox(root);
  await Deno.writeTextFile(
    `${root}/etc/passwd`,
    "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
  );
  await Deno.writeTextFile(`${root}/etc/group`, "root:x:0:\nnobody:x:65534:\n");
  return { Cmd: ["sh"], Env: [PATH_ENV] };
}

/** Copies the static busybox to /bin/busybox and links every applet it reports. */
async function installBusybox(root: string): Promise<void> {
  await Deno.copyFile(BUSYBOX_PATH, `${root}/bin/busybox`);
  await Deno.chmod(`${root}/bin/busybox`, 0o755);
  const applets = await run(BUSYBOX_PATH, ["--list-full"]);
  for (const rel of applets.split("\n").map((s) => s.trim())) {
    if (rel === "" || rel === "bin/busybox") continue;
    const slash = rel.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(`${root}/${rel.slice(0, slash)}`, { recursive: true });
    await Deno.symlink("/bin/busybox", `${root}/${rel}`);
  }
}

/** The pause image's rootfs: pause.c built static, or a busybox loop without gcc. */
export async function pauseRootfs(root: string, log: (s: string) => void): Promise<ImageConfig> {
  if (await hasCommand("gcc")) {
    await run("gcc", ["-static", "-Os", "-s", "-o", `${root}/pause`, PAUSE_SOURCE.pathname]);
    return { Entrypoint: ["/pause"], Env: [PATH_ENV] };
  }
  log("gcc not found: the pause image falls back to a busybox shell loop as its entrypoint");
  await Deno.mkdir(`${root}/bin`);
  await installBusybox(root);
  // PID 1 has no default signal actions, so the loop must trap TERM/INT to exit promptly.
  const script = 'trap "exit 0" TERM INT; while :; do sleep 3600 & wait $!; done';
  await Deno.writeTextFile(`${root}/pause`, `#!/bin/sh\n${script}\n`);
  await Deno.chmod(`${root}/pause`, 0o755);
  return { Entrypoint: ["/pause"], Env: [PATH_ENV] };
}
