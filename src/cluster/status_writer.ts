/**
 * The status manager's API half (pkg/kubelet/status/status_manager.go): every pod's status goes
 * to the API server as a patch of `pods/<name>/status` with a UID precondition, only when the
 * part the kubelet owns differs from what the API server holds (so a restarted agent, whose
 * statuses start from the API's, writes nothing for pods that did not change); static pods'
 * statuses go to their mirror pods. Failed writes are retried with back-off. A pod being deleted
 * gracefully is deleted for good (grace 0, UID precondition) once its worker has terminated and
 * its last status is written: that is what makes it leave `kubectl get pods`.
 *
 * Calls from the kubelet only record and wake the writer's own loop; requests run there, a few
 * at a time, so the sync loop never waits for the API server. Only the latest status of each
 * pod is kept: after an outage (or a start from the checkpoint) that is what is written, as soon
 * as the pods' list succeeds again.
 */
import { finalDeleteRequest } from "./_final_delete.ts";
import type { V1Pod, V1PodStatus } from "@kubernetes/client-node";
import { type ApiClient, ApiError } from "../apiclient/types.ts";
import type { PodStatusSink, PodWorkState } from "../kubelet/mod.ts";
import type { ApiPodStore } from "../sources/api_source.ts";
import { CONFIG_MIRROR_ANNOTATION, isMirrorPod } from "../sources/api_source.ts";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../sources/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import { canonicalText, statusPatch } from "./_status_patch.ts";
import { Wakeup } from "./_wakeup.ts";

/** What the cluster loops read of the kubelet (the `Kubelet` has all of it). */
export interface KubeletPods {
  readonly podManager: { pods(): V1Pod[]; get(uid: string): V1Pod | undefined };
  podWorkState(uid: string): PodWorkState | undefined;
}

export interface StatusWriterDeps {
  client: ApiClient;
  store: ApiPodStore;
  clock: Clock;
  logger: Logger;
  /** A static pod's status changed or it terminated: its mirror pod may need attention. */
  onStaticPod?: () => void;
  /** Requests in flight at once; default 4. */
  concurrency?: number;
  /** First retry after a failed write; doubles up to `maxBackoffMs`. Default 1 s and 30 s. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Every pod is looked at again this often (upstream syncBatch); default 10 s. */
  resyncMs?: number;
}

export interface StatusWriter extends PodStatusSink {
  /** Writes until the signal aborts, then waits for requests in flight. Never rejects. */
  run(kubelet: KubeletPods, opts: { signal: AbortSignal }): Promise<void>;
}

export function createStatusWriter(deps: StatusWriterDeps): StatusWriter {
  return new Writer(deps);
}

interface Entry {
  uid: string;
  /** The pod as the kubelet has it (its source's version). */
  pod: V1Pod;
  status?: V1PodStatus;
  /** Its worker finished terminating: a pod being deleted may now go for good. */
  terminated: boolean;
  /** The final DELETE was answered; nothing more to write. */
  deleted: boolean;
  dirty: boolean;
  inflight: boolean;
  retryAt: number;
  backoffMs: number;
  /**
   * The last write: our status (canonical) and the pod's resourceVersion before and after it.
   * While ours is unchanged and the watch shows either version, the write is not repeated: the
   * older means the watch has not brought it yet, the newer is what the API made of it (in its
   * own words, which may never compare equal).
   */
  written?: { ours: string; before?: string; after?: string };
  /**
   * The status objects last found in agreement (nothing to write). The resync looks at every pod
   * every 10 s; while both are still the same objects (statuses and API objects are replaced on
   * change, never edited in place) it skips comparing their texts, ~30 µs each in lite mode.
   */
  settled?: { ours: V1PodStatus; theirs: V1PodStatus | undefined };
}

const STRATEGIC = "application/strategic-merge-patch+json" as const;

const fullName = (p: V1Pod) => `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`;
const isApiPod = (p: V1Pod) => p.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION] === "api";

class Writer implements StatusWriter {
  readonly #deps: StatusWriterDeps;
  readonly #log: Logger;
  readonly #failures: RepeatedFailures;
  readonly #entries = new Map<string, Entry>();
  readonly #wakeup: Wakeup;
  readonly #inflight = new Set<Promise<void>>();
  #kubelet?: KubeletPods;

  constructor(deps: StatusWriterDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: "status-writer" });
    this.#failures = new RepeatedFailures(this.#log, { clock: deps.clock });
    this.#wakeup = new Wakeup(deps.clock);
  }

  statusChanged(pod: V1Pod, status: V1PodStatus): void {
    const e = this.#entry(pod);
    e.status = status;
    this.#mark(e);
    if (!isApiPod(pod)) this.#deps.onStaticPod?.();
  }

  podTerminated(pod: V1Pod): void {
    const e = this.#entry(pod);
    e.terminated = true;
    this.#mark(e);
    if (!isApiPod(pod)) this.#deps.onStaticPod?.();
  }

  async run(kubelet: KubeletPods, opts: { signal: AbortSignal }): Promise<void> {
    const { signal } = opts;
    const { clock, store } = this.#deps;
    this.#kubelet = kubelet;
    const unsubscribe = store.subscribe((changed) => {
      const key = changed && `${changed.namespace}/${changed.name}`;
      for (const e of this.#entries.values()) {
        if (key !== undefined && fullName(e.pod) !== key) continue;
        // A complete list: the API server answers again (after an outage, or for the first
        // time after an offline start). What waited out a back-off is written now.
        if (key === undefined) e.retryAt = 0;
        this.#mark(e);
      }
    });
    const stopResync = clock.every(this.#deps.resyncMs ?? 10_000, () => this.#resync(), {
      signal,
    });
    try {
      while (!signal.aborted) {
        const nextRetry = this.#startDue(signal);
        await this.#wakeup.wait(nextRetry, { signal });
      }
    } finally {
      stopResync();
      unsubscribe();
      await Promise.allSettled([...this.#inflight]);
    }
  }

  #entry(pod: V1Pod): Entry {
    const uid = pod.metadata?.uid ?? "";
    let e = this.#entries.get(uid);
    if (!e) {
      e = {
        uid,
        pod,
        terminated: false,
        deleted: false,
        dirty: false,
        inflight: false,
        retryAt: 0,
        backoffMs: 0,
      };
      this.#entries.set(uid, e);
    }
    e.pod = pod;
    return e;
  }

  #mark(e: Entry): void {
    e.dirty = true;
    this.#wakeup.wake();
  }

  /**
   * Upstream's periodic batch: pods whose graceful deletion finished earlier (a completed pod
   * deleted later terminates no worker again), entries of pods the kubelet has forgotten, and
   * another look at every pod.
   */
  #resync(): void {
    const kubelet = this.#kubelet;
    if (!kubelet) return;
    for (const pod of kubelet.podManager.pods()) {
      const uid = pod.metadata?.uid ?? "";
      if (!pod.metadata?.deletionTimestamp || kubelet.podWorkState(uid) !== "terminated") continue;
      this.#entry(pod).terminated = true;
    }
    for (const [uid, e] of this.#entries) {
      if (!e.inflight && !kubelet.podManager.get(uid)) {
        this.#entries.delete(uid);
        this.#failures.clear(uid);
        continue;
      }
      this.#mark(e);
    }
  }

  /** Starts the syncs that are due; returns ms until the next back-off ends, if any. */
  #startDue(signal: AbortSignal): number | undefined {
    const now = this.#deps.clock.monotonic();
    const limit = this.#deps.concurrency ?? 4;
    let next: number | undefined;
    for (const e of this.#entries.values()) {
      if (!e.dirty || e.inflight) continue;
      if (e.retryAt > now) {
        next = Math.min(next ?? Infinity, e.retryAt - now);
        continue;
      }
      if (this.#inflight.size >= limit) break;
      e.dirty = false;
      e.inflight = true;
      const p: Promise<void> = this.#sync(e, signal).finally(() => {
        e.inflight = false;
        this.#inflight.delete(p);
        this.#wakeup.wake();
      });
      this.#inflight.add(p);
    }
    return next;
  }

  /** One pass over a pod: write its status if it differs, then the final delete. Never rejects. */
  async #sync(e: Entry, signal: AbortSignal): Promise<void> {
    try {
      await this.#write(e, signal);
      e.backoffMs = 0;
      e.retryAt = 0;
      this.#failures.clear(e.uid);
    } catch (err) {
      if (signal.aborted) return;
      const fields = { pod: fullName(e.pod), uid: e.uid, err };
      if (err instanceof ApiError && (err.status === 404 || err.status === 409)) {
        // Gone, or another incarnation holds the name: the watch brings the truth.
        this.#log.debug(2, "Pod status not written: the pod in the API server changed", fields);
        return;
      }
      const max = this.#deps.maxBackoffMs ?? 30_000;
      e.backoffMs = e.backoffMs === 0
        ? (this.#deps.backoffMs ?? 1000)
        : Math.min(e.backoffMs * 2, max);
      e.retryAt = this.#deps.clock.monotonic() + e.backoffMs;
      e.dirty = true;
      this.#failures.warn(e.uid, "Cannot update pod status in the API server; will retry", {
        ...fields,
        retryInMs: e.backoffMs,
      });
    }
  }

  async #write(e: Entry, signal: AbortSignal): Promise<void> {
    if (e.deleted) return;
    const target = this.#target(e.pod);
    if (!target) return; // not in the API server (yet): a watch event wakes us
    const { namespace, name, uid } = target.metadata ?? {};
    const base = `/api/v1/namespaces/${namespace}/pods/${name}`;
    if (e.status && (e.settled?.ours !== e.status || e.settled.theirs !== target.status)) {
      const ours = canonicalText(e.status);
      const rv = target.metadata?.resourceVersion;
      const repeat = e.written?.ours === ours && rv !== undefined &&
        (rv === e.written.before || rv === e.written.after);
      const patch = repeat ? undefined : statusPatch(e.status, target.status);
      if (patch) {
        // The answer as metadata alone: the whole pod (3-4 KB each write, most of a pod
        // start's downlink) would only repeat what the pod watch brings anyway.
        const updated = await this.#deps.client.request<{ metadata?: V1Pod["metadata"] }>({
          method: "PATCH",
          path: `${base}/status`,
          body: { metadata: { uid }, status: patch },
          patchType: STRATEGIC,
          metadataOnly: true,
        }, { signal });
        e.written = { ours, before: rv, after: updated?.metadata?.resourceVersion };
        this.#log.debug(3, "Pod status written", { pod: `${namespace}/${name}`, uid });
      } else {
        e.settled = { ours: e.status, theirs: target.status };
      }
    }
    if (e.terminated && isApiPod(e.pod) && target.metadata?.deletionTimestamp) {
      await this.#deps.client.request(finalDeleteRequest({ namespace, name, uid }), { signal });
      e.deleted = true;
      this.#log.info("Pod deleted from the API server after its graceful termination", {
        pod: `${namespace}/${name}`,
        uid,
      });
      this.#deps.store.forget(namespace ?? "", name ?? "", uid ?? "");
    }
  }

  /** The API object holding the pod's status: itself, or for a static pod its current mirror. */
  #target(pod: V1Pod): V1Pod | undefined {
    const { store } = this.#deps;
    if (isApiPod(pod)) return store.byUid(pod.metadata?.uid ?? "");
    const mirror = store.get(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
    if (!mirror || !isMirrorPod(mirror) || mirror.metadata?.deletionTimestamp) return undefined;
    const hash = pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION];
    return mirror.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] === hash ? mirror : undefined;
  }
}
