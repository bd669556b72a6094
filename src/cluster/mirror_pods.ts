/**
 * Mirror pods (pkg/kubelet/pod/mirror_client.go and the kubelet's mirror handling): every static
 * pod is shown in the API server as a pod of the same name with the annotation
 * `kubernetes.io/config.mirror` set to the static pod's hash and the Node as its controlling
 * owner (NodeRestriction admits nothing else from a node). A mirror that is being deleted, or
 * that mirrors another version of the static pod, is deleted (grace 0, UID precondition) and
 * created again; a mirror whose static pod is gone is deleted once that pod has stopped. The
 * status writer keeps its status current.
 *
 * One reconcile loop compares the kubelet's static pods with the store's mirrors: on a trigger
 * (a static pod's status changed, a mirror changed in the API) and every few seconds.
 */
import { finalDeleteRequest } from "./_final_delete.ts";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { type ApiClient, ApiError } from "../apiclient/types.ts";
import type { ApiPodStore } from "../sources/api_source.ts";
import { CONFIG_MIRROR_ANNOTATION, isMirrorPod } from "../sources/api_source.ts";
import { CONFIG_HASH_ANNOTATION, CONFIG_SOURCE_ANNOTATION } from "../sources/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { RepeatedFailures } from "../util/repeated_failures.ts";
import type { KubeletPods } from "./status_writer.ts";
import { Wakeup } from "./_wakeup.ts";

export interface MirrorPodDeps {
  client: ApiClient;
  store: ApiPodStore;
  nodeName: string;
  /** The Node as the API server has it (its UID goes into the owner reference). */
  node: () => V1Node | undefined;
  clock: Clock;
  logger: Logger;
  /** Time between reconciles without a trigger; default 5 s. */
  periodMs?: number;
  /** First pause for a pod whose create or delete failed; doubles up to 30 s. Default 1 s. */
  backoffMs?: number;
}

export interface MirrorPods {
  /** Asks for a reconcile soon. Never blocks. */
  trigger(): void;
  /** Reconciles until the signal aborts. Never rejects. */
  run(kubelet: KubeletPods, opts: { signal: AbortSignal }): Promise<void>;
}

export function createMirrorPods(deps: MirrorPodDeps): MirrorPods {
  return new Mirrors(deps);
}

const fullName = (p: V1Pod) => `${p.metadata?.namespace ?? ""}/${p.metadata?.name ?? ""}`;
const isStatic = (p: V1Pod) => {
  const source = p.metadata?.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== "api";
};
const MAX_BACKOFF_MS = 30_000;

class Mirrors implements MirrorPods {
  readonly #deps: MirrorPodDeps;
  readonly #log: Logger;
  readonly #wakeup: Wakeup;
  readonly #failures: RepeatedFailures;
  /** Pods whose last create or delete failed: not tried again before `until`. */
  readonly #backoff = new Map<string, { until: number; ms: number }>();

  constructor(deps: MirrorPodDeps) {
    this.#deps = deps;
    this.#log = deps.logger.child({ component: "mirror-pods" });
    this.#wakeup = new Wakeup(deps.clock);
    this.#failures = new RepeatedFailures(this.#log, { clock: deps.clock });
  }

  trigger(): void {
    this.#wakeup.wake();
  }

  async run(kubelet: KubeletPods, opts: { signal: AbortSignal }): Promise<void> {
    const { signal } = opts;
    const unsubscribe = this.#deps.store.subscribe(() => this.trigger());
    try {
      while (!signal.aborted) {
        try {
          await this.#reconcile(kubelet, signal);
        } catch (err) {
          if (signal.aborted) break;
          this.#failures.warn("reconcile", "Mirror pod reconcile failed", { err });
        }
        await this.#wakeup.wait(this.#deps.periodMs ?? 5000, { signal });
      }
    } finally {
      unsubscribe();
    }
  }

  async #reconcile(kubelet: KubeletPods, signal: AbortSignal): Promise<void> {
    const { store } = this.#deps;
    // Until the first list the store cannot say which mirrors exist.
    if (!store.synced) return;
    const statics = new Map<string, V1Pod>();
    for (const p of kubelet.podManager.pods()) if (isStatic(p)) statics.set(fullName(p), p);
    const mirrors = new Map<string, V1Pod>();
    for (const p of store.pods()) if (isMirrorPod(p)) mirrors.set(fullName(p), p);

    for (const [name, pod] of statics) {
      if (signal.aborted || this.#waiting(name)) continue;
      const hash = pod.metadata?.annotations?.[CONFIG_HASH_ANNOTATION] ?? "";
      let mirror = mirrors.get(name);
      if (mirror && (mirror.metadata?.deletionTimestamp || mirrorHash(mirror) !== hash)) {
        this.#log.info("Deleting a mirror pod that is being deleted or outdated", {
          pod: name,
          uid: mirror.metadata?.uid,
        });
        if (!(await this.#attempt(name, () => this.#delete(mirror!, signal)))) continue;
        mirror = undefined;
      }
      if (mirror) continue;
      const other = store.get(pod.metadata?.namespace ?? "", pod.metadata?.name ?? "");
      if (other && !isMirrorPod(other)) continue; // an API pod holds the name
      await this.#attempt(name, () => this.#create(pod, hash, signal));
    }

    for (const [name, mirror] of mirrors) {
      if (statics.has(name) || signal.aborted || this.#waiting(name)) continue;
      // The static pod's UID is its hash: wait until its worker has stopped it.
      const state = kubelet.podWorkState(mirrorHash(mirror));
      if (state === "syncing" || state === "terminating") continue;
      this.#log.info("Deleting an orphaned mirror pod", { pod: name, uid: mirror.metadata?.uid });
      await this.#attempt(name, () => this.#delete(mirror, signal));
    }
  }

  #waiting(name: string): boolean {
    const b = this.#backoff.get(name);
    return b !== undefined && this.#deps.clock.monotonic() < b.until;
  }

  /** Runs `fn`; on failure backs the pod off and logs. True when it succeeded. */
  async #attempt(name: string, fn: () => Promise<void>): Promise<boolean> {
    try {
      await fn();
      this.#backoff.delete(name);
      this.#failures.clear(name);
      return true;
    } catch (err) {
      const prev = this.#backoff.get(name)?.ms ?? 0;
      const ms = prev === 0 ? (this.#deps.backoffMs ?? 1000) : Math.min(prev * 2, MAX_BACKOFF_MS);
      this.#backoff.set(name, { until: this.#deps.clock.monotonic() + ms, ms });
      this.#failures.warn(name, "Mirror pod change failed; will retry", {
        pod: name,
        err,
        retryInMs: ms,
      });
      return false;
    }
  }

  async #create(pod: V1Pod, hash: string, signal: AbortSignal): Promise<void> {
    const node = this.#deps.node();
    // The owner reference needs the Node's UID; a Node being deleted gets no new mirrors.
    if (!node?.metadata?.uid || node.metadata.deletionTimestamp) {
      this.#log.debug(4, "No mirror pod yet: the Node is not known or is being deleted", {
        pod: fullName(pod),
      });
      return;
    }
    const { namespace, name, labels, annotations } = pod.metadata ?? {};
    const body: V1Pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: {
        name,
        namespace,
        labels,
        annotations: { ...annotations, [CONFIG_MIRROR_ANNOTATION]: hash },
        ownerReferences: [{
          apiVersion: "v1",
          kind: "Node",
          name: this.#deps.nodeName,
          uid: node.metadata.uid,
          controller: true,
        }],
      },
      spec: withoutAdmittedPriority(pod.spec),
    };
    try {
      const created = await this.#deps.client.request<V1Pod>({
        method: "POST",
        path: `/api/v1/namespaces/${namespace}/pods`,
        body,
      }, { signal });
      this.#log.info("Created mirror pod", { pod: fullName(pod), uid: created?.metadata?.uid });
      if (created?.metadata) this.#deps.store.observe(created);
    } catch (err) {
      // Someone's create won (ours, answered late): the watch shows it and the next pass decides.
      if (err instanceof ApiError && err.status === 409) return;
      throw err;
    }
  }

  async #delete(mirror: V1Pod, signal: AbortSignal): Promise<void> {
    const { namespace, name, uid } = mirror.metadata ?? {};
    try {
      await this.#deps.client.request(finalDeleteRequest({ namespace, name, uid }), { signal });
    } catch (err) {
      // Already gone, or replaced (the UID precondition failed): nothing left to delete.
      if (!(err instanceof ApiError && (err.status === 404 || err.status === 409))) throw err;
    }
    this.#deps.store.forget(namespace ?? "", name ?? "", uid ?? "");
  }
}

function mirrorHash(mirror: V1Pod): string {
  return mirror.metadata?.annotations?.[CONFIG_MIRROR_ANNOTATION] ?? "";
}

/**
 * The pod's spec without `priority` and `preemptionPolicy`. The agent resolves them locally (only
 * the system classes are known here), but the API server's priority admission computes both from
 * the class itself and refuses a pod whose given values differ, which a custom class or a
 * global default class would make every mirror pod do.
 */
function withoutAdmittedPriority(spec: V1Pod["spec"]): V1Pod["spec"] {
  if (!spec) return spec;
  const { priority: _priority, preemptionPolicy: _policy, ...rest } = spec;
  return rest;
}
