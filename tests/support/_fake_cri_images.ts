/** The fake CRI's image store (private to tests/support; used by FakeRuntime). */
import type { FilesystemUsage, Image } from "../../src/cri/types.ts";

/**
 * Normalises an image reference the way containerd does for lookups:
 * "busybox" → "docker.io/library/busybox:latest", "me/app" → "docker.io/me/app:latest".
 * Ids ("sha256:...") and references with a digest keep their digest and get no tag.
 */
export function normalizeImageRef(ref: string): string {
  if (/^sha256:[0-9a-f]+$/.test(ref)) return ref;
  const at = ref.indexOf("@");
  const namePart = at >= 0 ? ref.slice(0, at) : ref;
  const digest = at >= 0 ? ref.slice(at) : "";
  const slash = namePart.indexOf("/");
  const first = slash >= 0 ? namePart.slice(0, slash) : "";
  const hasDomain = slash >= 0 &&
    (first.includes(".") || first.includes(":") || first === "localhost");
  let name = hasDomain ? namePart : `docker.io/${slash >= 0 ? "" : "library/"}${namePart}`;
  const lastSlash = name.lastIndexOf("/");
  const hasTag = name.slice(lastSlash + 1).includes(":");
  if (!hasTag && !digest) name += ":latest";
  return name + digest;
}

/** Images keyed by id, found by id or by any (normalised) tag or digest. */
export class FakeImageStore {
  readonly byId = new Map<string, Image>();
  #seq = 0;

  find(ref: string): Image | undefined {
    const direct = this.byId.get(ref);
    if (direct) return direct;
    const name = normalizeImageRef(ref);
    return [...this.byId.values()].find((i) =>
      i.id === name || i.repoTags.includes(name) || i.repoDigests.includes(name)
    );
  }

  /** Adds `ref` unless present; returns the image id. */
  add(ref: string, opts: { id?: string; size?: number; pinned?: boolean } = {}): string {
    const existing = this.find(ref);
    if (existing) return existing.id;
    const name = normalizeImageRef(ref);
    this.#seq++;
    const id = opts.id ?? `sha256:${this.#seq.toString(16).padStart(64, "0")}`;
    const byDigest = name.includes("@");
    this.byId.set(id, {
      id,
      repoTags: byDigest ? [] : [name],
      repoDigests: byDigest ? [name] : [],
      size: opts.size ?? 1_000_000,
      pinned: opts.pinned ?? false,
    });
    return id;
  }

  /** Removes the image `ref` names; unknown images are ignored (RemoveImage is idempotent). */
  remove(ref: string): void {
    const found = this.find(ref);
    if (found) this.byId.delete(found.id);
  }

  fsUsage(timestampNs: number): FilesystemUsage[] {
    const images = [...this.byId.values()];
    return [{
      timestamp: timestampNs,
      fsId: { mountpoint: "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs" },
      usedBytes: { value: images.reduce((n, i) => n + i.size, 0) },
      inodesUsed: { value: images.length * 100 },
    }];
  }
}
