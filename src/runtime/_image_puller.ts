/**
 * Makes sure a container's image is present, following its imagePullPolicy (kubelet's
 * `imageManager.EnsureImageExists`): pulls with the pod's registry credentials, tried in order;
 * pulls run one at a time unless configured otherwise (`_pull_queue.ts`); failed pulls back off
 * per pod and image (10 s doubling to 300 s).
 */
import { type EventRecorder, type EventType, podObjectRef } from "../events/mod.ts";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { Image, ImageService, PodSandboxConfig } from "../cri/types.ts";
import type { Keyring } from "../credentials/mod.ts";
import { runtimeErrorText } from "../cri/mod.ts";
import { Backoff } from "../util/backoff.ts";
import type { Clock } from "../util/clock.ts";
import { ImagePullError, isKind, RuntimeUnavailableError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import {
  CredentialLookupError,
  lookupCredentials,
  pullWithCredentials,
} from "./_pull_credentials.ts";
import { PullQueue, type PullQueueOptions } from "./_pull_queue.ts";
import type { PodPullSecrets } from "./_pull_secrets.ts";

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
  /** serializeImagePulls and maxParallelImagePulls; default one pull at a time. */
  queue?: PullQueueOptions;
  /** Node-wide keyrings (credential provider plugins), asked after the pod's pull secrets. */
  keyrings?: () => Keyring[];
}

export interface EnsureImageOptions {
  /** Passed to PullImage (the runtime may use the pod's namespace/annotations). */
  sandboxConfig?: PodSandboxConfig;
  /** The pod's image pull secrets for this sync (API mode). */
  pullSecrets?: PodPullSecrets;
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
  readonly #queue: PullQueue;
  /** The last pull error per back-off key, shown while the pull backs off (upstream). */
  readonly #lastError = new Map<string, string>();

  constructor(deps: ImagePullerDeps) {
    this.#deps = deps;
    this.#backoff = new Backoff({
      initialMs: IMAGE_BACKOFF_INITIAL_MS,
      maxMs: IMAGE_BACKOFF_MAX_MS,
      clock: deps.clock,
    });
    this.#queue = new PullQueue(deps.queue);
  }

  /**
   * Resolves with the image reference (id/digest) to create the container from and, when the
   * presence check read it, the image's user. Throws `ImagePullError` with reason
   * InvalidImageName, ErrImageNeverPull, ImageInspectError, ImagePullBackOff or ErrImagePull,
   * or with upstream's message as reason when the pod's credentials cannot be looked up (a pull
   * secret that does not decode); lets RuntimeUnavailableError and aborts through.
   */
  ensureImage(
    pod: V1Pod,
    container: V1Container,
    opts: EnsureImageOptions = {},
  ): Promise<EnsuredImage> {
    const log = this.#deps.logger.child({ container: container.name });
    const requested = container.image ?? "";
    const ref = podObjectRef(pod, {
      name: container.name,
      init: pod.spec?.initContainers?.some((c) => c.name === container.name) ?? false,
    });
    const event = (type: EventType, reason: string, message: string) =>
      this.#deps.events?.event(ref, type, reason, message);
    return this.#ensure(pod, container, { requested, log, event, ...opts });
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
      const message =
        `Failed to apply default image tag "${requested}": couldn't parse image reference "${requested}": invalid reference format`;
      event("Warning", "InspectFailed", message);
      throw new ImagePullError("InvalidImageName", message);
    }
    const policy = pullPolicyOf(container, image);
    let present: Image | undefined;
    if (policy !== "Always") {
      try {
        present = await this.#deps.image.imageStatus({ image }, { signal });
      } catch (err) {
        if (signal?.aborted || isKind(err, RuntimeUnavailableError)) throw err;
        const message = `Failed to inspect image "${requested}": ${errorMessage(err)}`;
        event("Warning", "InspectFailed", message);
        throw new ImagePullError("ImageInspectError", message, { cause: err });
      }
      if (present?.id) {
        log.debug(4, "Container image already present on machine", { image: requested });
        event("Normal", "Pulled", `Container image "${requested}" already present on machine`);
        // The same status answers runAsNonRoot, so a burst of starts makes no second call.
        return { ref: present.id, user: imageUserOf(present) };
      }
      if (policy === "Never") {
        const message = `Container image "${requested}" is not present with pull policy of Never`;
        event("Warning", "ErrImageNeverPull", message);
        throw new ImagePullError("ErrImageNeverPull", message);
      }
    }

    let credentials;
    try {
      credentials = await lookupCredentials(image, {
        secrets: opts.pullSecrets,
        keyrings: this.#deps.keyrings,
        signal,
      });
    } catch (err) {
      if (!(err instanceof CredentialLookupError)) throw err;
      // Upstream returns the lookup's error itself: its text is the waiting reason.
      log.warn("Cannot look up the image's pull credentials", { image: requested, err });
      throw new ImagePullError(err.message, err.message, { cause: err });
    }
    return await this.#pull(pod, { ...opts, image, credentials });
  }

  /** Upstream imageManager.pullImage: back-off, Pulling, the pull in its queue, Pulled. */
  async #pull(
    pod: V1Pod,
    opts: Parameters<ImagePuller["ensureImage"]>[2] & {
      requested: string;
      image: string;
      credentials: Awaited<ReturnType<typeof lookupCredentials>>;
      log: Logger;
      event: (type: EventType, reason: string, message: string) => void;
    },
  ): Promise<EnsuredImage> {
    const { signal, requested, image, log, event } = opts;
    const key = backoffKey(pod.metadata?.uid ?? "", requested);
    if (this.#backoff.inBackOffSinceUpdate(key, this.#deps.clock.now())) {
      const message = `Back-off pulling image "${requested}"`;
      event("Normal", "BackOff", message);
      const last = this.#lastError.get(key);
      throw new ImagePullError("ImagePullBackOff", last ? `${message}: ${last}` : message);
    }
    this.#lastError.delete(key);
    const queuedAt = this.#deps.clock.now();
    return await this.#queue.run(async () => {
      const startedAt = this.#deps.clock.now();
      log.info("Pulling image", { image: requested, credentials: opts.credentials.length });
      event("Normal", "Pulling", `Pulling image "${requested}"`);
      try {
        const { ref } = await pullWithCredentials(this.#deps.image, image, {
          credentials: opts.credentials,
          sandboxConfig: opts.sandboxConfig,
          signal,
          timeoutMs: this.#deps.pullTimeoutMs,
        });
        const now = this.#deps.clock.now();
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
        const text = runtimeErrorText(err);
        log.warn("Failed to pull image", { image: requested, err: text });
        event("Warning", "Failed", `Failed to pull image "${requested}": ${text}`);
        this.#lastError.set(key, `ErrImagePull: ${text}`);
        throw new ImagePullError("ErrImagePull", text, { cause: err });
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
    for (const key of this.#lastError.keys()) {
      if (key.startsWith(`${uid}_`)) this.#lastError.delete(key);
    }
  }

  /** Current pull back-off delay for a pod's image in ms (0 = none); for tests and status. */
  backoffMs(uid: string, image: string): number {
    return this.#backoff.get(backoffKey(uid, image));
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

/** A duration as Go prints one in these messages: seconds with up to 3 decimals, "1.234s". */
function goSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}
