/**
 * One file in the upstream kubelet's checkpoint format (pkg/kubelet/checkpointmanager): JSON
 * `{"data":"<payload as a JSON string>","checksum":<n>}`, where the checksum is FNV-1a 32 of
 * what Go's `dump.ForHash` prints for the payload string, `(string)` followed by the text. A
 * file upstream wrote reads here and the other way round (the allocation checkpoints
 * `allocated_pods_state` and `actuated_pods_state` under the root dir).
 */
import { writeFileAtomic } from "./_atomic.ts";
import { type CheckpointFs, denoFs } from "./_fs.ts";
import { CheckpointError } from "./types.ts";

/** A checkpoint file that exists but cannot be used (bad JSON, wrong checksum). */
export class CorruptCheckpointError extends CheckpointError {}

const encoder = new TextEncoder();
const FILE_MODE = 0o600;

/** checksum.New(data) of the kubelet's checkpoint manager. */
export function kubeletChecksum(data: string): number {
  let h = 0x811c9dc5;
  for (const b of encoder.encode(`(string)${data}`)) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export class KubeletCheckpointFile {
  readonly path: string;
  readonly #fs: CheckpointFs;

  constructor(path: string, opts: { fs?: CheckpointFs } = {}) {
    this.path = path;
    this.#fs = opts.fs ?? denoFs;
  }

  /**
   * The payload text, or undefined when there is no file. Throws CorruptCheckpointError when
   * the file does not parse or its checksum does not match (upstream refuses to start then).
   */
  async read(): Promise<string | undefined> {
    let bytes: Uint8Array;
    try {
      bytes = await this.#fs.readFile(this.path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw new CheckpointError(`Cannot read ${this.path}`, { cause: err });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes));
    } catch (err) {
      throw new CorruptCheckpointError(`${this.path} is not JSON`, { cause: err });
    }
    const { data, checksum } = (parsed ?? {}) as { data?: unknown; checksum?: unknown };
    if (typeof data !== "string" || typeof checksum !== "number") {
      throw new CorruptCheckpointError(`${this.path} has no data and checksum`);
    }
    const actual = kubeletChecksum(data);
    if (actual !== checksum) {
      // upstream's CorruptCheckpointError wording.
      throw new CorruptCheckpointError(
        `checkpoint is corrupted: checksum ${actual} does not match ${checksum} in ${this.path}`,
      );
    }
    return data;
  }

  /**
   * Replaces the file atomically with `data` and its checksum; its directory must exist (the
   * root dir). Throws CheckpointError.
   */
  async write(data: string): Promise<void> {
    const text = JSON.stringify({ data, checksum: kubeletChecksum(data) });
    await writeFileAtomic(this.#fs, this.path, { data: encoder.encode(text), mode: FILE_MODE });
  }
}

/**
 * Writes a state behind its changes: `changed()` after each change in memory; the file is
 * written once per burst of changes, and not at all when the payload is what it holds already.
 * A failed write is logged and tried again with the next change or `flush`.
 */
export class WriteBehind {
  readonly #file: KubeletCheckpointFile;
  readonly #payload: () => string;
  readonly #onError: (err: unknown) => void;
  #written?: string;
  #dirty = false;
  #writing?: Promise<void>;
  #error?: unknown;

  /** `written`: the payload the file holds now (read at start). */
  constructor(
    file: KubeletCheckpointFile,
    opts: { payload: () => string; written?: string; onError: (err: unknown) => void },
  ) {
    this.#file = file;
    this.#payload = opts.payload;
    this.#written = opts.written;
    this.#onError = opts.onError;
  }

  changed(): void {
    this.#dirty = true;
    // Never rejects: #drain keeps a failure for flush and reports it.
    this.#writing ??= this.#drain().finally(() => this.#writing = undefined);
  }

  /** Waits until the state is on disk; throws CheckpointError when it cannot be written. */
  async flush(): Promise<void> {
    while (this.#writing) await this.#writing;
    if (!this.#dirty && this.#error === undefined) return;
    this.#error = undefined;
    this.changed();
    while (this.#writing) await this.#writing;
    if (this.#error !== undefined) throw this.#error;
  }

  async #drain(): Promise<void> {
    while (this.#dirty) {
      this.#dirty = false;
      const data = this.#payload();
      if (data === this.#written) continue;
      try {
        await this.#file.write(data);
        this.#written = data;
        this.#error = undefined;
      } catch (err) {
        this.#error = err;
        this.#dirty = true;
        this.#onError(err);
        return;
      }
    }
  }
}
