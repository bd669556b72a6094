/**
 * Builds the test VM's disk image from Debian's packages: mmdebstrap into a directory, the
 * recipe's files written over it, the test images baked in, the kernel and initrd copied out
 * for qemu's -kernel/-initrd, and `mke2fs -d` turning the directory into an ext4 image (no loop
 * device, no bootloader). A foreign architecture (arm64 on an amd64 host) runs mmdebstrap's
 * second stage under qemu-user through binfmt_misc. Private to tests/support/vm.
 */
import { DevSetupError, exists, run, tryRun } from "../_exec.ts";
import { writeOciArchive } from "../_oci.ts";
import {
  BUSYBOX_APPLETS,
  BUSYBOX_IMAGE,
  consoleDevice,
  ENABLED_UNITS,
  guestFiles,
  IMAGE_DIR,
  INITRD_HOOK,
  packages,
  PAUSE_COMMAND,
  PAUSE_IMAGE,
  recipeStamp,
  SUITE,
  type VmArch,
} from "./_recipe.ts";

/** The files of a built image, in its directory. */
export interface VmImage {
  dir: string;
  arch: VmArch;
  rootfs: string;
  kernel: string;
  initrd: string;
  /** The ssh key authorised for root in the guest. */
  sshKey: string;
}

export interface BuildImageOptions {
  log: (line: string) => void;
  signal?: AbortSignal;
  /** Root filesystem size; default 4G (sparse: about 850 MB on disk). */
  size?: string;
}

/** The image in `dir`, if one built from the current recipe is there. */
export async function builtImage(dir: string, arch: VmArch): Promise<VmImage | undefined> {
  const image = imageFiles(dir, arch);
  const stamp = await readIfPresent(`${dir}/stamp`);
  if (stamp.trim() !== await recipeStamp(arch)) return undefined;
  for (const f of [image.rootfs, image.kernel, image.initrd, image.sshKey]) {
    if (!(await exists(f))) return undefined;
  }
  return image;
}

function imageFiles(dir: string, arch: VmArch): VmImage {
  return {
    dir,
    arch,
    rootfs: `${dir}/rootfs.ext4`,
    kernel: `${dir}/vmlinuz`,
    initrd: `${dir}/initrd.img`,
    sshKey: `${dir}/id_ed25519`,
  };
}

/**
 * Builds the image into `dir` unless one from the current recipe is there. The caller holds the
 * VM lock (a running VM's base image must not change under it). amd64 takes 1.5 to 3 min, arm64
 * about 25 (its second stage runs emulated).
 */
export async function ensureImage(
  dir: string,
  arch: VmArch,
  opts: BuildImageOptions,
): Promise<VmImage> {
  const ready = await builtImage(dir, arch);
  if (ready) return ready;
  if (Deno.uid() !== 0) throw new DevSetupError("Building the VM image needs root");
  await ensureHostPackages(arch, opts.log);
  const image = imageFiles(dir, arch);
  await Deno.mkdir(dir, { recursive: true });
  await removeIfPresent(`${dir}/stamp`);
  const root = `${dir}/rootfs`;
  await removeIfPresent(root);
  await Deno.mkdir(root);
  const started = performance.now();
  if (arch !== hostArch()) await enableForeignArch(arch);
  opts.log(`vm: mmdebstrap ${SUITE}/${arch} (amd64 1-3 min, arm64 about 20)`);
  await run("nice", [
    "-n",
    "10",
    "mmdebstrap",
    "--mode=root",
    "--variant=apt",
    `--architectures=${arch}`,
    `--include=${packages(arch).join(",")}`,
    '--aptopt=Acquire::Retries "3"',
    `--essential-hook=${INITRD_HOOK}`,
    "--dpkgopt=path-exclude=/usr/share/doc/*",
    "--dpkgopt=path-include=/usr/share/doc/*/copyright",
    "--dpkgopt=path-exclude=/usr/share/man/*",
    "--dpkgopt=path-exclude=/usr/share/locale/*",
    SUITE,
    root,
    ...await aptSources(),
  ], { signal: opts.signal });
  await configure(root, image, arch);
  await bakeImages(root, dir, arch);
  await copyKernel(root, image);
  await removeIfPresent(`${root}/var/cache/apt/archives`);
  opts.log(`vm: mke2fs ${opts.size ?? "4G"}`);
  await removeIfPresent(`${dir}/disk.qcow2`);
  await run("nice", [
    "-n",
    "10",
    "mke2fs",
    "-q",
    "-t",
    "ext4",
    "-L",
    "rootfs",
    "-d",
    root,
    "-F",
    image.rootfs,
    opts.size ?? "4G",
  ], { signal: opts.signal });
  await Deno.remove(root, { recursive: true });
  await Deno.writeTextFile(`${dir}/stamp`, `${await recipeStamp(arch)}\n`);
  opts.log(`vm: image built in ${Math.round((performance.now() - started) / 1000)} s`);
  return image;
}

/** Commands the build and the VM need on the host, with the Debian packages that bring them. */
function hostTools(arch: VmArch): Record<string, string> {
  const tools: Record<string, string> = {
    mmdebstrap: "mmdebstrap",
    mke2fs: "e2fsprogs",
    "ssh-keygen": "openssh-client",
    ssh: "openssh-client",
    scp: "openssh-client",
    systemctl: "systemd",
    "qemu-img": "qemu-utils",
    // Connects the guest to host services (VmOptions.hostServices), once per connection.
    socat: "socat",
    [arch === "amd64" ? "qemu-system-x86_64" : "qemu-system-aarch64"]: arch === "amd64"
      ? "qemu-system-x86"
      : "qemu-system-arm",
  };
  if (arch !== hostArch()) {
    // mmdebstrap's second stage runs the guest's programs through qemu-user.
    Object.assign(tools, {
      "arch-test": "arch-test",
      [arch === "arm64" ? "qemu-aarch64-static" : "qemu-x86_64-static"]: "qemu-user-static",
      "update-binfmts": "binfmt-support",
    });
  }
  return tools;
}

/** Installs what is missing of hostTools with apt-get (root, Debian/Ubuntu hosts). */
export async function ensureHostPackages(arch: VmArch, log: (line: string) => void): Promise<void> {
  const missing = new Set<string>();
  for (const [tool, pkg] of Object.entries(hostTools(arch))) {
    if ((await tryRun("sh", ["-c", 'command -v "$0"', tool])).code !== 0) missing.add(pkg);
  }
  if (missing.size === 0) return;
  log(`vm: installing ${[...missing].join(" ")}`);
  const env = { DEBIAN_FRONTEND: "noninteractive" };
  await run("apt-get", ["update"], { env });
  await run("apt-get", ["install", "-y", "--no-install-recommends", ...missing], { env });
}

export function hostArch(): VmArch {
  return Deno.build.arch === "aarch64" ? "arm64" : "amd64";
}

/** The host's own Debian mirrors, so the guest is built from what the host installs from. */
async function aptSources(): Promise<string[]> {
  const texts = [await readIfPresent("/etc/apt/sources.list")];
  for await (const e of Deno.readDir("/etc/apt/sources.list.d")) {
    texts.push(await Deno.readTextFile(`/etc/apt/sources.list.d/${e.name}`));
  }
  const uris = texts.join("\n").split("\n").filter((l) => !l.trim().startsWith("#"))
    .flatMap((l) => l.match(/https?:\/\/\S+/g) ?? []);
  const main = uris.find((u) => /\/debian\/?$/.test(u)) ?? "http://deb.debian.org/debian";
  const security = uris.find((u) => u.includes("debian-security")) ??
    "http://deb.debian.org/debian-security";
  return [
    `deb ${main} ${SUITE} main`,
    `deb ${main} ${SUITE}-updates main`,
    `deb ${security} ${SUITE}-security main`,
  ];
}

/** Registers qemu-user for the guest's architecture (kernel-wide; it stays registered). */
async function enableForeignArch(arch: VmArch): Promise<void> {
  const name = arch === "arm64" ? "qemu-aarch64" : "qemu-x86_64";
  if (!(await exists("/proc/sys/fs/binfmt_misc/status"))) {
    await run("mount", ["-t", "binfmt_misc", "binfmt_misc", "/proc/sys/fs/binfmt_misc"]);
  }
  if (!(await exists(`/proc/sys/fs/binfmt_misc/${name}`))) {
    const res = await tryRun("update-binfmts", ["--enable", name]);
    if (res.code !== 0) {
      throw new DevSetupError(
        `Cannot run ${arch} programs for the image build: update-binfmts --enable ${name} ` +
          `failed (apt-get install qemu-user-static binfmt-support): ${res.stderr.trim()}`,
      );
    }
  }
}

/** Writes the recipe's files, the root ssh key and the enabled units (no chroot needed). */
async function configure(root: string, image: VmImage, arch: VmArch): Promise<void> {
  const runc = (await exists(`${root}/usr/sbin/runc`)) ? "/usr/sbin/runc" : "/usr/bin/runc";
  for (const [path, text] of Object.entries(guestFiles(arch, runc))) {
    const full = `${root}${path}`;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    await removeIfPresent(full); // /etc/resolv.conf may be a dangling link
    await Deno.writeTextFile(full, text);
  }
  // The serial console logs in without a password (sshd refuses empty ones).
  const shadow = await Deno.readTextFile(`${root}/etc/shadow`);
  await Deno.writeTextFile(`${root}/etc/shadow`, shadow.replace(/^root:[^:]*:/m, "root::"));
  if (!(await exists(image.sshKey))) {
    await run("ssh-keygen", [
      "-q",
      "-t",
      "ed25519",
      "-N",
      "",
      "-C",
      "denolet-vm",
      "-f",
      image.sshKey,
    ]);
  }
  await Deno.mkdir(`${root}/root/.ssh`, { recursive: true, mode: 0o700 });
  await Deno.copyFile(`${image.sshKey}.pub`, `${root}/root/.ssh/authorized_keys`);
  await Deno.chmod(`${root}/root/.ssh/authorized_keys`, 0o600);
  await run("systemctl", [`--root=${root}`, "enable", ...ENABLED_UNITS]);
  await run("systemctl", [
    `--root=${root}`,
    "enable",
    `serial-getty@${consoleDevice(arch)}.service`,
  ]);
}

/** The busybox and pause images, from the guest's own busybox-static. */
async function bakeImages(root: string, dir: string, arch: VmArch): Promise<void> {
  const work = await Deno.makeTempDir({ dir, prefix: "images-" });
  try {
    const fs = `${work}/rootfs`;
    for (const d of ["bin", "tmp", "etc", "proc", "dev", "sys"]) {
      await Deno.mkdir(`${fs}/${d}`, { recursive: true });
    }
    await Deno.copyFile(`${root}/bin/busybox`, `${fs}/bin/busybox`);
    await Deno.chmod(`${fs}/bin/busybox`, 0o755);
    for (const applet of BUSYBOX_APPLETS) await Deno.symlink("busybox", `${fs}/bin/${applet}`);
    await Deno.mkdir(`${root}${IMAGE_DIR}`, { recursive: true });
    const env = ["PATH=/bin"];
    for (
      const [name, file, cmd] of [
        [BUSYBOX_IMAGE, "busybox.tar", ["sh"]],
        [PAUSE_IMAGE, "pause.tar", PAUSE_COMMAND],
      ] as const
    ) {
      const workDir = `${work}/${file}.d`;
      await Deno.mkdir(workDir);
      await writeOciArchive({
        name,
        rootfs: fs,
        config: { Cmd: [...cmd], Env: env },
        workDir,
        out: `${root}${IMAGE_DIR}/${file}`,
        arch,
      });
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}

async function copyKernel(root: string, image: VmImage): Promise<void> {
  const versions: string[] = [];
  for await (const e of Deno.readDir(`${root}/lib/modules`)) versions.push(e.name);
  const kver = versions.sort().at(-1);
  if (!kver) throw new DevSetupError(`No kernel installed in ${root}`);
  await Deno.copyFile(`${root}/boot/vmlinuz-${kver}`, image.kernel);
  await Deno.copyFile(`${root}/boot/initrd.img-${kver}`, image.initrd);
}

/** Removes a file or a directory tree; one that is not there is no error. */
export async function removeIfPresent(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

async function readIfPresent(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "";
    throw err;
  }
}
