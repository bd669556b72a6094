/**
 * Makes sure a container's image is present, following its imagePullPolicy (kubelet's
 * `imageManager.EnsureImageExists`): pulls with the pod's registry credentials, tried in order;
 * pulls run one at a time unless configured otherwise (`_pull_queue.ts`); failed pulls back off
 * per pod and image (10 s doubling to 300 s).
 */
import { type EventRecorder, type EventType, podObjectRef } from "../events/mod.ts";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { Image, ImageService, PodSandboxConfig } from "../cri/types.ts";
import type { Keyring, TrackedAuthConfig } from "../credentials/mod.ts";
import { runtimeErrorText } from "../cri/mod.ts";
import { Backoff } from "../util/backoff.ts";
import type { Clock } from "../util/clock.ts";
import { DenoletError, ImagePullError, isKind, RuntimeUnavailableError } from "../util/errors.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import {
  CredentialLookupError,
  lookupCredentials,
  pullWithCredentials,
} from "./_pull_credentials.ts";
import { PullQueue, type PullQueueOptions, PullRateLimit } from "./_pull_queue.ts";
import { formatDuration } from "../config/duration.ts";
import type { PodPullSecrets } from "./_pull_secrets.ts";
import { applyDefaultTag, pullPolicyOf } from "./_pull_policy.ts";

export { applyDefaultTag, type PullPolicy, pullPolicyOf } from "./_pull_policy.ts";
import { podCredentialsOf, pulledWith, type PullRecords } from "./_pull_records.ts";

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
  /** registryPullQPS and registryBurst; default no limit. */
  rate?: { qps: number; burst: number };
  /** Keyrings beyond the pod's pull secrets (credential provider plugins), asked after them. */
  keyrings?: (pod: V1Pod) => Keyring[];
  /**
   * The pulled-image records (KubeletEnsureSecretPulledImages): a present image is handed to a
   * pod only when it may use it. Without, every pod may use every present image.
   */
  pullRecords?: PullRecords;
}

export interface EnsureImageOptions {
  /** Passed to PullImage (the runtime may use the pod's namespace/annotations). */
  sandboxConfig?: PodSandboxConfig;
  /** The pod's image pull secrets for this sync (API mode). */
  pullSecrets?: PodPullSecrets;
  signal?: AbortSignal;
}

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
  readonly #rate: PullRateLimit;
  /** The last pull error per back-off key, shown while the pull backs off (upstream). */
  readonly #lastError = new Map<string, string>();

  constructor(deps: ImagePullerDeps) {
    this.#deps = deps;
    this.#backoff = new Backoff({
      initialMs: IMAGE_BACKOFF_INITIAL_MS,
      maxMs: IMAGE_BACKOFF_MAX_MS,
      clock: deps.clock,
      monotonic: true,
    });
    this.#queue = new PullQueue(deps.queue);
    this.#rate = new PullRateLimit({
      qps: deps.rate?.qps ?? 0,
      burst: deps.rate?.burst ?? 0,
      now: () => deps.clock.monotonic(),
    });
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
      ephemeral: pod.spec?.ephemeralContainers?.some((c) => c.name === container.name) ?? false,
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
    // Looked up once, and only when a pull or a verification needs them (upstream OnceValues).
    let lookup: Promise<TrackedAuthConfig[]> | undefined;
    const credentials = () =>
      lookup ??= lookupCredentials(image, {
        pod,
        secrets: opts.pullSecrets,
        keyrings: this.#deps.keyrings,
        signal,
      }).catch((err) => {
        if (!(err instanceof CredentialLookupError)) throw err;
        // Upstream returns the lookup's error itself: its text is the waiting reason.
        log.warn("Cannot look up the image's pull credentials", { image: requested, err });
        throw new ImagePullError(err.message, err.message, { cause: err });
      });
    if (policy !== "Always") {
      const found = await this.#present(image, { ...opts, credentials });
      if (found) return found;
      if (policy === "Never") {
        const message = `Container image "${requested}" is not present with pull policy of Never`;
        event("Warning", "ErrImageNeverPull", message);
        throw new ImagePullError("ErrImageNeverPull", message);
      }
    }
    return await this.#pull(pod, { ...opts, image, credentials: await credentials() });
  }

  /**
   * The image when it is on the node and the pod may use it: with the pull records on, a pod
   * must show the credentials the image was pulled with (unless the policy says otherwise).
   */
  async #present(
    image: string,
    opts: EnsureImageOptions & {
      requested: string;
      log: Logger;
      event: (type: EventType, reason: string, message: string) => void;
      credentials: () => Promise<TrackedAuthConfig[]>;
    },
  ): Promise<EnsuredImage | undefined> {
    const { signal, requested, log, event } = opts;
    let present: Image | undefined;
    try {
      present = await this.#deps.image.imageStatus({ image }, { signal });
    } catch (err) {
      if (signal?.aborted || isKind(err, RuntimeUnavailableError)) throw err;
      const message = `Failed to inspect image "${requested}": ${errorMessage(err)}`;
      event("Warning", "InspectFailed", message);
      throw new ImagePullError("ImageInspectError", message, { cause: err });
    }
    if (!present?.id) return undefined;
    let message = `Container image "${requested}" already present on machine`;
    const records = this.#deps.pullRecords;
    if (records) {
      const podCredentials = async () => podCredentialsOf(await opts.credentials());
      if (await records.mustAttemptImagePull(requested, present.id, podCredentials)) {
        log.debug(3, "Image present, but the pod's credentials must be verified by a pull", {
          image: requested,
        });
        return undefined;
      }
      message += " and can be accessed by the pod";
    }
    log.debug(4, "Container image already present on machine", { image: requested });
    event("Normal", "Pulled", message);
    // The same status answers runAsNonRoot, so a burst of starts makes no second call.
    return { ref: present.id, user: imageUserOf(present) };
  }

  /** Upstream imageManager.pullImage: back-off, Pulling, the pull in its queue, Pulled. */
  async #pull(
    pod: V1Pod,
    opts: Parameters<ImagePuller["ensureImage"]>[2] & {
      requested: string;
      image: string;
      credentials: TrackedAuthConfig[];
      log: Logger;
      event: (type: EventType, reason: string, message: string) => void;
    },
  ): Promise<EnsuredImage> {
    const { signal, requested, event } = opts;
    const key = backoffKey(pod.metadata?.uid ?? "", requested);
    if (this.#backoff.inBackOffSinceUpdate(key, this.#deps.clock.monotonic())) {
      const message = `Back-off pulling image "${requested}"`;
      event("Normal", "BackOff", message);
      const last = this.#lastError.get(key);
      throw new ImagePullError("ImagePullBackOff", last ? `${message}: ${last}` : message);
    }
    this.#lastError.delete(key);
    const records = this.#deps.pullRecords;
    if (records) {
      try {
        await records.recordPullIntent(requested);
      } catch (err) {
        const message = `Failed to record image pull intent for container image "${requested}": ${
          errorMessage(err)
        }`;
        throw new ImagePullError(
          `failed to record image pull intent: ${errorMessage(err)}`,
          message,
          {
            cause: err,
          },
        );
      }
    }
    const queuedAt = this.#deps.clock.monotonic();
    let pulled: { ref: string; used?: TrackedAuthConfig; status?: Image } | undefined;
    try {
      pulled = await this.#queue.run(() => this.#pullNow({ ...opts, key, queuedAt }), signal);
    } finally {
      if (records && pulled) {
        await records.recordImagePulled(requested, pulled.ref, pulledWith(pulled.used));
      } else if (records) await records.recordImagePullFailed(requested);
    }
    return { ref: pulled.ref, user: pulled.status ? imageUserOf(pulled.status) : undefined };
  }

  /** The pull itself, its events and back-off; in its turn of the queue. */
  async #pullNow(
    opts: Parameters<ImagePuller["ensureImage"]>[2] & {
      requested: string;
      image: string;
      credentials: TrackedAuthConfig[];
      log: Logger;
      event: (type: EventType, reason: string, message: string) => void;
      key: string;
      queuedAt: number;
    },
  ): Promise<{ ref: string; used?: TrackedAuthConfig; status?: Image }> {
    const { signal, requested, image, log, event, key, queuedAt } = opts;
    const startedAt = this.#deps.clock.monotonic();
    log.info("Pulling image", { image: requested, credentials: opts.credentials.length });
    event("Normal", "Pulling", `Pulling image "${requested}"`);
    try {
      if (!this.#rate.tryAccept()) throw new PullRateError("pull QPS exceeded");
      const result = await pullWithCredentials(this.#deps.image, image, {
        credentials: opts.credentials,
        sandboxConfig: opts.sandboxConfig,
        signal,
        timeoutMs: this.#deps.pullTimeoutMs,
      });
      const status = await this.#pulledStatus(image, signal);
      const size = status?.size ?? 0;
      const now = this.#deps.clock.monotonic();
      log.info("Successfully pulled image", {
        image: requested,
        durationMs: now - startedAt,
        includingWaitingMs: now - queuedAt,
        size,
      });
      // Go's durations truncated to the millisecond, as upstream prints them.
      event(
        "Normal",
        "Pulled",
        `Successfully pulled image "${requested}" in ${goDuration(now - startedAt)} ` +
          `(${goDuration(now - queuedAt)} including waiting). Image size: ${size} bytes.`,
      );
      this.#backoff.gc();
      return { ...result, status };
    } catch (err) {
      if (signal?.aborted || isKind(err, RuntimeUnavailableError)) throw err;
      this.#backoff.next(key);
      const text = runtimeErrorText(err);
      log.warn("Failed to pull image", { image: requested, err: text });
      event("Warning", "Failed", `Failed to pull image "${requested}": ${text}`);
      this.#lastError.set(key, `ErrImagePull: ${text}`);
      throw new ImagePullError("ErrImagePull", text, { cause: err });
    }
  }

  /**
   * The pulled image's status, best effort, as upstream reads it for the size in the Pulled
   * event; its user saves the container config a second call.
   */
  async #pulledStatus(image: string, signal?: AbortSignal): Promise<Image | undefined> {
    try {
      return await this.#deps.image.imageStatus({ image }, { signal });
    } catch (err) {
      if (signal?.aborted || isKind(err, RuntimeUnavailableError)) throw err;
      return undefined;
    }
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

/** A duration as Go prints it after Truncate(time.Millisecond): "523ms", "1.234s", "2m3.5s". */
function goDuration(ms: number): string {
  return formatDuration(Math.max(0, Math.trunc(ms)));
}

/** The pull rate limit refused a pull (registryPullQPS). */
class PullRateError extends DenoletError {}
