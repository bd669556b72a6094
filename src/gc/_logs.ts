/**
 * Container log rotation (logs/container_log_manager.go): a running container's log past the
 * size limit is renamed to `<log>.<YYYYMMDD-hhmmss>` and the runtime reopens a fresh one;
 * older rotated files are gzip-compressed and at most `maxFiles` files (current included) kept.
 */
import type { RuntimeService } from "../cri/types.ts";
import { LABEL_NODE_NAME } from "../runtime/mod.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";

export interface LogRotationPolicy {
  /** containerLogMaxSize in bytes (default 10Mi). */
  maxSizeBytes: number;
  /** containerLogMaxFiles (default 5, at least 2). */
  maxFiles: number;
}

export const DEFAULT_LOG_ROTATION_POLICY: LogRotationPolicy = {
  maxSizeBytes: 10 * 1024 * 1024,
  maxFiles: 5,
};

const COMPRESS_SUFFIX = ".gz";
const TMP_SUFFIX = ".tmp";

export interface LogRotatorDeps {
  runtime: RuntimeService;
  clock: Clock;
  logger: Logger;
  /** Only containers labelled with this node name are ours. */
  nodeName: string;
}

/** The rotation suffix upstream writes (Go layout "20060102-150405"), in UTC. */
export function rotationTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-` +
    `${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

export class LogRotator {
  readonly #deps: LogRotatorDeps;
  /** A container's log path never changes: asked once per container, dropped when it stops. */
  readonly #logPaths = new Map<string, string>();
  /** Checked every 10 s: a container whose log keeps failing is logged once, then every 5 min. */
  readonly #failures: RepeatedFailures;
  constructor(deps: LogRotatorDeps) {
    this.#deps = deps;
    this.#failures = new RepeatedFailures(deps.logger, { clock: deps.clock });
  }

  /**
   * Checks every running container of this node once. A container whose log vanished (a
   * rotation whose reopen failed) is asked to reopen it. Per-container failures are logged.
   */
  async rotateAll(policy: LogRotationPolicy, opts: { signal?: AbortSignal } = {}): Promise<void> {
    const { runtime } = this.#deps;
    const { signal } = opts;
    const containers = await runtime.listContainers({
      labelSelector: { [LABEL_NODE_NAME]: this.#deps.nodeName },
      state: { state: "CONTAINER_RUNNING" },
    }, { signal });
    const running = new Set(containers.map((c) => c.id));
    for (const id of this.#logPaths.keys()) if (!running.has(id)) this.#logPaths.delete(id);
    for (const c of containers) {
      try {
        await this.#check(c.id, policy, signal);
        this.#failures.clear(c.id);
      } catch (err) {
        if (signal?.aborted) throw err;
        this.#failures.warn(c.id, "Cannot rotate container log", {
          containerId: c.id,
          err: errorMessage(err),
        });
      }
    }
  }

  /** One running container: reopen a vanished log, rotate one over the limit. */
  async #check(id: string, policy: LogRotationPolicy, signal?: AbortSignal): Promise<void> {
    const { runtime } = this.#deps;
    let logPath = this.#logPaths.get(id);
    if (logPath === undefined) {
      logPath = (await runtime.containerStatus(id, { signal })).logPath;
      this.#logPaths.set(id, logPath);
    }
    if (!logPath) return;
    let size = fileSize(logPath);
    if (size === undefined) {
      await runtime.reopenContainerLog(id, { signal });
      size = fileSize(logPath) ?? 0;
    }
    if (size < policy.maxSizeBytes) return;
    await this.rotate(id, logPath, policy, { signal });
  }

  /** Rotates one container's log now: clean up, trim, compress the older ones, rename, reopen. */
  async rotate(
    containerId: string,
    log: string,
    policy: LogRotationPolicy,
    opts: { signal?: AbortSignal } = {},
  ): Promise<void> {
    let rotated = await cleanupUnusedLogs(listRotated(log));
    rotated = await removeExcess(rotated, policy.maxFiles);
    for (const f of rotated) if (!f.endsWith(COMPRESS_SUFFIX)) await compress(f);
    const target = `${log}.${rotationTimestamp(this.#deps.clock.now())}`;
    await Deno.rename(log, target);
    try {
      await this.#deps.runtime.reopenContainerLog(containerId, opts);
    } catch (err) {
      // Put the log back so the runtime keeps writing to a file we know about.
      try {
        await Deno.rename(target, log);
      } catch (renameErr) {
        this.#deps.logger.error("Cannot restore container log after a failed reopen", {
          containerId,
          err: errorMessage(renameErr),
        });
      }
      throw err;
    }
    this.#deps.logger.debug(2, "Rotated container log", { containerId, log, rotated: target });
  }
}

// Sync metadata reads (see listPodDirs in src/agent/_host.ts): this runs for every container
// every 10 s, and 110 async stats at once would keep ~20 blocking-pool threads alive for good.
function fileSize(path: string): number | undefined {
  try {
    return Deno.statSync(path).size;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** `<log>.*`, sorted (timestamps sort by time). */
function listRotated(log: string): string[] {
  const slash = log.lastIndexOf("/");
  const dir = log.slice(0, slash);
  const base = log.slice(slash + 1);
  const out: string[] = [];
  for (const e of Deno.readDirSync(dir)) {
    if (e.isFile && e.name.startsWith(`${base}.`)) out.push(`${dir}/${e.name}`);
  }
  return out.sort();
}

/** Drops leftovers of an interrupted compression: temp files, and originals already compressed. */
async function cleanupUnusedLogs(logs: string[]): Promise<string[]> {
  const keep: string[] = [];
  for (const l of logs) {
    const unused = l.endsWith(TMP_SUFFIX) ||
      (!l.endsWith(COMPRESS_SUFFIX) && logs.includes(l + COMPRESS_SUFFIX));
    if (unused) await Deno.remove(l);
    else keep.push(l);
  }
  return keep;
}

/** Keeps the newest maxFiles-2 rotated files: with the current log and the one about to be rotated, maxFiles. */
async function removeExcess(logs: string[], maxFiles: number): Promise<string[]> {
  const keep = Math.max(0, maxFiles - 2);
  const excess = logs.length - keep;
  if (excess <= 0) return logs;
  for (const l of logs.slice(0, excess)) await Deno.remove(l);
  return logs.slice(excess);
}

/** gzip `<f>` to `<f>.gz` through a temp file, then remove `<f>`. */
async function compress(f: string): Promise<void> {
  const tmp = `${f}${COMPRESS_SUFFIX}${TMP_SUFFIX}`;
  const src = await Deno.open(f, { read: true });
  const dst = await Deno.open(tmp, { write: true, create: true, truncate: true });
  try {
    await src.readable.pipeThrough(new CompressionStream("gzip")).pipeTo(dst.writable);
  } catch (err) {
    // The partial file is removed on the next rotation (cleanupUnusedLogs) if this fails too.
    await Deno.remove(tmp).catch((rmErr) => {
      if (!(rmErr instanceof Deno.errors.NotFound)) throw new AggregateError([err, rmErr]);
    });
    throw err;
  }
  await Deno.rename(tmp, `${f}${COMPRESS_SUFFIX}`);
  await Deno.remove(f);
}
