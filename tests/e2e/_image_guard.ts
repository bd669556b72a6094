/**
 * Image garbage collection against the shared dev containerd. An agent told to free every
 * unused image would also take images other suites need, and there is no registry to pull
 * them back from. `guardImages` keeps chosen images in use — one created, never started
 * container each, in a host-network sandbox no agent owns — for as long as a suite needs, and
 * `importThrowawayImage` makes a unique image for a GC to remove.
 */
import type { CriClient } from "../../src/cri/mod.ts";
import type { Image, PodSandboxConfig } from "../../src/cri/types.ts";
import { isKind, NotFoundError } from "../../src/util/errors.ts";
import { writeOciArchive } from "../support/_oci.ts";
import { removeCgroupTree } from "../support/agent.ts";
import type { DevRuntime } from "../support/containerd.ts";
import { CRI_NAMESPACE } from "../support/images.ts";

export interface ImageGuard extends AsyncDisposable {
  /** The images held in use. */
  readonly images: Image[];
  /** Removes the holder containers and their sandbox. Idempotent. */
  release(): Promise<void>;
}

/** True when `ref` names `img` (its id, a tag or a digest). */
export function isImage(img: Image, ref: string): boolean {
  return img.id === ref || img.repoTags.includes(ref) || img.repoDigests.includes(ref);
}

/** Holds every present image for which `hold` is true. */
export async function guardImages(
  cri: CriClient,
  opts: { hold: (img: Image) => boolean },
): Promise<ImageGuard> {
  const images = (await cri.image.listImages()).filter(opts.hold);
  const name = `image-guard-${crypto.randomUUID().slice(0, 8)}`;
  const cgroup = `denolet-e2e/${name}`;
  const sandboxConfig: PodSandboxConfig = {
    metadata: { name, uid: crypto.randomUUID(), namespace: "denolet-e2e", attempt: 0 },
    labels: { "denolet.test/role": "image-guard" },
    linux: {
      cgroupParent: `/${cgroup}`,
      securityContext: { namespaceOptions: { network: "NODE", pid: "CONTAINER", ipc: "POD" } },
    },
  };
  const sandboxId = await cri.runtime.runPodSandbox(sandboxConfig);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await cri.runtime.stopPodSandbox(sandboxId).catch(ignoreNotFound);
    // Removing the sandbox removes its containers too.
    await cri.runtime.removePodSandbox(sandboxId).catch(ignoreNotFound);
    await removeCgroupTree(cgroup);
  };
  try {
    for (const [i, img] of images.entries()) {
      await cri.runtime.createContainer(sandboxId, {
        metadata: { name: `hold-${i}`, attempt: 0 },
        image: { image: img.id },
        // Never started: the command only has to be well formed.
        command: ["/hold"],
      }, sandboxConfig);
    }
  } catch (err) {
    await release();
    throw err;
  }
  return { images, release, [Symbol.asyncDispose]: release };
}

/**
 * Builds a one-file image with unique content (so a unique id) and imports it into the CRI
 * namespace; returns its reference `denolet.test/gc-throwaway-<id>:1`.
 */
export async function importThrowawayImage(rt: DevRuntime): Promise<string> {
  const id = crypto.randomUUID().slice(0, 8);
  const ref = `denolet.test/gc-throwaway-${id}:1`;
  const work = await Deno.makeTempDir({ prefix: "denolet-e2e-image-" });
  try {
    await Deno.mkdir(`${work}/rootfs`);
    await Deno.writeTextFile(`${work}/rootfs/throwaway`, `${ref} ${crypto.randomUUID()}\n`);
    await writeOciArchive({
      name: ref,
      rootfs: `${work}/rootfs`,
      config: { Cmd: ["/throwaway"] },
      workDir: work,
      out: `${work}/image.tar`,
    });
    const out = await new Deno.Command("ctr", {
      args: ["--address", rt.socket, "-n", CRI_NAMESPACE, "images", "import", `${work}/image.tar`],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`Cannot import ${ref}: ${new TextDecoder().decode(out.stderr)}`);
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
  return ref;
}

/** Removes `ref` if present (a test that failed before its GC did). */
export async function removeImageIfPresent(cri: CriClient, ref: string): Promise<void> {
  const img = await cri.image.imageStatus({ image: ref });
  if (img) await cri.image.removeImage({ image: img.id }).catch(ignoreNotFound);
}

/** Runs every clean-up step even when one fails, then throws the failures together. */
export async function cleanUp(steps: Array<() => unknown>): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, "Several clean-up steps failed");
}

function ignoreNotFound(err: unknown): void {
  if (!isKind(err, NotFoundError)) throw err;
}
