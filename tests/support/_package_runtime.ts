/**
 * The Deno runtime a packed file carries, from the npm registry: the `deno` npm package installs
 * its binary from per-platform packages (`@deno/linux-x64-glibc`, `@deno/linux-arm64-glibc`),
 * which are plain tarballs holding `package/deno`. Each target is pinned to a version and the
 * tarball's integrity, so a build is reproducible and a changed upload is refused.
 *
 * Fetched with `npm pack` (the ordinary client: registry, proxy and cache settings apply) into
 * `<dev dir>/npm-runtime/`, like the rest of the dev provisioning, and reused from there.
 */
import { DevSetupError, tryRun } from "./_exec.ts";
import { gunzip, readTar } from "./_package_tar.ts";

export interface PackTarget {
  /** The Rust target triple, as `deno compile --target` names it. */
  target: string;
  /** The file `deno task package` writes: `denolet-linux-<arch>`. */
  file: string;
  /** What `uname -m` prints on a machine that runs it. */
  machines: readonly string[];
  /** ELF e_machine of its runtime (EM_X86_64 = 62, EM_AARCH64 = 183). */
  elfMachine: number;
  runtime: RuntimePin;
}

export interface RuntimePin {
  /** npm package holding the `deno` binary. */
  package: string;
  version: string;
  /** The tarball's npm `dist.integrity` (sha512, base64). */
  integrity: string;
}

/**
 * The pins. x86_64 matches the Deno the project builds with (`npx -y deno@2 --version`);
 * the registry carries no @deno/linux-arm64-glibc 2.9.6, so arm64 takes 2.9.5, the newest it
 * has. The bundle is plain JavaScript and runs on either. To move a pin:
 * `npm view <package>@<version> dist.integrity`.
 */
export const PACK_TARGETS: readonly PackTarget[] = [
  {
    target: "x86_64-unknown-linux-gnu",
    file: "denolet-linux-amd64",
    machines: ["x86_64", "amd64"],
    elfMachine: 62,
    runtime: {
      package: "@deno/linux-x64-glibc",
      version: "2.9.6",
      integrity:
        "sha512-3md4TKLCuzsLDmfOoC5KN7NAZaxSVkMgm64vg6foD00JBADCpYS2/5QqXfzgnP5ZQz3iLP9vBQJtEgc116OAoQ==",
    },
  },
  {
    target: "aarch64-unknown-linux-gnu",
    file: "denolet-linux-arm64",
    machines: ["aarch64", "arm64"],
    elfMachine: 183,
    runtime: {
      package: "@deno/linux-arm64-glibc",
      version: "2.9.5",
      integrity:
        "sha512-IuYjsz9PGl7CJcNXMuN27KNDB8Q40brK3SG3l+TXMDVW61ZKwcn0fQHBHnXFiiygEwI8by/fKnASEluhZB1atw==",
    },
  },
];

export function packTarget(target: string): PackTarget {
  const t = PACK_TARGETS.find((p) => p.target === target || p.file === target);
  if (!t) {
    throw new DevSetupError(
      `unknown target "${target}" (targets: ${PACK_TARGETS.map((p) => p.target).join(", ")})`,
    );
  }
  return t;
}

/** The tarball's file name in the cache, as `npm pack` names it. */
export function tarballName(pin: RuntimePin): string {
  return `${pin.package.replace(/^@/, "").replace("/", "-")}-${pin.version}.tgz`;
}

/** npm's integrity string (`sha512-<base64>`) for `data`. */
export async function npmIntegrity(data: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-512", data as Uint8Array<ArrayBuffer>);
  let bin = "";
  for (const b of new Uint8Array(digest)) bin += String.fromCharCode(b);
  return `sha512-${btoa(bin)}`;
}

export interface FetchRuntimeOptions {
  /** Where tarballs are kept between builds. */
  cacheDir: string;
  /** Progress lines. */
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * The pinned runtime's tarball: from the cache when its integrity matches, else from the
 * registry with `npm pack`. Throws DevSetupError naming the package when npm fails or the
 * tarball is not the pinned one.
 */
export async function fetchRuntimeTarball(
  pin: RuntimePin,
  opts: FetchRuntimeOptions,
): Promise<Uint8Array> {
  const cached = `${opts.cacheDir}/${tarballName(pin)}`;
  const have = await Deno.readFile(cached).catch((err) => {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  });
  if (have && await npmIntegrity(have) === pin.integrity) return have;
  await Deno.mkdir(opts.cacheDir, { recursive: true });
  const tmp = await Deno.makeTempDir({ dir: opts.cacheDir, prefix: ".pack-" });
  try {
    const spec = `${pin.package}@${pin.version}`;
    opts.log?.(`fetching the Deno runtime ${spec} from the npm registry`);
    const res = await tryRun("npm", ["pack", spec, "--pack-destination", tmp, "--silent"], {
      signal: opts.signal,
    });
    if (res.code !== 0) {
      throw new DevSetupError(
        `Cannot fetch ${spec} with npm pack (exit ${res.code}): ${res.stderr.trim().slice(-2000)}`,
      );
    }
    const data = await Deno.readFile(`${tmp}/${tarballName(pin)}`);
    const got = await npmIntegrity(data);
    if (got !== pin.integrity) {
      throw new DevSetupError(
        `${spec} from the registry is not the pinned tarball: integrity ${got}, pinned ` +
          `${pin.integrity}`,
      );
    }
    await Deno.rename(`${tmp}/${tarballName(pin)}`, cached);
    return data;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

/** The `deno` executable inside an npm runtime tarball. */
export function runtimeFromTarball(tgz: Uint8Array, pin: RuntimePin): Uint8Array {
  const entry = readTar(gunzip(tgz)).find((e) => e.name === "package/deno");
  if (!entry) throw new DevSetupError(`${pin.package}@${pin.version} holds no package/deno`);
  return entry.data;
}

/** The pinned runtime binary for `target`. */
export async function fetchRuntime(
  target: PackTarget,
  opts: FetchRuntimeOptions,
): Promise<Uint8Array> {
  return runtimeFromTarball(await fetchRuntimeTarball(target.runtime, opts), target.runtime);
}

export interface ElfInfo {
  /** e_machine: 62 x86_64, 183 aarch64. */
  machine: number;
  /** PT_INTERP, the dynamic loader the kernel starts it with; undefined when static. */
  interpreter?: string;
}

/** Reads the machine type and loader of a 64-bit little-endian ELF executable. */
export function elfInfo(bytes: Uint8Array): ElfInfo {
  const isElf = bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;
  if (!isElf || bytes[4] !== 2 || bytes[5] !== 1) {
    throw new DevSetupError("not a 64-bit little-endian ELF file");
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const machine = view.getUint16(0x12, true);
  const phoff = Number(view.getBigUint64(0x20, true));
  const phentsize = view.getUint16(0x36, true);
  const phnum = view.getUint16(0x38, true);
  const PT_INTERP = 3;
  for (let i = 0; i < phnum; i++) {
    const ph = phoff + i * phentsize;
    if (view.getUint32(ph, true) !== PT_INTERP) continue;
    const off = Number(view.getBigUint64(ph + 0x08, true));
    const size = Number(view.getBigUint64(ph + 0x20, true));
    const raw = bytes.subarray(off, off + size);
    const end = raw.indexOf(0);
    return { machine, interpreter: new TextDecoder().decode(end < 0 ? raw : raw.subarray(0, end)) };
  }
  return { machine };
}
