/**
 * emptyDir volumes (pkg/volume/emptydir/empty_dir.go): a 0777 directory under the pod dir, or
 * a tmpfs mounted there for medium "Memory" (its root 1777, as a fresh tmpfs is, as upstream).
 */
import type { V1EmptyDirVolumeSource } from "@kubernetes/client-node";
import { totalmem } from "node:os";
import { dirname } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { type QuantityInput, quantityValue } from "../util/quantity.ts";
import type { Mounter } from "./_mounter.ts";

export const EMPTY_DIR_PLUGIN_DIR = "kubernetes.io~empty-dir";
const PERM = 0o777;

/** A size in whole bytes (rounded up); throws ConfigError naming `field`. */
function quantityBytes(q: QuantityInput, field: string): number {
  // A size takes no sign: "-1Gi" is not a size, whatever the quantity grammar allows.
  if (String(q).startsWith("-")) {
    throw new ConfigError(field, `cannot parse quantity ${JSON.stringify(q)}`);
  }
  return quantityValue(q, { field });
}

/** Makes `dir` (0777 whatever the umask); true when it did not exist before. */
async function ensureDir(dir: string): Promise<boolean> {
  await Deno.mkdir(dirname(dir), { recursive: true, mode: PERM });
  let made = true;
  try {
    await Deno.mkdir(dir, { mode: PERM });
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    made = false;
  }
  // mkdir applies the umask; upstream chmods so pods with any uid can write.
  if (((await Deno.stat(dir)).mode ?? 0) & 0o777 ^ PERM) await Deno.chmod(dir, PERM);
  return made;
}

/** What bounds a memory-backed emptyDir besides its own sizeLimit. */
export interface EmptyDirMemoryBounds {
  /** The node's allocatable memory; default this machine's total memory. */
  nodeAllocatableBytes?: number;
  /** The pod cgroup's memory limit, when every container declares one. */
  podLimitBytes?: number;
}

/**
 * Upstream calculateEmptyDirMemorySize: node allocatable memory, lowered to the pod's memory
 * limit and then to the sizeLimit where those are positive and smaller. Without it the tmpfs
 * would get the kernel default, half of RAM, whatever the pod may use.
 */
export function emptyDirMemorySize(sizeLimit: number, bounds: EmptyDirMemoryBounds = {}): number {
  let size = bounds.nodeAllocatableBytes ?? totalmem();
  const pod = bounds.podLimitBytes ?? 0;
  if (pod > 0 && pod <= size) size = pod;
  if (sizeLimit > 0 && sizeLimit <= size) size = sizeLimit;
  return size;
}

/**
 * Creates the emptyDir at `dir` (idempotent: an existing dir or tmpfs is kept with its content).
 * A Memory medium is a tmpfs sized by `emptyDirMemorySize`; `deps.memory` is called only then,
 * when the tmpfs is first mounted, since computing the pod's limit parses all its quantities.
 * Resolves `fresh` when it made the directory or mounted the tmpfs now (upstream's volume was
 * not "ready": the set-up that applies the fsGroup). Throws ConfigError for an unsupported
 * medium or a bad sizeLimit.
 */
export async function setUpEmptyDir(
  volumeName: string,
  dir: string,
  src: V1EmptyDirVolumeSource,
  deps: { mounter: Mounter; memory?: () => EmptyDirMemoryBounds; signal?: AbortSignal },
): Promise<{ medium: "" | "Memory"; fresh: boolean }> {
  const field = `volume ${JSON.stringify(volumeName)}`;
  const medium = src.medium ?? "";
  if (medium !== "" && medium !== "Memory") {
    throw new ConfigError(field, `emptyDir medium ${JSON.stringify(medium)} is not supported`);
  }
  const sizeLimit = src.sizeLimit === undefined || src.sizeLimit === null
    ? 0
    : quantityBytes(src.sizeLimit, `${field}.emptyDir.sizeLimit`);
  let fresh = await ensureDir(dir);
  if (medium === "Memory" && !(await deps.mounter.isMountPoint(dir))) {
    const size = emptyDirMemorySize(sizeLimit, deps.memory?.());
    const options = size > 0 ? [`size=${size}`] : [];
    // The tmpfs root stays 1777 as mounted (upstream does not chmod it): a subPath directory
    // made in it takes that mode, sticky bit included, as the conformance specs expect.
    await deps.mounter.mount("tmpfs", dir, { fstype: "tmpfs", options, signal: deps.signal });
    fresh = true;
  }
  return { medium, fresh };
}
