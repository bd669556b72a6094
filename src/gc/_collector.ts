/**
 * The garbage collector: dead containers every minute, images every 5 minutes and container
 * logs every 10 seconds (the upstream periods), each starting with a round at start-up, plus
 * on-demand calls for the eviction manager.
 */
import type { ImageService, RuntimeService } from "../cri/types.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import { statfs } from "../util/statfs.ts";
import {
  ContainerGC,
  type ContainerGCPolicy,
  DEFAULT_CONTAINER_GC_POLICY,
  type PodStateProvider,
} from "./_containers.ts";
import {
  checkImageGCPolicy,
  DEFAULT_IMAGE_GC_POLICY,
  type FsStats,
  ImageGC,
  type ImageGCPolicy,
} from "./_images.ts";
import { DEFAULT_LOG_ROTATION_POLICY, type LogRotationPolicy, LogRotator } from "./_logs.ts";

export const CONTAINER_GC_PERIOD_MS = 60_000;
export const IMAGE_GC_PERIOD_MS = 5 * 60_000;
export const LOG_ROTATION_PERIOD_MS = 10_000;

import type { LogLinks } from "../runtime/mod.ts";

export interface GarbageCollectorDeps {
  runtime: RuntimeService;
  image: ImageService;
  clock: Clock;
  logger: Logger;
  nodeName: string;
  podState: PodStateProvider;
  /** Root of the pod log directories (/var/log/pods). */
  podLogsDir: string;
  /** Whether every pod source has delivered its first snapshot; default always. */
  sourcesReady?: () => boolean;
  containerPolicy?: Partial<ContainerGCPolicy>;
  imagePolicy?: Partial<ImageGCPolicy>;
  logPolicy?: Partial<LogRotationPolicy>;
  /** --pod-infra-container-image: never removed. */
  sandboxImage?: string;
  /** After images were freed: the ids left and when the round began (pulled-image records). */
  afterImageGC?: (remainingIds: string[], startedAt: number) => Promise<void>;
  /** statfs of a path; default util/statfs. */
  fsStats?: (path: string) => Promise<FsStats>;
  /** Override the periods (tests, --container-log-monitor-interval). */
  periods?: { containersMs?: number; imagesMs?: number; logsMs?: number };
  /** The /var/log/containers links, removed with their containers. */
  logLinks?: LogLinks;
}

/** Capacity and space available to unprivileged users, as df shows them. */
export async function statfsStats(path: string): Promise<FsStats> {
  const { capacityBytes, availableBytes } = await statfs(path);
  return { capacityBytes, availableBytes };
}

export class GarbageCollector {
  readonly containers: ContainerGC;
  readonly images: ImageGC;
  readonly logs: LogRotator;
  readonly containerPolicy: ContainerGCPolicy;
  readonly imagePolicy: ImageGCPolicy;
  readonly logPolicy: LogRotationPolicy;
  readonly #deps: GarbageCollectorDeps;
  /** A round that keeps failing (the runtime is down) is logged once, then every few minutes. */
  readonly #failures: RepeatedFailures;

  /** Throws ConfigError for thresholds or a log policy upstream rejects. */
  constructor(deps: GarbageCollectorDeps) {
    this.#deps = deps;
    this.#failures = new RepeatedFailures(deps.logger, { clock: deps.clock });
    this.containerPolicy = { ...DEFAULT_CONTAINER_GC_POLICY, ...deps.containerPolicy };
    this.imagePolicy = { ...DEFAULT_IMAGE_GC_POLICY, ...deps.imagePolicy };
    this.logPolicy = { ...DEFAULT_LOG_ROTATION_POLICY, ...deps.logPolicy };
    checkImageGCPolicy(this.imagePolicy);
    this.containers = new ContainerGC(deps);
    this.images = new ImageGC({
      image: deps.image,
      runtime: deps.runtime,
      clock: deps.clock,
      logger: deps.logger,
      fsStats: deps.fsStats ?? statfsStats,
      sandboxImage: deps.sandboxImage,
      afterFree: deps.afterImageGC,
    });
    this.logs = new LogRotator(deps);
  }

  /**
   * Removes dead containers and unused sandboxes by the container policy. With
   * `evictNonDeletedPods` (the eviction manager) terminated pods' containers go too.
   */
  collectContainers(
    opts: { evictNonDeletedPods?: boolean; signal?: AbortSignal } = {},
  ): Promise<{ containers: number; sandboxes: number }> {
    return this.containers.collect(this.containerPolicy, opts);
  }

  /**
   * With `bytesToFree`, removes unused images (LRU, honouring the minimum age) until that many
   * bytes are freed and returns the bytes freed; without, runs the threshold check. Never
   * removes an image in use or the sandbox image.
   */
  async collectImages(opts: { bytesToFree?: number; signal?: AbortSignal } = {}): Promise<number> {
    if (opts.bytesToFree === undefined) {
      return (await this.images.garbageCollect(this.imagePolicy, opts)).freed;
    }
    return await this.images.freeSpace(opts.bytesToFree, {
      minAgeMs: this.imagePolicy.minAgeMs,
      signal: opts.signal,
    });
  }

  /** Rotates the logs of running containers over the size limit. */
  rotateLogs(opts: { signal?: AbortSignal } = {}): Promise<void> {
    return this.logs.rotateAll(this.logPolicy, opts);
  }

  /**
   * Runs the three loops until `signal` aborts: a round of each at once, then one per period.
   * Each round's failure is logged and the loop goes on. Resolves once every loop has stopped.
   */
  async run(opts: { signal: AbortSignal }): Promise<void> {
    const p = this.#deps.periods ?? {};
    await Promise.all([
      this.#loop(
        "container",
        p.containersMs ?? CONTAINER_GC_PERIOD_MS,
        opts.signal,
        (signal) => this.collectContainers({ signal }),
      ),
      this.#loop(
        "image",
        p.imagesMs ?? IMAGE_GC_PERIOD_MS,
        opts.signal,
        (signal) => this.collectImages({ signal }),
      ),
      this.#loop(
        "log rotation",
        p.logsMs ?? LOG_ROTATION_PERIOD_MS,
        opts.signal,
        (signal) => this.rotateLogs({ signal }),
      ),
    ]);
  }

  async #loop(
    what: string,
    periodMs: number,
    signal: AbortSignal,
    round: (signal: AbortSignal) => Promise<unknown>,
  ): Promise<void> {
    const { clock } = this.#deps;
    // As upstream's wait.Until: the first round runs at once, then one per period.
    while (!signal.aborted) {
      try {
        await round(signal);
        this.#failures.clear(what);
      } catch (err) {
        if (signal.aborted) return;
        this.#failures.warn(what, `Garbage collection (${what}) failed`, {
          err: errorMessage(err),
        });
      }
      try {
        await clock.sleep(periodMs, { signal });
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
    }
  }
}
