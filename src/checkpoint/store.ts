/**
 * The checkpoint's files under `<root-dir>/checkpoint/` (directories 0700, files 0600: it may
 * hold Secrets and tokens): a directory per kind and a file per object in it, each an envelope
 * `{"version": 2, "kind": ..., "savedAt": ..., "data": <the object>}` replaced atomically, and
 * `_saved.json` saying when the kind was last saved. A save writes only the objects that changed
 * (told apart by UID and resourceVersion) and removes those gone: one Secret changing among
 * hundreds rewrites one file, not all of them.
 *
 * Reading never fails the agent and never loses a checkpoint to a passing fault: a file that
 * cannot be read (an I/O error) stays in place, unused this time and never removed by a save;
 * only a file that reads but does not decode or fit its kind is moved aside (`<file>.corrupt`);
 * a file of another format version is refused with a log line and left in place.
 *
 * Format version 1 kept a kind in one file (`<kind>.json`); it is read once, written out per
 * object, and removed.
 */
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { sweepTempFiles, TEMP_MARK } from "./_atomic.ts";
import { type CheckpointFs, denoFs } from "./_fs.ts";
import {
  checkItem,
  checkKind,
  dataOf,
  type Item,
  itemName,
  itemsOf,
  itemVersion,
  type KindData,
} from "./_kinds.ts";
import { CHECKPOINT_VERSION, CheckpointError, type CheckpointKind } from "./types.ts";

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
const KINDS: CheckpointKind[] = [
  "pods",
  "configmaps",
  "secrets",
  "tokens",
  "services",
  "persistentvolumeclaims",
  "persistentvolumes",
];
/** The whole-file format this one replaced, read once when found. */
const LEGACY_VERSION = 1;
const MARKER = "_saved.json";

export type Loaded<T> =
  | { state: "saved"; data: T; savedAt: number }
  | { state: "none" }
  /** Another format version: left in place, not used. */
  | { state: "refused"; reason: string }
  /** Unreadable: moved aside, not used. */
  | { state: "corrupt"; reason: string };

export interface CheckpointStoreDeps {
  /** `<root-dir>/checkpoint`. */
  dir: string;
  clock: Clock;
  logger: Logger;
  fs?: CheckpointFs;
}

type Decoded =
  | { ok: true; data: unknown; savedAt: number }
  | { ok: false; state: "refused" | "corrupt"; reason: string };

export class CheckpointStore {
  readonly dir: string;
  readonly #deps: CheckpointStoreDeps;
  readonly #fs: CheckpointFs;
  readonly #log: Logger;
  readonly #encoder = new TextEncoder();
  /** Per kind, the files this store read or wrote and the item version each holds. */
  readonly #known = new Map<CheckpointKind, Map<string, string>>();

  constructor(deps: CheckpointStoreDeps) {
    this.#deps = deps;
    this.dir = deps.dir;
    this.#fs = deps.fs ?? denoFs;
    this.#log = deps.logger.child({ component: "checkpoint" });
  }

  /** The directory of one kind. */
  path(kind: CheckpointKind): string {
    return `${this.dir}/${kind}`;
  }

  /** The whole-file checkpoint of format version 1. */
  legacyPath(kind: CheckpointKind): string {
    return `${this.dir}/${kind}.json`;
  }

  /**
   * Creates the directory (0700), tightens the modes of what is in it (0700, 0600) and removes
   * temp files a crash left. Throws when the directory cannot be made (the caller runs without
   * a checkpoint).
   */
  async open(): Promise<void> {
    await this.#fs.ensureDir(this.dir, DIR_MODE);
    const swept = await sweepTempFiles(this.#fs, this.dir);
    for (const kind of KINDS) {
      await this.#fs.chmod(this.legacyPath(kind), FILE_MODE);
      const names = await this.#list(kind);
      if (names === undefined) continue;
      await this.#fs.ensureDir(this.path(kind), DIR_MODE);
      for (const n of names) await this.#fs.chmod(`${this.path(kind)}/${n}`, FILE_MODE);
      swept.push(...(await sweepTempFiles(this.#fs, this.path(kind))).map((n) => `${kind}/${n}`));
    }
    if (swept.length > 0) {
      this.#log.info("Removed checkpoint files an interrupted write left", { files: swept });
    }
  }

  /** Reads one kind. Never throws: see the module comment for what each outcome means. */
  async load<K extends CheckpointKind>(kind: K): Promise<Loaded<KindData[K]>> {
    const legacy = await this.#migrate(kind);
    if (legacy) return legacy as Loaded<KindData[K]>;
    let names: string[] | undefined;
    try {
      names = await this.#list(kind);
    } catch (err) {
      // The files stay for the next start; this run goes without them.
      this.#log.warn("Cannot read the checkpoint directory; left in place for the next start", {
        kind,
        err: errorMessage(err),
      });
      return { state: "none" };
    }
    if (names === undefined) return { state: "none" };
    const known = new Map<string, string>();
    const items: Item[] = [];
    let savedAt = 0;
    for (const name of names.sort()) {
      if (!name.endsWith(".json") || name.includes(TEMP_MARK)) continue;
      const path = `${this.path(kind)}/${name}`;
      const read = await this.#decode(kind, path, (data) => checkItem(kind, data));
      if (read === undefined) continue; // gone, or unreadable for now: left alone
      if (!read.ok) {
        if (read.state === "corrupt") await this.#moveAside(kind, path, read.reason);
        continue;
      }
      savedAt = Math.max(savedAt, read.savedAt);
      if (name === MARKER) continue;
      items.push(read.data as Item);
      known.set(name, itemVersion(kind, read.data as Item));
    }
    this.#known.set(kind, known);
    return { state: "saved", data: dataOf(kind, items), savedAt };
  }

  /**
   * Writes the items of `data` that changed since the last load or save, each atomically, and
   * removes the files of items gone. Throws CheckpointError; what was written stays written and
   * the next save finishes the rest.
   */
  async save<K extends CheckpointKind>(
    kind: K,
    data: KindData[K],
    opts: { savedAt?: number } = {},
  ): Promise<void> {
    const dir = this.path(kind);
    const known = this.#known.get(kind) ?? new Map<string, string>();
    this.#known.set(kind, known);
    const savedAt = new Date(opts.savedAt ?? this.#deps.clock.now()).toISOString();
    const envelope = (item: unknown) =>
      this.#encoder.encode(
        JSON.stringify({ version: CHECKPOINT_VERSION, kind, savedAt, data: item }),
      );
    const wanted = new Set<string>();
    try {
      await this.#fs.ensureDir(dir, DIR_MODE);
      for (const item of itemsOf(kind, data)) {
        const name = `${await itemName(kind, item)}.json`;
        wanted.add(name);
        const version = itemVersion(kind, item);
        if (known.get(name) === version) continue;
        await this.#replace(`${dir}/${name}`, envelope(item));
        known.set(name, version);
      }
      for (const name of [...known.keys()]) {
        if (wanted.has(name)) continue;
        await this.#fs.remove(`${dir}/${name}`);
        known.delete(name);
      }
      await this.#replace(`${dir}/${MARKER}`, envelope(undefined));
      await this.#fs.syncDir(dir);
    } catch (err) {
      if (err instanceof CheckpointError) throw err;
      throw new CheckpointError(`Cannot write the ${kind} checkpoint: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }

  /** Removes one kind's files, every format's (a kind the operator no longer wants kept). */
  async remove(kind: CheckpointKind): Promise<void> {
    this.#known.delete(kind);
    const names = await this.#list(kind);
    for (const n of names ?? []) await this.#fs.remove(`${this.path(kind)}/${n}`);
    if (names !== undefined) await this.#fs.remove(this.path(kind)); // empty now
    await this.#fs.remove(this.legacyPath(kind));
    await this.#fs.remove(`${this.legacyPath(kind)}.corrupt`);
  }

  /** A new file in place of `path`, fsynced before the rename; the caller syncs the directory. */
  async #replace(path: string, data: Uint8Array): Promise<void> {
    const tmp = `${path}${TEMP_MARK}${crypto.randomUUID().slice(0, 8)}`;
    try {
      await this.#fs.writeNew(tmp, data, FILE_MODE);
      await this.#fs.rename(tmp, path);
    } catch (err) {
      const leftover = await this.#fs.remove(tmp).then(
        () => "",
        (e) => ` (and its temp file stays until the next start: ${errorMessage(e)})`,
      );
      throw new CheckpointError(`Cannot write ${path}: ${errorMessage(err)}${leftover}`, {
        cause: err,
      });
    }
  }

  /** A format-1 file of this kind: read once, written per object, removed. */
  async #migrate(kind: CheckpointKind): Promise<Loaded<unknown> | undefined> {
    const path = this.legacyPath(kind);
    const read = await this.#decode(kind, path, (data) => checkKind(kind, data), LEGACY_VERSION);
    if (read === undefined) return undefined; // none, or unreadable for now: left alone
    if (!read.ok) {
      if (read.state === "corrupt") return await this.#moveAside(kind, path, read.reason);
      return undefined;
    }
    try {
      await this.save(kind, read.data as KindData[CheckpointKind], { savedAt: read.savedAt });
      await this.#fs.remove(path);
      this.#log.info("Checkpoint moved to one file per object", {
        kind,
        from: path,
        to: this.path(kind),
      });
    } catch (err) {
      // The old file stays and is read again next time; this run uses what it holds.
      this.#log.warn("Cannot move the checkpoint to one file per object; will retry", {
        kind,
        err: errorMessage(err),
      });
    }
    return { state: "saved", data: read.data, savedAt: read.savedAt };
  }

  /**
   * One envelope: undefined when the file is missing or cannot be read now (an I/O error, which
   * may pass: the file is left alone and logged).
   */
  async #decode(
    kind: CheckpointKind,
    path: string,
    check: (data: unknown) => string | undefined,
    version = CHECKPOINT_VERSION,
  ): Promise<Decoded | undefined> {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(await this.#fs.readFile(path));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      if (err instanceof TypeError) return { ok: false, state: "corrupt", reason: "not UTF-8" };
      this.#log.warn("Cannot read a checkpoint file; left in place for the next start", {
        kind,
        path,
        err: errorMessage(err),
      });
      return undefined;
    }
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch (err) {
      return { ok: false, state: "corrupt", reason: `not JSON: ${errorMessage(err)}` };
    }
    if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) {
      return { ok: false, state: "corrupt", reason: "not a checkpoint envelope" };
    }
    const e = envelope as Record<string, unknown>;
    if (typeof e.version !== "number" || !Number.isInteger(e.version)) {
      return { ok: false, state: "corrupt", reason: "no format version" };
    }
    if (e.version !== version) {
      const reason = e.version > version
        ? `written by a newer denolet (format version ${e.version}; this one reads ${version})`
        : `format version ${e.version} is too old for this denolet (it reads ${version})`;
      this.#log.warn("Checkpoint refused; running without it", { kind, path, reason });
      return { ok: false, state: "refused", reason };
    }
    if (e.kind !== kind) {
      return { ok: false, state: "corrupt", reason: `holds ${JSON.stringify(e.kind)}` };
    }
    const savedAt = typeof e.savedAt === "string" ? Date.parse(e.savedAt) : NaN;
    if (Number.isNaN(savedAt)) return { ok: false, state: "corrupt", reason: "no savedAt time" };
    const why = path.endsWith(`/${MARKER}`) ? undefined : check(e.data);
    if (why) return { ok: false, state: "corrupt", reason: why };
    return { ok: true, data: e.data, savedAt };
  }

  /** The names in the kind's directory; undefined when there is none. */
  async #list(kind: CheckpointKind): Promise<string[] | undefined> {
    try {
      return await this.#fs.list(this.path(kind));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
        return undefined;
      }
      throw err;
    }
  }

  async #moveAside(
    kind: CheckpointKind,
    path: string,
    reason: string,
  ): Promise<{ state: "corrupt"; reason: string }> {
    const aside = `${path}.corrupt`;
    try {
      await this.#fs.rename(path, aside);
      this.#log.warn("Checkpoint file unusable; moved aside, running without it", {
        kind,
        path,
        movedTo: aside,
        reason,
      });
    } catch (err) {
      this.#log.warn("Checkpoint file unusable; running without it", {
        kind,
        path,
        reason,
        moveErr: errorMessage(err),
      });
    }
    return { state: "corrupt", reason };
  }
}
