/**
 * The images the Node reports (upstream nodestatus.Images over the image manager's cache): the
 * largest first, at most nodeStatusMaxImages of them, each with at most five names (digests,
 * then tags). The scheduler's ImageLocality scoring reads them.
 */
import type { V1ContainerImage } from "@kubernetes/client-node";
import type { Image } from "../cri/types.ts";

/** Upstream MaxNamesPerImageInNodeStatus. */
export const MAX_NAMES_PER_IMAGE = 5;

/** upstream nodeStatusMaxImages default. */
export const DEFAULT_MAX_IMAGES = 50;

/** `maxImages` -1 reports every image. */
export function nodeImages(images: readonly Image[], maxImages: number): V1ContainerImage[] {
  // Upstream's ByImageSize: larger first, equal sizes by id, descending.
  const sorted = [...images].sort((a, b) =>
    a.size !== b.size ? b.size - a.size : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
  );
  const kept = maxImages > -1 ? sorted.slice(0, maxImages) : sorted;
  return kept.map((img) => ({
    names: [...img.repoDigests, ...img.repoTags].slice(0, MAX_NAMES_PER_IMAGE),
    sizeBytes: img.size,
  }));
}
