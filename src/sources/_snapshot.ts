import type { V1Pod } from "@kubernetes/client-node";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { CONFIG_SEEN_ANNOTATION } from "./_static_pod.ts";
import { stableStringify } from "./_stable.ts";
import type { ManifestProblem, PodSourceUpdate, SourceName } from "./types.ts";

export type Problem = Pick<ManifestProblem, "path" | "reason">;

/**
 * Turns each read of a source into an `onUpdate` call only when the snapshot changed. The
 * comparison ignores times (`kubernetes.io/config.seen`, `seenAt`) so re-reading an unchanged
 * source is silent. `config.seen` is the first time this source saw the pod's UID (upstream
 * records it when the pod first enters the kubelet's config), so it is stable across reads.
 */
export class SnapshotEmitter {
  #lastKey: string | undefined;
  #lastProblems = new Set<string>();
  #firstSeen = new Map<string, number>();

  constructor(
    readonly source: SourceName,
    readonly deps: {
      clock: Clock;
      logger: Logger;
      onUpdate: (u: PodSourceUpdate) => void;
    },
  ) {}

  /**
   * Offers the result of one read; emits (with fresh copies of `pods`) if it differs. If
   * `onUpdate` throws, the snapshot counts as not delivered and the next offer emits it again.
   */
  offer(pods: readonly V1Pod[], problems: readonly Problem[]): boolean {
    const now = this.deps.clock.now();
    const uids = new Set(pods.map((p) => p.metadata?.uid ?? ""));
    for (const uid of this.#firstSeen.keys()) if (!uids.has(uid)) this.#firstSeen.delete(uid);
    for (const uid of uids) if (!this.#firstSeen.has(uid)) this.#firstSeen.set(uid, now);

    const key = stableStringify({
      pods,
      problems: problems.map((p) => [p.path, p.reason]),
    });
    if (key === this.#lastKey) return false;

    const out: V1Pod[] = pods.map((p) => {
      const copy = structuredClone(p);
      const seen = this.#firstSeen.get(copy.metadata?.uid ?? "") ?? now;
      copy.metadata = copy.metadata ?? {};
      copy.metadata.annotations = {
        ...copy.metadata.annotations,
        [CONFIG_SEEN_ANNOTATION]: new Date(seen).toISOString(),
      };
      return copy;
    });
    this.deps.onUpdate({
      source: this.source,
      pods: out,
      problems: problems.map((p) => ({ source: this.source, ...p, seenAt: now })),
    });
    this.#lastKey = key;
    this.#logNewProblems(problems);
    return true;
  }

  /**
   * Reports why the source cannot be read before it ever was: an `unread` update with these
   * problems (emitted when they changed), which leaves the source unseen.
   */
  offerUnread(problems: readonly Problem[]): boolean {
    const key = stableStringify({ unread: problems.map((p) => [p.path, p.reason]) });
    if (key === this.#lastKey) return false;
    const now = this.deps.clock.now();
    this.deps.onUpdate({
      source: this.source,
      pods: [],
      problems: problems.map((p) => ({ source: this.source, ...p, seenAt: now })),
      unread: true,
    });
    this.#lastKey = key;
    return true;
  }

  #logNewProblems(problems: readonly Problem[]): void {
    const current = new Set<string>();
    for (const p of problems) {
      const k = `${p.path}\n${p.reason}`;
      current.add(k);
      if (!this.#lastProblems.has(k)) {
        this.deps.logger.warn("Cannot use static pod manifest", {
          source: this.source,
          path: p.path,
          reason: p.reason,
        });
      }
    }
    this.#lastProblems = current;
  }
}
