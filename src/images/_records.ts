/**
 * The pulled-image records on disk (upstream pullmanager/fs_pullrecords.go), in the upstream
 * kubelet's own format so either can read what the other wrote: under
 * `<rootDir>/image_manager/`, `pulling/` holds an ImagePullIntent per image being pulled and
 * `pulled/` an ImagePulledRecord per image id, each file named `sha256-<hex of the key>` and
 * written atomically (temp file, rename). Pulled records are cached in memory once read.
 */
import { sha256Hex } from "../util/digest.ts";
import { DenoletError } from "../util/errors.ts";

export const RECORDS_API_VERSION = "kubelet.config.k8s.io/v1beta1";
const PREFIX = "sha256-";
const TMP_SUFFIX = ".tmp";

export interface ImagePullSecret {
  uid: string;
  namespace: string;
  name: string;
  credentialHash: string;
}

export interface ImagePullServiceAccount {
  uid: string;
  namespace: string;
  name: string;
}

/** Who may use an image pulled with credentials. */
export interface ImagePullCredentials {
  kubernetesSecrets?: ImagePullSecret[];
  kubernetesServiceAccounts?: ImagePullServiceAccount[];
  /** Pulled without credentials (or with node-wide ones): every pod may use it. */
  nodePodsAccessible?: boolean;
}

export interface ImagePulledRecord {
  /** RFC 3339, seconds (metav1.Time). */
  lastUpdatedTime: string;
  imageRef: string;
  /** Image name without tag or digest, as the pod wrote it → who may use it. */
  credentialMapping: Record<string, ImagePullCredentials>;
}

/** A record file that does not decode. */
export class PullRecordError extends DenoletError {}

export class FsPullRecords {
  readonly #pulling: string;
  readonly #pulled: string;
  /** imageRef → record, or null when known to be absent. */
  readonly #cache = new Map<string, ImagePulledRecord | null>();

  constructor(rootDir: string) {
    this.#pulling = `${rootDir}/image_manager/pulling`;
    this.#pulled = `${rootDir}/image_manager/pulled`;
  }

  async init(): Promise<void> {
    await Deno.mkdir(this.#pulling, { recursive: true, mode: 0o700 });
    await Deno.mkdir(this.#pulled, { recursive: true, mode: 0o700 });
  }

  async writeIntent(image: string): Promise<void> {
    await writeAtomic(this.#pulling, await fileName(image), {
      kind: "ImagePullIntent",
      apiVersion: RECORDS_API_VERSION,
      image,
    });
  }

  async deleteIntent(image: string): Promise<void> {
    await removeIfExists(`${this.#pulling}/${await fileName(image)}`);
  }

  async intentExists(image: string): Promise<boolean> {
    const doc = await readDoc(`${this.#pulling}/${await fileName(image)}`, "ImagePullIntent");
    return doc?.image === image;
  }

  /** Images of the intents left by an earlier run; files that do not decode are reported. */
  async listIntents(onError: (file: string, err: unknown) => void): Promise<string[]> {
    const out: string[] = [];
    for (const file of await listFiles(this.#pulling)) {
      try {
        const doc = await readDoc(file, "ImagePullIntent");
        if (typeof doc?.image === "string") out.push(doc.image);
      } catch (err) {
        onError(file, err);
      }
    }
    return out;
  }

  /** The record of `imageRef`; undefined when there is none. Throws for a broken file. */
  async getPulled(imageRef: string): Promise<ImagePulledRecord | undefined> {
    const cached = this.#cache.get(imageRef);
    if (cached !== undefined) return cached ?? undefined;
    const doc = await readDoc(`${this.#pulled}/${await fileName(imageRef)}`, "ImagePulledRecord");
    const record = doc && doc.imageRef === imageRef ? toRecord(doc) : undefined;
    this.#cache.set(imageRef, record ?? null);
    return record;
  }

  async writePulled(record: ImagePulledRecord): Promise<void> {
    await writeAtomic(this.#pulled, await fileName(record.imageRef), {
      kind: "ImagePulledRecord",
      apiVersion: RECORDS_API_VERSION,
      lastUpdatedTime: record.lastUpdatedTime,
      imageRef: record.imageRef,
      ...(Object.keys(record.credentialMapping).length
        ? { credentialMapping: record.credentialMapping }
        : {}),
    });
    this.#cache.set(record.imageRef, record);
  }

  async deletePulled(imageRef: string): Promise<void> {
    await removeIfExists(`${this.#pulled}/${await fileName(imageRef)}`);
    this.#cache.set(imageRef, null);
  }

  /** Every pulled record on disk; files that do not decode are reported and skipped. */
  async listPulled(onError: (file: string, err: unknown) => void): Promise<ImagePulledRecord[]> {
    const out: ImagePulledRecord[] = [];
    for (const file of await listFiles(this.#pulled)) {
      try {
        const doc = await readDoc(file, "ImagePulledRecord");
        if (doc) out.push(toRecord(doc));
      } catch (err) {
        onError(file, err);
      }
    }
    return out;
  }
}

async function fileName(key: string): Promise<string> {
  return PREFIX + await sha256Hex(key);
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.startsWith(PREFIX) && !e.name.endsWith(TMP_SUFFIX)) {
        out.push(`${dir}/${e.name}`);
      }
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out;
}

async function readDoc(file: string, kind: string): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new PullRecordError(`${file}: not JSON`, { cause: err });
  }
  if (typeof doc !== "object" || doc === null || (doc as { kind?: unknown }).kind !== kind) {
    throw new PullRecordError(`${file}: not an ${kind}`);
  }
  return doc as Record<string, unknown>;
}

function toRecord(doc: Record<string, unknown>): ImagePulledRecord {
  const mapping = doc.credentialMapping;
  return {
    lastUpdatedTime: String(doc.lastUpdatedTime ?? ""),
    imageRef: String(doc.imageRef ?? ""),
    credentialMapping: typeof mapping === "object" && mapping !== null
      ? mapping as Record<string, ImagePullCredentials>
      : {},
  };
}

async function writeAtomic(dir: string, name: string, doc: unknown): Promise<void> {
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const target = `${dir}/${name}`;
  const tmp = target + TMP_SUFFIX;
  try {
    await Deno.writeTextFile(tmp, JSON.stringify(doc) + "\n", { mode: 0o600 });
    await Deno.rename(tmp, target);
  } catch (err) {
    await removeIfExists(tmp);
    throw err;
  }
}

async function removeIfExists(file: string): Promise<void> {
  try {
    await Deno.remove(file);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}
