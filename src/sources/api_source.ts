/**
 * Pods bound to this node, from the API server (pkg/kubelet/config/apiserver.go, with the pod
 * config's rules from config.go): a list and watch of `/api/v1/pods` with
 * `fieldSelector=spec.nodeName=<node>` kept in an `ApiPodStore`, and full snapshots (`SET`) for the
 * kubelet. Nothing is sent before the first list succeeds, so the source stays unseen and
 * clean-up waits while the API server is unreachable at start; during an outage the last
 * snapshot stands. Mirror pods are the agent's own reflection of its static pods: they stay in
 * the store (for the mirror pod manager and the status writer) and never reach the kubelet.
 *
 * The kubelet is sent a new version of a pod only when it changed in a way that matters to it
 * (metadata, spec, conditions others own): the status the agent itself writes comes back through
 * the watch, and upstream's pod config treats that as a reconcile, not an update. A pod that
 * leaves the API server without the agent's final delete (force deletion) is killed at once.
 *
 * With a checkpoint (edge autonomy, `--api-checkpoint`), the pods are saved as the store holds
 * them after every change (debounced), and a start whose first list fails, or takes longer than
 * a few seconds, runs the saved pods as the source's snapshot: they are the last desired state
 * the agent knew, so they run and the source counts as seen. The first list that succeeds
 * replaces them: the API's view wins (pods gone meanwhile are killed, new ones start), and pods
 * that did not change stay the same objects, so nothing restarts.
 *
 * The API client's code is injected (`reflector`), so a standalone agent that imports the
 * sources module loads none of it.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import type { ReflectorOptions } from "../apiclient/reflector.ts";
import type { CheckpointSlot, PodsCheckpoint } from "../checkpoint/types.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage, type Logger } from "../util/log.ts";
import { type ApiPodStore, podKey, Store } from "./_api_pod_store.ts";
import { SnapshotEmitter } from "./_snapshot.ts";
import { stableStringify } from "./_stable.ts";
import { CONFIG_SOURCE_ANNOTATION } from "./_static_pod.ts";
import type { PodSource, PodSourceUpdate } from "./types.ts";

export type { ApiPodStore, PodName } from "./_api_pod_store.ts";

/** Marks a mirror pod; its value is the static pod's `kubernetes.io/config.hash`. */
export const CONFIG_MIRROR_ANNOTATION = "kubernetes.io/config.mirror";

/** Conditions the kubelet computes and writes itself; others' conditions are theirs to write. */
export const KUBELET_CONDITIONS: ReadonlySet<string> = new Set([
  "PodReadyToStartContainers",
  "Initialized",
  "Ready",
  "ContainersReady",
  "PodResizePending",
  "PodResizeInProgress",
]);

export function isMirrorPod(pod: V1Pod): boolean {
  return pod.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] !== undefined;
}

/** The function that lists and watches (apiclient's `runReflector`). */
export type Reflector = (
  opts: ReflectorOptions<V1Pod>,
  run: { signal: AbortSignal },
) => Promise<void>;

export interface ApiSourceOptions {
  client: ApiClient;
  reflector: Reflector;
  nodeName: string;
  clock: Clock;
  logger: Logger;
  /** The pods' checkpoint: saved while listed, run while the API server is away at start. */
  checkpoint?: CheckpointSlot<PodsCheckpoint>;
  /** How long the first list may take before the checkpoint's pods run; default 3 s. */
  checkpointAfterMs?: number;
}

/** Where the source's pods come from now. */
export interface ApiSourceState {
  /** A list succeeded since the start: the pods are the API server's. */
  listed: boolean;
  /** No list succeeded yet and the checkpoint's pods run. */
  fromCheckpoint: boolean;
  /** Why the last list failed, while none has succeeded. */
  lastListError?: string;
}

/** The `api` pod source; its store is shared with the status writer and the mirror pods. */
export interface ApiPodSource extends PodSource {
  readonly store: ApiPodStore;
  /** Cheap, never blocks. */
  state(): ApiSourceState;
}

/**
 * A first list slower than this counts as an API server out of reach (a black-holed uplink never
 * refuses a connection); a slow but reachable one only means the checkpoint ran briefly.
 */
const DEFAULT_CHECKPOINT_AFTER_MS = 3000;

export function createApiSource(opts: ApiSourceOptions): ApiPodSource {
  return new ApiSource(opts);
}

class ApiSource implements ApiPodSource {
  readonly name = "api" as const;
  readonly store: ApiPodStore;
  readonly #store = new Store();
  readonly #log: Logger;
  /** The version last sent to the kubelet, by UID, with the key that decides "changed". */
  readonly #sent = new Map<string, { key: string; pod: V1Pod }>();
  #fromCheckpoint = false;
  #lastListError?: string;
  /** The checkpoint's pods, kept until the first list makes them useless. */
  #saved?: V1Pod[];

  constructor(readonly opts: ApiSourceOptions) {
    this.store = this.#store;
    this.#log = opts.logger.child({ source: "api" });
    this.#saved = opts.checkpoint?.take()?.pods;
  }

  state(): ApiSourceState {
    const listed = this.#store.synced;
    return {
      listed,
      fromCheckpoint: this.#fromCheckpoint,
      lastListError: listed ? undefined : this.#lastListError,
    };
  }

  async run(onUpdate: (u: PodSourceUpdate) => void, run: { signal: AbortSignal }): Promise<void> {
    const { clock, nodeName, checkpoint } = this.opts;
    const emitter = new SnapshotEmitter("api", { clock, logger: this.#log, onUpdate });
    let lastOffered: V1Pod[] | undefined;
    const emit = () => {
      if (!this.#store.synced || run.signal.aborted) return;
      if (this.#fromCheckpoint) {
        this.#fromCheckpoint = false;
        this.#log.info("The API server answered; its pods replace the checkpoint's");
      }
      try {
        const { pods, vanished } = this.#snapshot(this.#store.pods(), clock.now());
        // Most events are status writes coming back: the same objects for the kubelet, and
        // nothing to compare again.
        if (vanished.length === 0 && sameObjects(pods, lastOffered)) return;
        // Pods the API server dropped without the agent's final delete (a force deletion) are
        // first shown deleted with grace 0, so the kubelet kills them at once, then removed.
        if (vanished.length > 0) emitter.offer([...pods, ...vanished].sort(byCreation), []);
        emitter.offer(pods, []);
        lastOffered = pods;
      } catch (err) {
        // The kubelet's inbox does not throw; if it ever does, the next change offers again.
        this.#log.error("Cannot hand pods from the API server to the kubelet", { err });
      }
    };
    // The last desired state known, while the API server cannot tell: once, before any list.
    const runCheckpoint = () => {
      const saved = this.#saved;
      if (!saved || this.#store.synced || this.#fromCheckpoint || run.signal.aborted) return;
      this.#fromCheckpoint = true;
      try {
        // A root dir reused under another node name holds another node's pods: not ours to run.
        const mine = saved.filter((p) => p.spec?.nodeName === nodeName);
        if (mine.length < saved.length) {
          this.#log.warn("Checkpoint pods bound to another node left out", {
            pods: saved.length - mine.length,
          });
        }
        const { pods } = this.#snapshot(mine, clock.now());
        this.#log.info("The API server cannot be reached; running the pods of the checkpoint", {
          pods: pods.length,
          savedAt: new Date(checkpoint?.savedAt ?? 0).toISOString(),
          err: this.#lastListError,
        });
        emitter.offer(pods, []);
        lastOffered = pods;
      } catch (err) {
        this.#log.error("Cannot hand the checkpoint's pods to the kubelet", { err });
      }
    };
    const save = () => {
      if (!checkpoint || !this.#store.synced) return;
      checkpoint.schedule(() => ({ pods: checkpointPods(this.#store.pods()) }));
    };
    const unsubscribe = this.#store.subscribe(() => {
      emit();
      save();
    });
    const stopWaiting = new AbortController();
    if (this.#saved) {
      clock.sleep(this.opts.checkpointAfterMs ?? DEFAULT_CHECKPOINT_AFTER_MS, {
        signal: AbortSignal.any([run.signal, stopWaiting.signal]),
      }).then(runCheckpoint, () => undefined); // listed first, or stopped
    }
    this.#log.info("Watching pods bound to this node", { node: nodeName });
    try {
      await this.opts.reflector({
        client: this.opts.client,
        path: "/api/v1/pods",
        fieldSelector: `spec.nodeName=${nodeName}`,
        clock,
        logger: this.#log,
        onList: (items, rv) => {
          stopWaiting.abort();
          this.#saved = undefined;
          this.#store.replace(items, rv);
        },
        onEvent: (type, pod) => {
          if (type === "DELETED") this.#store.deleted(pod);
          else this.#store.observe(pod);
        },
        onListError: (err) => {
          if (this.#store.synced) return;
          this.#lastListError = errorMessage(err);
          runCheckpoint();
        },
      }, run);
    } finally {
      stopWaiting.abort();
      unsubscribe();
    }
  }

  /**
   * Pods for the kubelet from `source` (the store's, or the checkpoint's): no mirror pods,
   * oldest first (upstream admits by creation time); and the pods sent before that are gone
   * now, marked as deleted with grace 0.
   */
  #snapshot(source: V1Pod[], now: number): { pods: V1Pod[]; vanished: V1Pod[] } {
    const live = new Set<string>();
    const pods: V1Pod[] = [];
    for (const p of source) {
      if (isMirrorPod(p)) continue;
      const uid = p.metadata?.uid ?? "";
      live.add(uid);
      const key = semanticKey(p);
      let sent = this.#sent.get(uid);
      if (!sent || sent.key !== key) {
        sent = { key, pod: forKubelet(p) };
        this.#sent.set(uid, sent);
      }
      pods.push(sent.pod);
    }
    const vanished: V1Pod[] = [];
    for (const [uid, { pod }] of this.#sent) {
      if (live.has(uid)) continue;
      this.#sent.delete(uid);
      if (pod.metadata?.deletionGracePeriodSeconds === 0) continue;
      vanished.push({
        ...pod,
        metadata: {
          ...pod.metadata,
          deletionTimestamp: (pod.metadata?.deletionTimestamp ??
            new Date(now).toISOString()) as unknown as Date,
          deletionGracePeriodSeconds: 0,
        },
      });
    }
    return { pods: pods.sort(byCreation), vanished };
  }
}

/** Keys by object: the store replaces a pod's object only when it changed. */
const keys = new WeakMap<V1Pod, string>();

/** What decides whether the kubelet hears of a new version (upstream podsDifferSemantically). */
function semanticKey(pod: V1Pod): string {
  let key = keys.get(pod);
  if (key === undefined) {
    const { resourceVersion: _rv, managedFields: _mf, ...metadata } = pod.metadata ?? {};
    const foreign = (pod.status?.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
    key = stableStringify({ metadata, spec: pod.spec, foreign });
    keys.set(pod, key);
  }
  return key;
}

/** What the checkpoint keeps: the API's pods without mirrors and field managers, in a stable order. */
function checkpointPods(pods: V1Pod[]): V1Pod[] {
  return pods.filter((p) => !isMirrorPod(p)).map((p) => {
    const { managedFields: _mf, ...metadata } = p.metadata ?? {};
    return { ...p, metadata };
  }).sort((a, b) => (podKey(a) < podKey(b) ? -1 : podKey(a) > podKey(b) ? 1 : 0));
}

function sameObjects(a: V1Pod[], b: V1Pod[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((p, i) => p === b[i]);
}

function forKubelet(pod: V1Pod): V1Pod {
  const { managedFields: _mf, ...metadata } = pod.metadata ?? {};
  return {
    ...pod,
    metadata: {
      ...metadata,
      annotations: { ...metadata.annotations, [CONFIG_SOURCE_ANNOTATION]: "api" },
    },
  };
}

function createdAt(pod: V1Pod): number {
  // JSON gives the RFC 3339 string the client-node type calls a Date.
  const t = new Date(pod.metadata?.creationTimestamp ?? 0).getTime();
  return Number.isNaN(t) ? 0 : t;
}

function byCreation(a: V1Pod, b: V1Pod): number {
  const d = createdAt(a) - createdAt(b);
  if (d !== 0) return d;
  return podKey(a) < podKey(b) ? -1 : podKey(a) > podKey(b) ? 1 : 0;
}
