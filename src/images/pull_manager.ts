/**
 * Verified reuse of pulled images (upstream pullmanager.PullManager, KubeletEnsureSecretPulledImages):
 * every pull leaves a record of the credentials it used, so a pod may use an image already on
 * the node only if it holds the same credentials (a Secret with the same coordinates or the
 * same credential hash, or the same service account), or the image was pulled without any.
 * An intent written before each pull marks images this kubelet pulled even if it dies
 * mid-pull; records and intents live under the root dir and survive restarts.
 */
import type { Clock } from "../util/clock.ts";
import { ImageNameError, trimTagDigest } from "../util/image_name.ts";
import type { Logger } from "../util/log.ts";
import { KeyedLock } from "./_keyed_lock.ts";
import type { RequireVerification } from "./_policy.ts";
import {
  FsPullRecords,
  type ImagePullCredentials,
  type ImagePulledRecord,
  type ImagePullSecret,
  type ImagePullServiceAccount,
} from "./_records.ts";

/** Upstream writeRecordWhileMatchingLimit: no more merges into a record this size. */
const WRITE_WHILE_MATCHING_LIMIT = 100;

/** The credentials a pod would pull `image` with (looked up only when needed). */
export interface PodCredentials {
  secrets: ImagePullSecret[];
  serviceAccount?: ImagePullServiceAccount;
}

export interface PullManagerDeps {
  rootDir: string;
  clock: Clock;
  logger: Logger;
  requireVerification: RequireVerification;
  /** The runtime's images (ids, tags, digests), read once at start to settle old intents. */
  listImages(): Promise<{ id: string; repoTags: string[]; repoDigests: string[] }[]>;
}

export class PullManager {
  readonly #deps: PullManagerDeps;
  readonly #records: FsPullRecords;
  /** Pulls in flight per image (as the pod wrote it). */
  readonly #intents = new Map<string, number>();
  readonly #intentLock = new KeyedLock();
  readonly #pulledLock = new KeyedLock();

  constructor(deps: PullManagerDeps) {
    this.#deps = deps;
    this.#records = new FsPullRecords(deps.rootDir);
  }

  /**
   * Creates the directories and turns intents left by an earlier run into pulled records for
   * the images the runtime has (without credentials: the next pod must prove itself).
   */
  async initialize(): Promise<void> {
    await this.#records.init();
    const log = this.#deps.logger;
    const intents = await this.#records.listIntents((file, err) =>
      log.warn("Cannot read an image pull intent", { file, err })
    );
    if (intents.length === 0) return;
    const wanted = new Set(intents);
    const images = await this.#deps.listImages().catch((err) => {
      log.warn("Cannot list images to settle image pull intents", { err });
      return [];
    });
    for (const img of images) {
      for (const name of [...img.repoDigests, ...img.repoTags]) {
        if (!wanted.has(name)) continue;
        try {
          await this.#writePulledIfChanged(name, img.id, undefined);
          await this.#records.deleteIntent(name);
        } catch (err) {
          log.warn("Cannot settle an image pull intent", { image: name, err });
        }
      }
    }
  }

  /** Before a pull of `image`: its intent is on disk. Throws when it cannot be written. */
  async recordPullIntent(image: string): Promise<void> {
    await this.#intentLock.run(image, async () => {
      await this.#records.writeIntent(image);
      this.#intents.set(image, (this.#intents.get(image) ?? 0) + 1);
    });
  }

  /** After a successful pull: the credentials used join the image's record. Never throws. */
  async recordImagePulled(
    image: string,
    imageRef: string,
    credentials: ImagePullCredentials | undefined,
  ): Promise<void> {
    try {
      await this.#writePulledIfChanged(image, imageRef, credentials);
    } catch (err) {
      // The intent stays: the next start settles it into a record.
      this.#deps.logger.error("Cannot write the image pulled record", { imageRef, err });
      return;
    }
    await this.#decrementIntent(image);
  }

  /** After a failed pull. Never throws. */
  async recordImagePullFailed(image: string): Promise<void> {
    await this.#decrementIntent(image);
  }

  /**
   * Whether a pod must pull `image` although `imageRef` is present: the policy asks for
   * verification and the records do not show the pod's credentials (`podCredentials`, called
   * only when they matter). Unreadable records count as unverified. Throws what
   * `podCredentials` throws.
   */
  async mustAttemptImagePull(
    image: string,
    imageRef: string,
    podCredentials: () => Promise<PodCredentials>,
  ): Promise<boolean> {
    if (imageRef === "") return true;
    let record: ImagePulledRecord | undefined;
    let pulledByKubelet: boolean;
    try {
      record = await this.#records.getPulled(imageRef);
      pulledByKubelet = record !== undefined || (this.#intents.get(image) ?? 0) > 0 ||
        await this.#records.intentExists(image);
    } catch (err) {
      this.#deps.logger.error("Unable to access cache records about image pulls", { err });
      return true;
    }
    if (!this.#deps.requireVerification(image, pulledByKubelet)) return false;
    if (record === undefined) return true;
    let name: string;
    try {
      name = trimTagDigest(image);
    } catch (err) {
      if (!(err instanceof ImageNameError)) throw err;
      return true;
    }
    const cached = record.credentialMapping[name];
    if (!cached) return true;
    if (cached.nodePodsAccessible) return false;
    const cachedSecrets = cached.kubernetesSecrets ?? [];
    const cachedAccounts = cached.kubernetesServiceAccounts ?? [];
    if (cachedSecrets.length === 0 && cachedAccounts.length === 0) return true;

    const pod = await podCredentials();
    for (const secret of pod.secrets) {
      for (const known of cachedSecrets) {
        const sameHash = known.credentialHash !== "" &&
          secret.credentialHash === known.credentialHash;
        const sameSecret = secret.uid === known.uid && secret.namespace === known.namespace &&
          secret.name === known.name;
        // Same credentials in another Secret, or the same Secret rotated: accepted, and
        // remembered so the next check is a plain match.
        if (sameHash || sameSecret) {
          if ((!sameSecret || !sameHash) && cachedSecrets.length < WRITE_WHILE_MATCHING_LIMIT) {
            await this.#writePulledIfChanged(image, imageRef, { kubernetesSecrets: [secret] })
              .catch((err) =>
                this.#deps.logger.error("Cannot write the image pulled record", { imageRef, err })
              );
          }
          if (sameHash || cachedSecrets.length < WRITE_WHILE_MATCHING_LIMIT) return false;
        }
      }
    }
    const sa = pod.serviceAccount;
    if (
      sa &&
      cachedAccounts.some((a) =>
        a.uid === sa.uid && a.namespace === sa.namespace && a.name === sa.name
      )
    ) {
      return false;
    }
    return true;
  }

  /**
   * After image garbage collection: drops the records of images no longer on the node that
   * were last updated before the collection began (upstream PruneUnknownRecords).
   */
  async pruneUnknownRecords(remainingImageIds: string[], gcStartedAt: number): Promise<void> {
    const log = this.#deps.logger;
    const keep = new Set(remainingImageIds);
    const records = await this.#records.listPulled((file, err) =>
      log.warn("Cannot read an image pulled record", { file, err })
    );
    for (const r of records) {
      if (Date.parse(r.lastUpdatedTime) >= gcStartedAt || keep.has(r.imageRef)) continue;
      await this.#pulledLock.run(r.imageRef, () => this.#records.deletePulled(r.imageRef))
        .catch((err) =>
          log.warn("Cannot remove an image pulled record", { imageRef: r.imageRef, err })
        );
    }
  }

  async #decrementIntent(image: string): Promise<void> {
    await this.#intentLock.run(image, async () => {
      const n = this.#intents.get(image) ?? 0;
      if (n > 1) {
        this.#intents.set(image, n - 1);
        return;
      }
      try {
        await this.#records.deleteIntent(image);
        this.#intents.delete(image);
      } catch (err) {
        this.#deps.logger.error("Cannot remove the image pull intent", { image, err });
      }
    });
  }

  /** Writes `credentials` into `imageRef`'s record under `image`'s name, if that changes it. */
  #writePulledIfChanged(
    image: string,
    imageRef: string,
    credentials: ImagePullCredentials | undefined,
  ): Promise<void> {
    return this.#pulledLock.run(imageRef, async () => {
      const name = trimTagDigest(image);
      let record: ImagePulledRecord | undefined;
      try {
        record = await this.#records.getPulled(imageRef);
      } catch (err) {
        this.#deps.logger.info("Cannot read an image pulled record; writing a new one", { err });
      }
      const now = new Date(this.#deps.clock.now()).toISOString().replace(/\.\d+Z$/, "Z");
      let next: ImagePulledRecord | undefined;
      if (!record) {
        // The record alone marks the image as pulled by the kubelet; without credentials the
        // next pod must prove itself.
        next = { lastUpdatedTime: now, imageRef, credentialMapping: {} };
        if (credentials) next.credentialMapping[name] = credentials;
      } else {
        const merged = mergeCredentials(record.credentialMapping[name], credentials);
        if (merged) {
          next = {
            ...record,
            lastUpdatedTime: now,
            credentialMapping: { ...record.credentialMapping, [name]: merged },
          };
        }
      }
      if (next) await this.#records.writePulled(next);
    });
  }
}

/** The merged credentials, or undefined when `add` changes nothing (upstream pulledRecordMergeNewCreds). */
function mergeCredentials(
  have: ImagePullCredentials | undefined,
  add: ImagePullCredentials | undefined,
): ImagePullCredentials | undefined {
  if (!add) return undefined;
  const addSecrets = add.kubernetesSecrets ?? [];
  const addAccounts = add.kubernetesServiceAccounts ?? [];
  if (!add.nodePodsAccessible && addSecrets.length === 0 && addAccounts.length === 0) {
    return undefined;
  }
  if (!have) return add;
  if (have.nodePodsAccessible) return undefined;
  if (add.nodePodsAccessible) return { nodePodsAccessible: true };
  if (addSecrets.length > 0) {
    const byKey = new Map<string, ImagePullSecret>();
    const key = (s: ImagePullSecret) => `${s.namespace}\u0000${s.name}\u0000${s.uid}`;
    for (const s of have.kubernetesSecrets ?? []) byKey.set(key(s), s);
    let changed = false;
    for (const s of addSecrets) {
      if (byKey.get(key(s))?.credentialHash !== s.credentialHash) {
        byKey.set(key(s), s);
        changed = true;
      }
    }
    if (!changed) return undefined;
    const sorted = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { ...have, kubernetesSecrets: sorted.map(([, s]) => s) };
  }
  const key = (a: ImagePullServiceAccount) => `${a.namespace}\u0000${a.name}\u0000${a.uid}`;
  const byKey = new Map((have.kubernetesServiceAccounts ?? []).map((a) => [key(a), a]));
  let changed = false;
  for (const a of addAccounts) {
    if (!byKey.has(key(a))) {
      byKey.set(key(a), a);
      changed = true;
    }
  }
  if (!changed) return undefined;
  const sorted = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { ...have, kubernetesServiceAccounts: sorted.map(([, a]) => a) };
}
