/**
 * The images the [NodeConformance] specs run, assembled here under their exact upstream names
 * (k8s.io/kubernetes test/utils/image/manifest.go at v1.37.2) since no registry is reachable:
 * busybox from Debian's busybox-static, agnhost (its binary built from the module, plus bash and
 * curl copied from the host with their libraries, as the upstream image has them from Alpine),
 * pause from pause.c, and the small images derived from those. Specs that pull on purpose (from a
 * registry, a private one, an invalid one) fail on any node here.
 */
import { DevSetupError, exists, run } from "../_exec.ts";
import { BUSYBOX_PATH } from "../_packages.ts";
import type { ImageConfig } from "../_oci.ts";
import {
  buildAndImport,
  busyboxRootfs,
  CRI_NAMESPACE,
  type ImageTarget,
  listImages,
  pauseRootfs,
} from "../images.ts";
import type { ConformanceBuild } from "./_build.ts";

const E2E = "registry.k8s.io/e2e-test-images";
const PATH_ENV = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** Upstream names; the versions are manifest.go's at v1.37.2. */
export const E2E_IMAGES = {
  busybox: `${E2E}/busybox:1.37.0-2`,
  agnhost: `${E2E}/agnhost:2.66.1`,
  agnhostPrev: `${E2E}/agnhost:2.55`,
  pause: "registry.k8s.io/pause:3.10.2",
  nonroot: `${E2E}/nonroot:1.5`,
  nonewprivs: `${E2E}/nonewprivs:1.4`,
  kitten: `${E2E}/kitten:1.8`,
  nautilus: `${E2E}/nautilus:1.8`,
  glibcDnsTesting: `${E2E}/glibc-dns-testing:2.1.1`,
} as const;

type Builder = (root: string) => Promise<ImageConfig>;

/** Bumped when the images' contents change: a runtime holding an older set re-imports them. */
const IMAGE_SET = "3";
const IMAGE_SET_FILE = "e2e-images.version";

/** Removes the E2E_IMAGES a runtime holds when they were built by another IMAGE_SET. */
async function dropStaleImages(rt: ImageTarget, log: (s: string) => void): Promise<void> {
  const have = await Deno.readTextFile(`${rt.dir}/${IMAGE_SET_FILE}`).then(
    (s) => s.trim(),
    (err) => {
      if (err instanceof Deno.errors.NotFound) return "";
      throw err;
    },
  );
  if (have === IMAGE_SET) return;
  const present = new Set(await listImages(rt.socket));
  const stale = Object.values(E2E_IMAGES).filter((n) => present.has(n));
  if (stale.length === 0) return;
  log(`removing ${stale.length} e2e images of an older build (set ${have || "1"})`);
  await run("ctr", ["--address", rt.socket, "-n", CRI_NAMESPACE, "images", "rm", ...stale]);
}

/**
 * Builds and imports every image of `E2E_IMAGES` the runtime at `rt` lacks. The caller holds
 * the runtime's lock or owns the runtime (the conformance runtime is private).
 */
export async function ensureE2EImages(
  rt: ImageTarget,
  opts: { build: ConformanceBuild; log: (s: string) => void },
): Promise<void> {
  const { build, log } = opts;
  // The busybox image's flat layout for busybox; the others derive from Alpine or Debian.
  const base = (root: string) => e2eBusyboxRootfs(root, build, { flat: true });
  const layered = (root: string) => e2eBusyboxRootfs(root, build, { flat: false });
  const builders: Record<keyof typeof E2E_IMAGES, Builder> = {
    busybox: base,
    agnhost: (root) => agnhostRootfs(root, build),
    agnhostPrev: (root) => agnhostRootfs(root, build),
    pause: (root) => pauseRootfs(root, log),
    nonroot: async (root) => ({ ...(await layered(root)), User: "1234" }),
    nonewprivs: async (root) => {
      await layered(root);
      await Deno.mkdir(`${root}/usr/local/bin`, { recursive: true });
      await Deno.copyFile(build.nnp, `${root}/usr/local/bin/nnp`);
      // setuid root (the archive's owner is 0): without no_new_privs it runs as euid 0.
      await Deno.chmod(`${root}/usr/local/bin/nnp`, 0o4755);
      return { Cmd: ["nnp"], Env: [PATH_ENV] };
    },
    kitten: (root) => webserverRootfs(root, build, "kitten"),
    nautilus: (root) => webserverRootfs(root, build, "nautilus"),
    glibcDnsTesting: async (root) => {
      // Debian bookworm-slim upstream; what the specs use of it is a glibc `hostname -f`.
      await layered(root);
      await copyHostBinary(root, "/usr/bin/hostname", "/bin/hostname");
      await Deno.writeTextFile(`${root}/etc/nsswitch.conf`, "hosts: files dns\n");
      return { Cmd: ["sh"], Env: [PATH_ENV] };
    },
  };
  await dropStaleImages(rt, log);
  const present = new Set(await listImages(rt.socket));
  for (const [key, name] of Object.entries(E2E_IMAGES)) {
    if (present.has(name)) continue;
    const build = builders[key as keyof typeof E2E_IMAGES];
    await buildAndImport(rt, name, {
      log,
      build: async (root) => {
        const config = await build(root);
        // Every image its own digest: the runtime reports a container's image by the first
        // name of its digest, and busybox or pause built alike would be the dev images' twins.
        await Deno.mkdir(`${root}/etc`, { recursive: true });
        await Deno.writeTextFile(`${root}/etc/e2e-test-image`, `${name}\n`);
        return config;
      },
    });
  }
  await Deno.writeTextFile(`${rt.dir}/${IMAGE_SET_FILE}`, `${IMAGE_SET}\n`);
  const after = new Set(await listImages(rt.socket));
  const missing = Object.values(E2E_IMAGES).filter((n) => !after.has(n));
  if (missing.length) {
    throw new DevSetupError(`Images missing after import: ${missing.join(", ")}`);
  }
}

/**
 * agnhost as upstream lays it out: /agnhost (entrypoint, `pause` by default), the porter's
 * localhost certificate, /uploads, bash and curl, and the user and group some specs expect in
 * the image (uid 1000 in gid 50000).
 */
async function agnhostRootfs(root: string, build: ConformanceBuild) {
  await e2eBusyboxRootfs(root, build, { flat: false });
  await Deno.copyFile(build.agnhost, `${root}/agnhost`);
  await Deno.chmod(`${root}/agnhost`, 0o755);
  await Deno.symlink("agnhost", `${root}/agnhost-2`);
  for (const f of ["localhost.crt", "localhost.key"]) {
    await Deno.copyFile(
      `${build.kubernetesSource}/test/images/agnhost/porter/${f}`,
      `${root}/${f}`,
    );
  }
  await Deno.mkdir(`${root}/uploads`);
  await copyHostBinary(root, "/usr/bin/bash", "/bin/bash");
  await copyHostBinary(root, "/usr/bin/curl", "/usr/bin/curl");
  // The networking specs send UDP with `nc -u`, which busybox's nc lacks.
  const nc = await debianBinary(build.root, "netcat-openbsd", "/bin/nc.openbsd");
  await copyHostBinary(root, nc, "/usr/bin/nc");
  await Deno.writeTextFile(
    `${root}/etc/passwd`,
    "root:x:0:0:root:/root:/bin/sh\n" +
      "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n" +
      "user-defined-in-image:x:1000:1000::/home/user-defined-in-image:/bin/sh\n",
  );
  await Deno.writeTextFile(
    `${root}/etc/group`,
    "root:x:0:\nnobody:x:65534:\nuser-defined-in-image:x:1000:\n" +
      "group-defined-in-image:x:50000:user-defined-in-image\n",
  );
  await Deno.mkdir(`${root}/home/user-defined-in-image`, { recursive: true });
  return { Entrypoint: ["/agnhost"], Cmd: ["pause"], Env: [PATH_ENV] };
}

/**
 * The images' busybox: Debian's dynamically linked build with its libraries, not the static
 * one of the dev images. That one is a rescue shell that runs its own applet for a command
 * name whatever PATH says (FEATURE_SH_STANDALONE), so agnhost's netcat and glibc-dns-testing's
 * hostname would never run; upstream's images (busybox's defconfig, Alpine) look PATH up.
 * `flat` links every applet in /bin, as the busybox image upstream's derive from does (the
 * sysctl specs run /bin/sysctl); otherwise they sit where busybox puts them, as on Alpine.
 */
async function e2eBusyboxRootfs(
  root: string,
  build: ConformanceBuild,
  opts: { flat: boolean },
): Promise<ImageConfig> {
  const config = await busyboxRootfs(root);
  const busybox = await debianBinary(build.root, "busybox", "/bin/busybox");
  await copyHostBinary(root, busybox, "/bin/busybox");
  const applets = new Set((await run(busybox, ["--list-full"])).split("\n").map((l) => l.trim()));
  // The static build's links go: it has a few applets more (crond, dpkg, ...), and its layout.
  for (const rel of (await run(BUSYBOX_PATH, ["--list-full"])).split("\n")) {
    const link = rel.trim();
    if (!link || link === "bin/busybox") continue;
    if (opts.flat || !applets.has(link)) await Deno.remove(`${root}/${link}`);
  }
  if (opts.flat) {
    for (const rel of applets) {
      const name = rel.slice(rel.lastIndexOf("/") + 1);
      if (rel && name !== "busybox") await Deno.symlink("/bin/busybox", `${root}/bin/${name}`);
    }
  }
  return config;
}

/** kitten and nautilus: agnhost serving their picture and data.json (`test-webserver`). */
async function webserverRootfs(root: string, build: ConformanceBuild, name: string) {
  const config = await agnhostRootfs(root, build);
  const html = `${build.kubernetesSource}/test/images/${name}/html`;
  for (const f of [`${name}.jpg`, "data.json"]) await Deno.copyFile(`${html}/${f}`, `${root}/${f}`);
  return { ...config, Cmd: ["test-webserver"] };
}

/**
 * Copies a dynamically linked host program to `dest` in the rootfs with every library `ldd`
 * lists, each at its own path (what the program's loader looks for).
 */
async function copyHostBinary(root: string, source: string, dest: string): Promise<void> {
  const files = new Map<string, string>([[source, dest]]);
  const ldd = await run("ldd", [source]);
  if (/not found/.test(ldd)) {
    throw new DevSetupError(`Cannot copy ${source} into an image: a library is missing:\n${ldd}`);
  }
  for (const lib of parseLdd(ldd)) files.set(lib, lib);
  for (const [from, to] of files) {
    const target = `${root}${to}`;
    await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    // A busybox applet link may sit there: copying onto it would overwrite busybox itself.
    await Deno.remove(target).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
    await Deno.copyFile(from, target);
    await Deno.chmod(target, 0o755);
  }
}

/**
 * A program from a Debian package, unpacked (not installed) under `<cacheRoot>/debs/<pkg>`
 * with `apt-get download` and `dpkg-deb -x`: the host keeps its own package set.
 */
async function debianBinary(cacheRoot: string, pkg: string, path: string): Promise<string> {
  const dir = `${cacheRoot}/debs/${pkg}`;
  const binary = `${dir}/root${path}`;
  if (await exists(binary)) return binary;
  await Deno.remove(dir, { recursive: true }).catch((err) => {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  });
  await Deno.mkdir(dir, { recursive: true });
  await run("apt-get", ["download", pkg], { cwd: dir });
  const deb = (await Array.fromAsync(Deno.readDir(dir))).find((e) => e.name.endsWith(".deb"));
  if (!deb) throw new DevSetupError(`Cannot unpack ${pkg}: apt-get download wrote no .deb`);
  await run("dpkg-deb", ["-x", `${dir}/${deb.name}`, `${dir}/root`]);
  if (!(await exists(binary))) {
    throw new DevSetupError(`Cannot find ${path} in Debian's ${pkg} (unpacked in ${dir}/root)`);
  }
  return binary;
}

/** The library paths in `ldd` output (`name => /path (0x..)` and `/path (0x..)` lines). */
export function parseLdd(out: string): string[] {
  const libs: string[] = [];
  for (const line of out.split("\n")) {
    const m = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (m) libs.push(m[1]);
  }
  return libs;
}
