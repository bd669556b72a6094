/**
 * The checkpoint's files under `<root-dir>/checkpoint/` (directory 0700, files 0600: it holds
 * Secrets and tokens): one per kind, each an envelope
 * `{"version": 1, "kind": ..., "savedAt": ..., "data": ...}` replaced atomically.
 *
 * Reading never fails the agent: a missing file is no checkpoint; a file of another format
 * version (a newer agent's, or one too old to read) is refused with a log line and left in
 * place; a file that does not parse or fit its kind is logged and moved aside
 * (`<kind>.json.corrupt`). Either way the caller gets nothing to act on, so nothing is started or
 * stopped because of it.
 */
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { sweepTempFiles, writeFileAtomic } from "./_atomic.ts";
import { type CheckpointFs, denoFs } from "./_fs.ts";
import { checkKind, type KindData } from "./_kinds.ts";
import { CHECKPOINT_VERSION, type CheckpointKind } from "./types.ts";

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;
const KINDS: CheckpointKind[] = ["pods", "configmaps", "secrets", "tokens", "services"];

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

export class CheckpointStore {
  readonly dir: string;
  readonly #deps: CheckpointStoreDeps;
  readonly #fs: CheckpointFs;
  readonly #log: Logger;
  readonly #encoder = new TextEncoder();

  constructor(deps: CheckpointStoreDeps) {
    this.#deps = deps;
    this.dir = deps.dir;
    this.#fs = deps.fs ?? denoFs;
    this.#log = deps.logger.child({ component: "checkpoint" });
  }

  /** The file of one kind. */
  path(kind: CheckpointKind): string {
    return `${this.dir}/${kind}.json`;
  }

  /**
   * Creates the directory (0700), tightens the files' modes to 0600 and removes temp files a
   * crash left. Throws when the directory cannot be made (the caller runs without checkpoint).
   */
  async open(): Promise<void> {
    await this.#fs.ensureDir(this.dir, DIR_MODE);
    for (const kind of KINDS) await this.#fs.chmod(this.path(kind), FILE_MODE);
    const swept = await sweepTempFiles(this.#fs, this.dir);
    if (swept.length > 0) {
      this.#log.info("Removed checkpoint files an interrupted write left", { files: swept });
    }
  }

  /** Reads one kind. Never throws: see the module comment for what each outcome means. */
  async load<K extends CheckpointKind>(kind: K): Promise<Loaded<KindData[K]>> {
    const path = this.path(kind);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(await this.#fs.readFile(path));
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return { state: "none" };
      return await this.#corrupt(kind, `cannot read it: ${errorMessage(err)}`);
    }
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch (err) {
      return await this.#corrupt(kind, `not JSON: ${errorMessage(err)}`);
    }
    if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) {
      return await this.#corrupt(kind, "not a checkpoint envelope");
    }
    const { version, kind: written, savedAt, data } = envelope as Record<string, unknown>;
    if (typeof version !== "number" || !Number.isInteger(version)) {
      return await this.#corrupt(kind, "no format version");
    }
    if (version !== CHECKPOINT_VERSION) {
      const reason = version > CHECKPOINT_VERSION
        ? `written by a newer denolet (format version ${version}; this one reads ${CHECKPOINT_VERSION})`
        : `format version ${version} is too old for this denolet (it reads ${CHECKPOINT_VERSION})`;
      this.#log.warn("Checkpoint refused; running without it", { kind, path, reason });
      return { state: "refused", reason };
    }
    if (written !== kind) return await this.#corrupt(kind, `holds ${JSON.stringify(written)}`);
    const at = typeof savedAt === "string" ? Date.parse(savedAt) : NaN;
    if (Number.isNaN(at)) return await this.#corrupt(kind, "no savedAt time");
    const why = checkKind(kind, data);
    if (why) return await this.#corrupt(kind, why);
    return { state: "saved", data: data as KindData[K], savedAt: at };
  }

  /** Replaces one kind's file atomically. Throws CheckpointError; the old file then stays. */
  async save<K extends CheckpointKind>(kind: K, data: KindData[K]): Promise<void> {
    const envelope = {
      version: CHECKPOINT_VERSION,
      kind,
      savedAt: new Date(this.#deps.clock.now()).toISOString(),
      data,
    };
    await writeFileAtomic(this.#fs, this.path(kind), {
      data: this.#encoder.encode(JSON.stringify(envelope)),
      mode: FILE_MODE,
    });
  }

  async #corrupt(
    kind: CheckpointKind,
    reason: string,
  ): Promise<{ state: "corrupt"; reason: string }> {
    const path = this.path(kind);
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
