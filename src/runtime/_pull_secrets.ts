/**
 * A pod's image pull secrets for one sync (upstream getPullSecretsForPod): read from the API
 * mode's Secret cache only when a pull needs them, once per sync. A Secret that cannot be read
 * is left out with a log line; if the sync then fails a pull, the pod gets upstream's
 * FailedToRetrieveImagePullSecret event naming the Secrets it could not read.
 */
import type { V1Pod, V1Secret } from "@kubernetes/client-node";
import { type EventRecorder, podObjectRef } from "../events/mod.ts";
import type { PodObjects } from "../objects/types.ts";
import type { Logger } from "../util/log.ts";
import type { SyncStepError } from "./types.ts";

/** Where Secrets come from (the API mode's object caches); standalone, none can be read. */
export type PullSecretReader = Pick<PodObjects, "secret">;

export class PodPullSecrets {
  readonly #pod: V1Pod;
  readonly #reader?: PullSecretReader;
  readonly #log: Logger;
  #read?: Promise<V1Secret[]>;
  readonly #missing: string[] = [];

  constructor(pod: V1Pod, deps: { reader?: PullSecretReader; log: Logger }) {
    this.#pod = pod;
    this.#reader = deps.reader;
    this.#log = deps.log;
  }

  /** Whether the pod names any pull secret (empty names do not count, as upstream). */
  get named(): boolean {
    return (this.#pod.spec?.imagePullSecrets ?? []).some((r) => r.name);
  }

  /**
   * The Secrets that could be read, in the pod's order. Reads once; an abort rejects this call
   * and lets the next one read again.
   */
  get(opts: { signal?: AbortSignal } = {}): Promise<V1Secret[]> {
    this.#read ??= this.#readAll(opts.signal).catch((err) => {
      this.#read = undefined;
      throw err;
    });
    return this.#read;
  }

  /** Names of the Secrets a `get` could not read. */
  get missing(): readonly string[] {
    return this.#missing;
  }

  async #readAll(signal?: AbortSignal): Promise<V1Secret[]> {
    this.#missing.length = 0;
    const out: V1Secret[] = [];
    for (const ref of this.#pod.spec?.imagePullSecrets ?? []) {
      if (!ref.name) continue;
      const secret = `${this.#pod.metadata?.namespace}/${ref.name}`;
      const message = "Unable to retrieve pull secret, the image pull may not succeed.";
      if (!this.#reader) {
        // Standalone: validation keeps static pods from naming Secrets; nothing could read one.
        this.#log.info(message, { secret, err: "no API server to read Secrets from" });
        this.#missing.push(ref.name);
        continue;
      }
      try {
        out.push(await this.#reader.secret(this.#pod, ref.name, { signal }));
      } catch (err) {
        signal?.throwIfAborted();
        this.#log.info(message, { secret, err });
        this.#missing.push(ref.name);
      }
    }
    return out;
  }

  /**
   * After the sync: upstream's event when Secrets were missing and a pull failed with
   * ErrImagePull (a pull held back by its back-off does not count).
   */
  reportMissing(errors: SyncStepError[], events?: EventRecorder): void {
    if (this.#missing.length === 0) return;
    if (!errors.some((e) => e.reason === "ErrImagePull")) return;
    events?.event(
      podObjectRef(this.#pod),
      "Warning",
      "FailedToRetrieveImagePullSecret",
      `Unable to retrieve some image pull secrets (${this.#missing.join(", ")}); ` +
        "attempting to pull the image may not succeed.",
    );
  }
}
