/**
 * Image garbage collection (images/image_gc_manager.go): when the image filesystem is fuller
 * than the high threshold, remove unused images — least recently used first, none younger than
 * the minimum age — until usage is down to the low threshold.
 */
import type { Image, ImageService, RuntimeService } from "../cri/types.ts";
import type { Clock } from "../util/clock.ts";
import { ConfigError, DenoletError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { formatDuration } from "../config/duration.ts";

export interface ImageGCPolicy {
  /** --image-gc-high-threshold: percent of disk usage that starts a collection (100 = never). */
  highThresholdPercent: number;
  /** --image-gc-low-threshold: percent of disk usage a collection frees down to. */
  lowThresholdPercent: number;
  /** --image-minimum-gc-age: an image detected more recently than this stays. */
  minAgeMs: number;
  /**
   * imageMaximumGCAge: an unused image not used for longer than this is removed whatever the
   * disk usage (once the agent has run that long); 0 = never.
   */
  maxAgeMs?: number;
}

export const DEFAULT_IMAGE_GC_POLICY: ImageGCPolicy = {
  highThresholdPercent: 85,
  lowThresholdPercent: 80,
  minAgeMs: 120_000,
  maxAgeMs: 0,
};

/** Fewer bytes were eligible for removal than needed. */
export class ImageGCError extends DenoletError {}

export interface FsStats {
  capacityBytes: number;
  availableBytes: number;
}

export interface ImageGCDeps {
  image: ImageService;
  /** Lists every container on the runtime (all nodes' too): an image any of them uses stays. */
  runtime: RuntimeService;
  clock: Clock;
  logger: Logger;
  /** Capacity and free space of the filesystem holding `path` (statfs). */
  fsStats(path: string): Promise<FsStats>;
  /** --pod-infra-container-image: the runtime's sandbox image, never removed. */
  sandboxImage?: string;
  /**
   * After a round that freed space: the ids of the images left and when the round began (the
   * pulled-image records drop the rest, upstream's post-GC hook). Must not throw.
   */
  afterFree?: (remainingIds: string[], startedAt: number) => Promise<void>;
}

interface ImageRecord {
  firstDetected: number;
  /** 0 when never seen in use. */
  lastUsed: number;
  size: number;
  pinned: boolean;
  /** The name to remove by (id). */
  id: string;
}

/** Throws ConfigError for thresholds upstream rejects. */
export function checkImageGCPolicy(p: ImageGCPolicy): void {
  for (
    const [k, v] of [["imageGCHighThresholdPercent", p.highThresholdPercent], [
      "imageGCLowThresholdPercent",
      p.lowThresholdPercent,
    ]] as const
  ) {
    if (!Number.isInteger(v) || v < 0 || v > 100) {
      throw new ConfigError(k, `must be an integer percentage between 0 and 100, got ${v}`);
    }
  }
  if (p.lowThresholdPercent > p.highThresholdPercent) {
    throw new ConfigError(
      "imageGCLowThresholdPercent",
      `(${p.lowThresholdPercent}) must not be greater than imageGCHighThresholdPercent (${p.highThresholdPercent})`,
    );
  }
}

/** A reference as the runtime stores it: docker.io/library/ for short names, :latest when untagged. */
export function normalizeImageRef(ref: string): string {
  if (ref.startsWith("sha256:")) return ref;
  let name = ref;
  const first = name.split("/")[0];
  if (!name.includes("/")) name = `docker.io/library/${name}`;
  else if (!first.includes(".") && !first.includes(":") && first !== "localhost") {
    name = `docker.io/${name}`;
  }
  const last = name.split("/").at(-1) ?? "";
  if (!last.includes(":") && !name.includes("@")) name += ":latest";
  return name;
}

function names(img: Image): string[] {
  return [img.id, ...img.repoTags, ...img.repoDigests];
}

export class ImageGC {
  readonly #deps: ImageGCDeps;
  readonly #records = new Map<string, ImageRecord>();
  /** When collection began (upstream beganGC): no image is too old before maxAge has passed. */
  readonly #began: number;

  constructor(deps: ImageGCDeps) {
    this.#deps = deps;
    this.#began = deps.clock.now();
  }

  /**
   * Upstream freeOldImages: removes the unused, unpinned images not used for longer than
   * `maxAgeMs`, once the collector has run that long. Returns the bytes freed.
   */
  async freeOldImages(maxAgeMs: number, opts: { signal?: AbortSignal } = {}): Promise<number> {
    const now = this.#deps.clock.now();
    if (!(maxAgeMs > 0) || now - this.#began <= maxAgeMs) return 0;
    await this.detect(now, opts);
    let freed = 0;
    const failures: string[] = [];
    for (const r of [...this.#records.values()]) {
      if (r.pinned || r.lastUsed >= now || now - r.lastUsed <= maxAgeMs) continue;
      try {
        await this.#deps.image.removeImage({ image: r.id }, opts);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        failures.push(errorMessage(err));
        continue;
      }
      this.#records.delete(r.id);
      this.#deps.logger.info("Removed image not used within imageMaximumGCAge", {
        image: r.id,
        size: r.size,
      });
      freed += r.size;
    }
    if (failures.length > 0) {
      throw new ImageGCError(
        `wanted to free images older than ${formatDuration(maxAgeMs)}, encountered errors in ` +
          `image deletion: ${failures.length === 1 ? failures[0] : `[${failures.join(", ")}]`}`,
      );
    }
    return freed;
  }

  /**
   * Lists images and containers and updates first-detected / last-used times; `now` marks the
   * images in use (and the sandbox image). Returns the present images.
   */
  async detect(now: number, opts: { signal?: AbortSignal } = {}): Promise<Image[]> {
    const { signal } = opts;
    const [images, containers] = await Promise.all([
      this.#deps.image.listImages({ signal }),
      this.#deps.runtime.listContainers({}, { signal }),
    ]);
    const inUse = new Set<string>();
    for (const c of containers) {
      inUse.add(c.imageRef);
      inUse.add(c.image.image);
      inUse.add(normalizeImageRef(c.image.image));
    }
    if (this.#deps.sandboxImage) inUse.add(normalizeImageRef(this.#deps.sandboxImage));
    const present = new Set<string>();
    for (const img of images) {
      present.add(img.id);
      let rec = this.#records.get(img.id);
      if (!rec) {
        rec = { id: img.id, firstDetected: now, lastUsed: 0, size: 0, pinned: false };
        this.#records.set(img.id, rec);
      }
      if (names(img).some((n) => inUse.has(n))) rec.lastUsed = now;
      rec.size = img.size;
      rec.pinned = img.pinned === true;
    }
    for (const id of this.#records.keys()) if (!present.has(id)) this.#records.delete(id);
    return images;
  }

  /**
   * Removes unused images, least recently used first (then earliest detected), skipping pinned
   * ones, the sandbox image, those in use now and those younger than `minAgeMs`, until
   * `bytesToFree` is reached. Returns the bytes freed (may be less; the caller decides).
   */
  async freeSpace(
    bytesToFree: number,
    opts: { minAgeMs: number; signal?: AbortSignal },
  ): Promise<number> {
    const { signal } = opts;
    const now = this.#deps.clock.monotonic();
    await this.detect(now, { signal });
    const candidates = [...this.#records.values()]
      .filter((r) => !r.pinned && r.lastUsed < now)
      .sort((a, b) => a.lastUsed - b.lastUsed || a.firstDetected - b.firstDetected);
    let freed = 0;
    for (const r of candidates) {
      if (freed >= bytesToFree) break;
      if (now - r.firstDetected < opts.minAgeMs) continue;
      try {
        await this.#deps.image.removeImage({ image: r.id }, { signal });
      } catch (err) {
        if (signal?.aborted) throw err;
        this.#deps.logger.warn("Cannot remove unused image", {
          image: r.id,
          err: errorMessage(err),
        });
        continue;
      }
      this.#records.delete(r.id);
      this.#deps.logger.info("Removed unused image", { image: r.id, size: r.size });
      freed += r.size;
    }
    await this.#deps.afterFree?.([...this.#records.keys()], now);
    return freed;
  }

  /**
   * One threshold check: when image filesystem usage is at or above the high threshold, free
   * down to the low one. Throws ImageGCError when too few bytes were eligible.
   */
  async garbageCollect(
    policy: ImageGCPolicy,
    opts: { signal?: AbortSignal } = {},
  ): Promise<{ usagePercent: number; freed: number }> {
    const { signal } = opts;
    await this.freeOldImages(policy.maxAgeMs ?? 0, { signal });
    const fs = (await this.#deps.image.imageFsInfo({ signal }))[0];
    const mount = fs?.fsId?.mountpoint;
    if (!mount) {
      throw new ImageGCError(
        "Cannot garbage collect images: the runtime reports no image filesystem",
      );
    }
    const { capacityBytes, availableBytes } = await this.#deps.fsStats(mount);
    if (capacityBytes <= 0) {
      throw new ImageGCError(
        `Cannot garbage collect images: invalid capacity ${capacityBytes} on ${mount}`,
      );
    }
    const usagePercent = 100 - Math.floor((availableBytes * 100) / capacityBytes);
    if (usagePercent < policy.highThresholdPercent || policy.highThresholdPercent >= 100) {
      // Keep the records fresh so last-used times are right when space runs out.
      await this.detect(this.#deps.clock.monotonic(), { signal });
      return { usagePercent, freed: 0 };
    }
    const toFree = Math.floor((capacityBytes * (100 - policy.lowThresholdPercent)) / 100) -
      availableBytes;
    this.#deps.logger.info("Image filesystem usage over the high threshold, freeing images", {
      usagePercent,
      highThreshold: policy.highThresholdPercent,
      bytesToFree: toFree,
    });
    const freed = await this.freeSpace(toFree, { minAgeMs: policy.minAgeMs, signal });
    if (freed < toFree) {
      throw new ImageGCError(
        `Failed to garbage collect required amount of images. Attempted to free ${toFree} bytes, but only found ${freed} bytes eligible to free.`,
      );
    }
    return { usagePercent, freed };
  }
}
