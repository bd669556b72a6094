/**
 * The test images, built locally from the host's static busybox and our own pause binary, and
 * imported into the dev containerd's `k8s.io` namespace (the one the CRI plugin serves).
 */
import { BUSYBOX_PATH } from "./_packages.ts";
import { DevSetupError, hasCommand, run } from "./_exec.ts";
import { type ImageConfig, writeOciArchive } from "./_oci.ts";

export const BUSYBOX_IMAGE = "denolet.test/busybox:1.35";
export const PAUSE_IMAGE = "denolet.test/pause:1.0";
export const CRI_NAMESPACE = "k8s.io";

const PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const PAUSE_SOURCE = new URL("./images/pause.c", import.meta.url);

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
    if (present.has(name)) continue;
    await Deno.mkdir(`${rt.dir}/images`, { recursive: true });
    const work = await Deno.makeTempDir({ dir: `${rt.dir}/images`, prefix: "build-" });
    try {
      const rootfs = `${work}/rootfs`;
      await Deno.mkdir(rootfs);
      const config = await build(rootfs);
      const out = `${work}/image.tar`;
      await writeOciArchive({ name, rootfs, config, workDir: work, out });
      log(`importing ${name}`);
      await run("ctr", ["--address", rt.socket, "-n", CRI_NAMESPACE, "images", "import", out]);
    } catch (err) {
      throw new DevSetupError(`Cannot build and import image ${name}`, { cause: err });
    } finally {
      await Deno.remove(work, { recursive: true });
    }
  }
  const after = new Set(await listImages(rt.socket));
  for (const [name] of builders) {
    if (!after.has(name)) throw new DevSetupError(`Image ${name} is missing after import`);
  }
}

async function busyboxRootfs(root: string): Promise<ImageConfig> {
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

async function pauseRootfs(root: string, log: (s: string) => void): Promise<ImageConfig> {
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
