/**
 * Waiting for a claim volume's VolumeAttachment as upstream's kubelet does it (csi_attacher
 * WaitForAttach): one GET per try, and a try that finds the attachment missing, failed or not
 * attached yet fails. The next try for that attachment waits out upstream's back-off for volume
 * operations (goroutinemap/exponentialbackoff: 500 ms, doubling, at most 2 min 2 s); a try
 * before then fails at once with the last error and no API call. So a volume that stays
 * unattached costs one GET every two minutes, not one on every sync of its pods.
 */
import type { ApiClient } from "../apiclient/types.ts";
import type { Clock } from "../util/clock.ts";
import { sha256Hex } from "../util/digest.ts";
import { errorMessage } from "../util/log.ts";
import { PluginCsiError } from "./_errors.ts";

/** Upstream's initialDurationBeforeRetry and maxDurationBeforeRetry. */
export const ATTACH_BACKOFF_INITIAL_MS = 500;
export const ATTACH_BACKOFF_MAX_MS = 2 * 60_000 + 2_000;

interface VolumeAttachment {
  metadata?: { name?: string; deletionTimestamp?: string };
  status?: {
    attached?: boolean;
    attachmentMetadata?: Record<string, string>;
    attachError?: { message?: string };
  };
}

export interface Attachment {
  /** The VolumeAttachment's name (upstream's attachID). */
  name: string;
  /** Its status.attachmentMetadata, for NodeStage and NodePublish. */
  publishContext: Record<string, string>;
}

/** upstream getAttachmentName: `csi-<sha256(handle + driver + node)>`. */
export async function attachmentName(
  v: { handle: string; driver: string; nodeName: string },
): Promise<string> {
  return `csi-${await sha256Hex(`${v.handle}${v.driver}${v.nodeName}`)}`;
}

export class AttachmentWaiter {
  readonly #client: ApiClient;
  readonly #clock: Clock;
  readonly #nodeName: string;
  /** Per attachment name: the last failed try's error and when the next may run. */
  readonly #backoff = new Map<string, { error: Error; retryAt: number; delayMs: number }>();

  constructor(deps: { client: ApiClient; clock: Clock; nodeName: string }) {
    this.#client = deps.client;
    this.#clock = deps.clock;
    this.#nodeName = deps.nodeName;
  }

  /**
   * The attachment of `handle` to this node when it is attached; throws (a PluginCsiError
   * with upstream's text) when not, or the last such error while backing off. Waits for
   * nothing; an abort rejects and does not count as a failed try.
   */
  async attached(
    handle: string,
    driver: string,
    opts: { signal?: AbortSignal } = {},
  ): Promise<Attachment> {
    const name = await attachmentName({ handle, driver, nodeName: this.#nodeName });
    this.#throwIfBackingOff(name);
    const last = this.#backoff.get(name);
    try {
      const a = await this.#check(name, handle, opts.signal);
      this.#backoff.delete(name);
      return a;
    } catch (err) {
      opts.signal?.throwIfAborted();
      const delayMs = last
        ? Math.min(last.delayMs * 2, ATTACH_BACKOFF_MAX_MS)
        : ATTACH_BACKOFF_INITIAL_MS;
      const error = err instanceof Error ? err : new Error(String(err));
      this.#backoff.set(name, { error, delayMs, retryAt: this.#clock.monotonic() + delayMs });
      throw err;
    }
  }

  /**
   * Throws the last error while the attachment of `handle` is backing off, so that a mount
   * waiting for it asks the API server nothing else either (the CSIDriver) until then.
   */
  async throwIfBackingOff(handle: string, driver: string): Promise<void> {
    this.#throwIfBackingOff(await attachmentName({ handle, driver, nodeName: this.#nodeName }));
  }

  #throwIfBackingOff(name: string): void {
    const last = this.#backoff.get(name);
    if (last && this.#clock.monotonic() < last.retryAt) throw last.error;
  }

  async #check(name: string, handle: string, signal?: AbortSignal): Promise<Attachment> {
    const failed = (why: string, cause?: unknown) =>
      new PluginCsiError(why, "MountVolume.WaitForAttach failed", { cause });
    let va: VolumeAttachment;
    try {
      va = await this.#client.request<VolumeAttachment>({
        method: "GET",
        path: `/apis/storage.k8s.io/v1/volumeattachments/${name}`,
      }, { signal });
    } catch (err) {
      signal?.throwIfAborted();
      throw failed(
        `volume ${handle} has GET error for volume attachment ${name}: ${apiText(err, name)}`,
        err,
      );
    }
    // upstream verifyAttachmentStatus
    if (va.metadata?.deletionTimestamp) throw failed("volume attachment is being deleted");
    if (va.status?.attached) {
      return { name, publishContext: va.status.attachmentMetadata ?? {} };
    }
    if (va.status?.attachError) throw failed(va.status.attachError.message ?? "");
    throw failed(`volume ${handle} is not attached for volume attachment ${name}`);
  }
}

/** The API server's words for a failed GET: its Status message for a missing object. */
function apiText(err: unknown, name: string): string {
  const status = (err as { status?: number }).status;
  if (status === 404) return `volumeattachments.storage.k8s.io ${JSON.stringify(name)} not found`;
  return errorMessage(err);
}
