/**
 * Makes sure a container's image is present, following its imagePullPolicy (kubelet's
 * `imageManager.EnsureImageExists`). Pulls run one at a time, as upstream's default
 * `serializeImagePulls: true`; failed pulls back off per pod and image (10 s doubling to 300 s).
 */
import { type EventRecorder, type EventType, podObjectRef } from "../events/mod.ts";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { Image, ImageService, PodSandboxConfig } from "../cri/types.ts";
import { Backoff } from "../util/backoff.ts";
import type { Clock } from "../util/clock.ts";
import { ImagePullError, isKind, RuntimeUnavailableError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";

/** Upstream image pull back-off: `backOffPeriod` and `MaxContainerBackOff`. */
export const IMAGE_BACKOFF_INITIAL_MS = 10_000;
export const IMAGE_BACKOFF_MAX_MS = 300_000;

export interface ImagePullerDeps {
  image: ImageService;
  clock: Clock;
  logger: Logger;
  /** Pulling, Pulled, Failed, BackOff, ErrImageNeverPull, InspectFailed; none by default. */
  events?: EventRecorder;
  /** Deadline for one PullImage call, in ms; defaults to the CRI client's own. */
  pullTimeoutMs?: number;
}

export interface EnsureImageOptions {
  /** Passed to PullImage (the runtime may use the pod's namespace/annotations). */
  sandboxConfig?: PodSandboxConfig;
  signal?: AbortSignal;
}

export type PullPolicy = "Always" | "IfNotPresent" | "Never";

/** The user an image runs as, from its ImageStatus: a numeric uid or a name. */
export interface ImageUser {
  uid?: number;
  username?: string;
}

/** What `ensureImage` found or pulled. */
export interface EnsuredImage {
  /** The image reference (id/digest) to create the container from. */
  ref: string;
  /**
   * The image's user when the presence check already read it; undefined after a pull, where
   * `imageUser` asks the runtime if the container config depends on it.
   */
  user?: ImageUser;
}

/**
 * Upstream getImageUser: the uid when the runtime reports one, else the user name; an image
 * with neither (or no status at all) runs as root.
 */
export function imageUserOf(image: Image | undefined): ImageUser {
  if (image?.uid) return { uid: image.uid.value };
  if (image?.username) return { username: image.username };
  return { uid: 0 };
}

export class ImagePuller {
  readonly #deps: ImagePullerDeps;
  readonly #backoff: Backoff;
  // Tail of the pull queue; never rejects.
  #tail: Promise<void> = Promise.resolve();

  constructor(deps: ImagePullerDeps) {
    this.#deps = deps;
    this.#backoff = new Backoff({
      initialMs: IMAGE_BACKOFF_INITIAL_MS,
      maxMs: IMAGE_BACKOFF_MAX_MS,
      clock: deps.clock,
      monotonic: true,
    });
  }

  /**
   * Resolves with the image reference (id/digest) to create the container from and, when the
   * presence check read it, the image's user. Throws `ImagePullError` with reason
   * InvalidImageName, ErrImageNeverPull, ImageInspectError, ImagePullBackOff or ErrImagePull;
   * lets RuntimeUnavailableError and aborts through.
   */
  async ensureImage(
    pod: V1Pod,
    container: V1Container,
    opts: EnsureImageOptions = {},
  ): Promise<EnsuredImage> {
    const log = this.#deps.logger.child({ container: container.name });
    const requested = container.image ?? "";
    const ref = podObjectRef(pod, {
      name: container.name,
      init: pod.spec?.initContainers?.some((c) => c.name === container.name) ?? false,
      ephemeral: pod.spec?.ephemeralContainers?.some((c) => c.name === container.name) ?? false,
    });
    const event = (type: EventType, reason: string, message: string) =>
      this.#deps.events?.event(ref, type, reason, message);
    try {
      return await this.#ensure(pod, container, { requested, log, event, ...opts });
    } catch (err) {
      const pull = err instanceof ImagePullError ? err : undefined;
      if (pull?.reason === "ImagePullBackOff") event("Normal", "BackOff", pull.message);
      else if (pull?.reason === "ErrImageNeverPull") event("Warning", pull.reason, pull.message);
      else if (pull?.reason === "InvalidImageName" || pull?.reason === "ImageInspectError") {
        event("Warning", "InspectFailed", pull.message);
      } else if (pull) {
        event("Warning", "Failed", `Failed to pull image "${requested}": ${pull.message}`);
      }
      throw err;
    }
  }

  async #ensure(
    pod: V1Pod,
    container: V1Container,
    opts: EnsureImageOptions & {
      requested: string;
      log: Logger;
      event: (type: EventType, reason: string, message: string) => void;
    },
  ): Promise<EnsuredImage> {
    const { signal, requested, log, event } = opts;
    const image = applyDefaultTag(requested);
    if (image === undefined) {
      throw new ImagePullError(
        "InvalidImageName",
        `Failed to apply default image tag "${requested}": couldn't parse image reference "${requested}": invalid reference format`,
      );
    }
    const policy = pullPolicyOf(container, image);
    let present: Image | undefined;
    if (policy !== "Always") {
      try {
        present = await this.#deps.image.imageStatus({ image }, { signal });
      } catch (err) {
        if (signal?.aborted || isKind(err, RuntimeUnavailableError)) throw err;
        throw new ImagePullError(
          "ImageInspectError",
          `Failed to inspect image "${requested}": ${errorMessage(err)}`,
          {
            cause: err,
          },
        );
      }
      if (present?.id) {
        log.debug(4, "Container image already present on machine", { image: requested });
        event("Normal", "Pulled", `Container image "${requested}" already present on machine`);
        // The same status answers runAsNonRoot, so a burst of starts makes no second call.
        return { ref: present.id, user: imageUserOf(present) };
      }
      if (policy === "Never") {
        throw new ImagePullError(
          "ErrImageNeverPull",
          `Container image "${requested}" is not present with pull policy of Never`,
        );
      }
    }

    const key = backoffKey(pod.metadata?.uid ?? "", requested);
    if (this.#backoff.inBackOffSinceUpdate(key, this.#deps.clock.monotonic())) {
      throw new ImagePullError("ImagePullBackOff", `Back-off pulling image "${requested}"`);
    }
    const queuedAt = this.#deps.clock.monotonic();
    return await this.#serial(async () => {
      const startedAt = this.#deps.clock.monotonic();
      log.info("Pulling image", { image: requested });
      event("Normal", "Pulling", `Pulling image "${requested}"`);
      try {
        const ref = await this.#deps.image.pullImage({ image }, opts.sandboxConfig, {
          signal,
          timeoutMs: this.#deps.pullTimeoutMs,
        });
        const now = this.#deps.clock.monotonic();
        log.info("Successfully pulled image", {
          image: requested,
          durationMs: now - startedAt,
          includingWaitingMs: now - queuedAt,
        });
        event(
          "Normal",
          "Pulled",
          `Successfully pulled image "${requested}" in ${goSeconds(now - startedAt)} ` +
            `(${goSeconds(now - queuedAt)} including waiting)`,
        );
        this.#backoff.gc();
        return { ref };
      } catch (err) {
        if (signal?.aborted || isKind(err, RuntimeUnavailableError)) throw err;
        this.#backoff.next(key);
        log.warn("Failed to pull image", { image: requested, err });
        throw new ImagePullError("ErrImagePull", errorMessage(err), { cause: err });
      }
    }, signal);
  }

  /**
   * The user of a present image (one ImageStatus call; upstream asks for it on every start,
   * callers only when `needsImageUser`).
   * An image the runtime no longer knows counts as root, as upstream. Errors pass through.
   */
  async imageUser(ref: string, opts: { signal?: AbortSignal } = {}): Promise<ImageUser> {
    return imageUserOf(await this.#deps.image.imageStatus({ image: ref }, opts));
  }

  /** Drops the pull back-off state of a deleted pod. */
  forgetPod(uid: string): void {
    this.#backoff.resetWhere((key) => key.startsWith(`${uid}_`));
  }

  /** Current pull back-off delay for a pod's image in ms (0 = none); for tests and status. */
  backoffMs(uid: string, image: string): number {
    return this.#backoff.get(backoffKey(uid, image));
  }

  // Runs `fn` after every earlier pull finished. A caller aborted while queued leaves the
  // queue without running, but the callers behind it still wait for the pulls ahead.
  async #serial<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const ahead = this.#tail;
    const mine = Promise.withResolvers<void>();
    this.#tail = ahead.then(() => mine.promise);
    try {
      await untilSettledOrAborted(ahead, signal);
      signal?.throwIfAborted();
      return await fn();
    } finally {
      mine.resolve();
    }
  }
}

function backoffKey(uid: string, image: string): string {
  return `${uid}_${image}`;
}

/** The pod's policy, or the API server's default: Always for `:latest`/untagged, else IfNotPresent. */
export function pullPolicyOf(container: V1Container, taggedImage: string): PullPolicy {
  const p = container.imagePullPolicy;
  if (p === "Always" || p === "IfNotPresent" || p === "Never") return p;
  if (!taggedImage.includes("@") && taggedImage.endsWith(":latest")) return "Always";
  return "IfNotPresent";
}

// name components, optional registry host[:port]; tag and/or digest.
const REFERENCE =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?(?::[0-9]+)?\/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[\w][\w.-]{0,127})?(?:@[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,})?$/;

/**
 * Adds `:latest` to a reference without tag or digest (upstream `applyDefaultImageTag`);
 * undefined when the reference does not parse.
 */
export function applyDefaultTag(image: string): string | undefined {
  if (!REFERENCE.test(image)) return undefined;
  if (image.includes("@")) return image;
  const lastPart = image.slice(image.lastIndexOf("/") + 1);
  return lastPart.includes(":") ? image : `${image}:latest`;
}

function untilSettledOrAborted(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, reject);
  });
}

/** A duration as Go prints one in these messages: seconds with up to 3 decimals, "1.234s". */
function goSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
