/**
 * emptyDir volumes (pkg/volume/emptydir/empty_dir.go): a 0777 directory under the pod dir, a
 * tmpfs mounted there for medium "Memory" (its root 1777, as a fresh tmpfs is, as upstream), or
 * hugetlbfs for "HugePages[-<size>]".
 */
import type { V1EmptyDirVolumeSource, V1Pod } from "@kubernetes/client-node";
import { totalmem } from "node:os";
import { dirname } from "node:path";
import { ConfigError } from "../util/errors.ts";
import { type QuantityInput, quantityValue, tryIntegerQuantity } from "../util/quantity.ts";
import { HUGEPAGES_PREFIX, hugePageSizeOf } from "../util/hugepages.ts";
import { podLevelList, podLevelResourcesSet } from "../util/pod_level.ts";
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
  deps: {
    mounter: Mounter;
    memory?: () => EmptyDirMemoryBounds;
    /** The pod, whose hugepages requests give a HugePages medium its page size. */
    pod?: V1Pod;
    signal?: AbortSignal;
  },
): Promise<{ medium: EmptyDirMedium; fresh: boolean }> {
  const field = `volume ${JSON.stringify(volumeName)}`;
  const medium = src.medium ?? "";
  if (isHugePagesMedium(medium)) {
    let fresh = await ensureDir(dir);
    // Idempotent as the tmpfs case: a mounted hugetlbfs is kept as it is.
    if (!(await deps.mounter.isMountPoint(dir))) {
      fresh = true;
      const option = pageSizeMountOption(medium, deps.pod ?? {}, field);
      await deps.mounter.mount("nodev", dir, {
        fstype: "hugetlbfs",
        options: [option],
        signal: deps.signal,
      });
    }
    return { medium: "HugePages", fresh };
  }
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

/** What backs an emptyDir: the node's disk, memory (tmpfs), or huge pages (hugetlbfs). */
export type EmptyDirMedium = "" | "Memory" | "HugePages";

/** "HugePages" or "HugePages-<size>" (IsHugePageMedium). */
export function isHugePagesMedium(medium: string): boolean {
  return medium === "HugePages" || medium.startsWith("HugePages-");
}

/**
 * The hugetlbfs `pagesize=` option (getPageSizeMountOption): the size a "HugePages-<size>"
 * medium names, which some pod-level or container request must ask for; for plain
 * "HugePages", the one size the pod's hugepages requests use. Throws ConfigError otherwise.
 */
export function pageSizeMountOption(medium: string, pod: V1Pod, field: string): string {
  let wanted: number | undefined;
  if (medium !== "HugePages") {
    wanted = tryIntegerQuantity(medium.slice("HugePages-".length))?.value;
    if (!wanted) {
      throw new ConfigError(field, `cannot parse the huge page size of medium ${medium}`);
    }
  }
  const lists = [
    ...(podLevelResourcesSet(pod) ? [podLevelList(pod, "requests")] : []),
    ...[...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].map((c) =>
      (c.resources?.requests ?? {}) as Record<string, unknown>
    ),
  ];
  let found: { bytes: number; text: string } | undefined;
  for (const list of lists) {
    for (const name of Object.keys(list)) {
      const bytes = hugePageSizeOf(name);
      if (bytes === undefined) continue;
      const text = name.slice(HUGEPAGES_PREFIX.length);
      if (wanted === undefined) {
        if (found && found.bytes !== bytes) {
          throw new ConfigError(
            field,
            `medium: ${medium} can't be used if container requests multiple huge page sizes`,
          );
        }
        found = { bytes, text };
      } else if (bytes === wanted) {
        found = { bytes, text };
      }
    }
  }
  if (!found) {
    throw new ConfigError(
      field,
      `medium ${medium}: hugePages storage requested, but there is no resource request for ` +
        "huge pages",
    );
  }
  return `pagesize=${found.text}`;
}
