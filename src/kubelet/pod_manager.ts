/**
 * The desired pods, merged from every source (the kubelet's config mux + pod manager). Sources
 * send full snapshots; `apply` diffs a snapshot against what that source gave before and
 * returns what changed, by UID.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { ManifestProblem, PodSourceUpdate, SourceName } from "../sources/types.ts";

export interface PodChanges {
  added: V1Pod[];
  updated: V1Pod[];
  removed: V1Pod[];
  /** The versions the updated pods replaced, by UID. */
  replaced: Map<string, V1Pod>;
}

export class PodManager {
  readonly #bySource = new Map<SourceName, Map<string, V1Pod>>();
  readonly #problems = new Map<SourceName, ManifestProblem[]>();
  readonly #byUid = new Map<string, V1Pod>();
  readonly #seen = new Set<SourceName>();

  /** Applies a full snapshot from one source. Pods whose full name another source already uses are refused. */
  apply(u: PodSourceUpdate, now: number): PodChanges {
    if (u.unread) {
      // Why the source cannot be read yet, for /sources; its pods (none yet) and its unseen
      // state stay as they are.
      this.#problems.set(u.source, [...u.problems]);
      return { added: [], updated: [], removed: [], replaced: new Map() };
    }
    this.#seen.add(u.source);
    const prev = this.#bySource.get(u.source) ?? new Map<string, V1Pod>();
    const next = new Map<string, V1Pod>();
    const problems = [...u.problems];
    const names = this.#namesOutside(u.source);
    for (const pod of u.pods) {
      const uid = pod.metadata!.uid!;
      const full = fullName(pod);
      if (names.has(full) || [...next.values()].some((p) => fullName(p) === full)) {
        problems.push({
          source: u.source,
          path: full,
          reason: `duplicate pod ${full}: another manifest already defines it`,
          seenAt: now,
        });
        continue;
      }
      next.set(uid, pod);
    }
    const changes: PodChanges = { added: [], updated: [], removed: [], replaced: new Map() };
    for (const [uid, pod] of next) {
      const old = prev.get(uid);
      if (!old) changes.added.push(pod);
      else if (JSON.stringify(old) !== JSON.stringify(pod)) {
        changes.updated.push(pod);
        changes.replaced.set(uid, old);
      }
      this.#byUid.set(uid, pod);
    }
    for (const [uid, pod] of prev) {
      if (!next.has(uid)) {
        changes.removed.push(pod);
        this.#byUid.delete(uid);
      }
    }
    this.#bySource.set(u.source, next);
    this.#problems.set(u.source, problems);
    return changes;
  }

  get(uid: string): V1Pod | undefined {
    return this.#byUid.get(uid);
  }

  pods(): V1Pod[] {
    return [...this.#byUid.values()];
  }

  uids(): Set<string> {
    return new Set(this.#byUid.keys());
  }

  problems(): ManifestProblem[] {
    return [...this.#problems.values()].flat();
  }

  /** True once every expected source has delivered its first snapshot (the kubelet's sourcesReady). */
  allSourcesSeen(expected: SourceName[]): boolean {
    return expected.every((s) => this.#seen.has(s));
  }

  #namesOutside(source: SourceName): Set<string> {
    const names = new Set<string>();
    for (const [s, pods] of this.#bySource) {
      if (s === source) continue;
      for (const p of pods.values()) names.add(fullName(p));
    }
    return names;
  }
}

function fullName(pod: V1Pod): string {
  return `${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name}`;
}
