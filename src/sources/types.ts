import type { V1Pod } from "@kubernetes/client-node";

/** Where a pod came from, as the kubelet names it (`kubernetes.io/config.source`). */
export type SourceName = "file" | "http" | "api";

/** A manifest that could not be used; kept so the node API can show it. */
export interface ManifestProblem {
  source: SourceName;
  /** File path or URL. */
  path: string;
  reason: string;
  /** ms since epoch when it was last seen. */
  seenAt: number;
}

/**
 * A full snapshot from one source: the complete set of pods it currently provides (kubelet's
 * `SET` operation). The consumer diffs snapshots to find added, updated and removed pods.
 */
export interface PodSourceUpdate {
  source: SourceName;
  pods: V1Pod[];
  problems: ManifestProblem[];
  /**
   * The source has not been read successfully yet: only `problems` (why not) count; `pods` is
   * empty and means nothing, and the source stays unseen, so clean-up still waits for it.
   */
  unread?: boolean;
}

/**
 * A source of desired pods. `run` reads the source now, then again at its check frequency and on
 * change notifications, calling `onUpdate` with a full snapshot whenever the set of pods or
 * problems changes (and once after the first successful read, even if empty). Nothing is sent
 * until a read succeeds: the first snapshot tells the consumer the source has been read, which
 * lets it remove runtime pods the source does not list. Resolves when the signal aborts.
 * Never throws for bad manifests, unreadable paths or unreachable URLs: once the source has been
 * read those become `problems` next to the last good pods (before, they are sent as an `unread`
 * update, which reports them without marking the source read). An
 * unexpected error in one read, or thrown by `onUpdate`, is logged and the next check goes on.
 */
export interface PodSource {
  readonly name: SourceName;
  run(onUpdate: (u: PodSourceUpdate) => void, opts: { signal: AbortSignal }): Promise<void>;
}
