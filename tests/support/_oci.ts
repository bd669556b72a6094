/**
 * Writes a single-layer OCI image archive (oci-layout, index.json, blobs/) that
 * `ctr images import` accepts, from a root filesystem directory. No registry, no docker.
 */
import { run, sha256Hex } from "./_exec.ts";

export interface ImageConfig {
  Entrypoint?: string[];
  Cmd?: string[];
  Env?: string[];
  WorkingDir?: string;
  /** `uid`, `uid:gid` or a name from the image's /etc/passwd. */
  User?: string;
  Labels?: Record<string, string>;
}

export interface OciArchiveOptions {
  /** Full reference, e.g. `denolet.test/busybox:1.35`. */
  name: string;
  /** Directory whose contents become the single layer. */
  rootfs: string;
  config: ImageConfig;
  /** Scratch directory for the layout; the caller removes it. */
  workDir: string;
  /** Path of the archive to write. */
  out: string;
  /** The image's OCI architecture; default this machine's (a VM's guest may differ). */
  arch?: string;
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
}

const MT_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const MT_INDEX = "application/vnd.oci.image.index.v1+json";
const MT_CONFIG = "application/vnd.oci.image.config.v1+json";
const MT_LAYER = "application/vnd.oci.image.layer.v1.tar";

/** The OCI architecture name of this machine (`amd64`, `arm64`). */
export function ociArch(): string {
  const arch = Deno.build.arch as string;
  if (arch === "x86_64") return "amd64";
  if (arch === "aarch64") return "arm64";
  return arch;
}

/**
 * Builds the archive. Deterministic for a given rootfs (sorted entries, fixed mtime and owners),
 * so rebuilding the same content yields the same digests. `layout` is the OCI layout directory
 * the archive was made from (under `workDir`), for pushing to a registry.
 */
export async function writeOciArchive(
  opts: OciArchiveOptions,
): Promise<{ manifestDigest: string; layout: string }> {
  const layout = `${opts.workDir}/layout`;
  const blobs = `${layout}/blobs/sha256`;
  await Deno.mkdir(blobs, { recursive: true });

  const layerPath = `${opts.workDir}/layer.tar`;
  await run("tar", [
    "--sort=name",
    "--mtime=@0",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "-C",
    opts.rootfs,
    "-cf",
    layerPath,
    ".",
  ]);
  const layerBytes = await Deno.readFile(layerPath);
  // Uncompressed layer: its digest is also its diff id.
  const layer = await putBlob(blobs, MT_LAYER, layerBytes);

  const arch = opts.arch ?? ociArch();
  const config = await putJson(blobs, MT_CONFIG, {
    created: "1970-01-01T00:00:00Z",
    architecture: arch,
    os: "linux",
    config: opts.config,
    rootfs: { type: "layers", diff_ids: [layer.digest] },
    history: [{ created: "1970-01-01T00:00:00Z", created_by: "denolet tests/support/images.ts" }],
  });
  const manifest = await putJson(blobs, MT_MANIFEST, {
    schemaVersion: 2,
    mediaType: MT_MANIFEST,
    config,
    layers: [layer],
  });
  const tag = opts.name.slice(opts.name.lastIndexOf(":") + 1);
  const index = {
    schemaVersion: 2,
    mediaType: MT_INDEX,
    manifests: [{
      ...manifest,
      platform: { architecture: arch, os: "linux" },
      annotations: {
        // containerd's importer names the image from this annotation.
        "io.containerd.image.name": opts.name,
        "org.opencontainers.image.ref.name": tag,
      },
    }],
  };
  await Deno.writeTextFile(`${layout}/index.json`, JSON.stringify(index));
  await Deno.writeTextFile(
    `${layout}/oci-layout`,
    JSON.stringify({ imageLayoutVersion: "1.0.0" }),
  );
  await run("tar", [
    "--sort=name",
    "--mtime=@0",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "-C",
    layout,
    "-cf",
    opts.out,
    "oci-layout",
    "index.json",
    "blobs",
  ]);
  return { manifestDigest: manifest.digest, layout };
}

async function putBlob(dir: string, mediaType: string, data: Uint8Array): Promise<Descriptor> {
  const hex = await sha256Hex(data);
  await Deno.writeFile(`${dir}/${hex}`, data);
  return { mediaType, digest: `sha256:${hex}`, size: data.byteLength };
}

function putJson(dir: string, mediaType: string, value: unknown): Promise<Descriptor> {
  return putBlob(dir, mediaType, new TextEncoder().encode(JSON.stringify(value)));
}
