/**
 * Which pods use each claim's PersistentVolume on this node, for ReadWriteOncePod (upstream's
 * actual state of world, IsVolumeMountedElsewhere). It survives an agent restart as upstream's
 * reconstruction does, rebuilt from the pods' directories before its first answer: a CSI
 * volume's `vol_data.json` (a Persistent one names its PV), a local volume's mount directory
 * (named after its PV), and the record `<pod dir>/claim-volumes.json` written here for every
 * claim volume set up — a hostPath PV leaves nothing else on disk. A pod's directory goes with
 * its teardown, and with it the pod's uses.
 */
import { errorMessage, type Logger } from "../util/log.ts";
import { podDir } from "./_pod_files.ts";
import { LOCAL_VOLUME_PLUGIN_DIR } from "./_persistent.ts";

/** The record of a pod's claim volumes, beside its `volumes` directory. */
export const CLAIM_RECORD = "claim-volumes.json";
/** src/csi's plugin directory (not imported: src/csi loads only when used). */
const CSI_PLUGIN_DIR = "kubernetes.io~csi";

export class ClaimUsers {
  readonly #rootDir: string;
  readonly #log: Logger;
  /** PV name → pod UIDs. */
  readonly #users = new Map<string, Set<string>>();
  #restored?: Promise<void>;

  constructor(deps: { rootDir: string; logger: Logger }) {
    this.#rootDir = deps.rootDir;
    this.#log = deps.logger;
  }

  /** Pods other than `uid` that use PV `pv`. Reads the pods' directories the first time. */
  async others(pv: string, uid: string): Promise<string[]> {
    await this.#restore();
    return [...this.#users.get(pv) ?? []].filter((u) => u !== uid);
  }

  /** Pod `uid` uses PV `pv`; recorded in its directory when that is new. */
  async add(pv: string, uid: string): Promise<void> {
    await this.#restore();
    const users = this.#users.get(pv) ?? new Set<string>();
    if (users.has(uid)) return;
    this.#users.set(pv, users.add(uid));
    const dir = podDir(this.#rootDir, uid);
    const pvs = [...this.#users].filter(([, u]) => u.has(uid)).map(([name]) => name).sort();
    await Deno.mkdir(dir, { recursive: true, mode: 0o750 });
    // Written whole then renamed: a crash leaves the old record or the new one.
    const tmp = `${dir}/.${CLAIM_RECORD}.tmp`;
    await Deno.writeTextFile(tmp, JSON.stringify({ persistentVolumes: pvs }));
    await Deno.rename(tmp, `${dir}/${CLAIM_RECORD}`);
  }

  /** Pod `uid` is gone (its directory goes with it). */
  async remove(uid: string): Promise<void> {
    // A restore under way would add the pod back from its directory: let it finish first.
    if (this.#restored) await this.#restored;
    for (const [pv, users] of this.#users) {
      if (users.delete(uid) && users.size === 0) this.#users.delete(pv);
    }
  }

  #restore(): Promise<void> {
    return this.#restored ??= this.#scan().catch((err) =>
      // What could be read is kept; an unreadable pods directory leaves nothing to restore.
      this.#log.warn("Cannot read the pods' volumes to restore their claim users", { err })
    );
  }

  async #scan(): Promise<void> {
    const pods = `${this.#rootDir}/pods`;
    for (const e of await entries(pods)) {
      if (!e.isDirectory) continue;
      for (const pv of await this.#podVolumes(`${pods}/${e.name}`)) {
        const users = this.#users.get(pv) ?? new Set<string>();
        this.#users.set(pv, users.add(e.name));
      }
    }
    if (this.#users.size) {
      this.#log.info("Restored the pods using claim volumes", {
        volumes: Object.fromEntries([...this.#users].map(([pv, u]) => [pv, [...u]])),
      });
    }
  }

  /** The PVs a pod's directory shows it uses. */
  async #podVolumes(dir: string): Promise<Set<string>> {
    const out = new Set<string>();
    const record = await readJson<{ persistentVolumes?: string[] }>(
      `${dir}/${CLAIM_RECORD}`,
      this.#log,
    );
    for (const pv of record?.persistentVolumes ?? []) out.add(pv);
    for (const e of await entries(`${dir}/volumes/${LOCAL_VOLUME_PLUGIN_DIR}`)) out.add(e.name);
    for (const e of await entries(`${dir}/volumes/${CSI_PLUGIN_DIR}`)) {
      const data = await readJson<{ specVolID?: string; volumeLifecycleMode?: string }>(
        `${dir}/volumes/${CSI_PLUGIN_DIR}/${e.name}/vol_data.json`,
        this.#log,
      );
      if (data?.volumeLifecycleMode === "Persistent" && data.specVolID) out.add(data.specVolID);
    }
    return out;
  }
}

async function entries(dir: string): Promise<Deno.DirEntry[]> {
  try {
    return await Array.fromAsync(Deno.readDir(dir));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return [];
    throw err;
  }
}

async function readJson<T>(path: string, log: Logger): Promise<T | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    log.warn("Ignoring an unreadable volume record", { path, err: errorMessage(err) });
    return undefined;
  }
}
