/**
 * ConfigMaps, Secrets and service-account tokens for the API-server mode's pods: watch-based
 * caches of the single objects each pod references, and the token manager. Volume plugins and
 * container env read them through `PodObjects`; a change requests a sync of the pods using it.
 */
import type { V1ConfigMap, V1Pod, V1Secret } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/mod.ts";
import type { CheckpointSlots } from "../checkpoint/types.ts";
import { ClaimCache } from "./claims.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { podRefs } from "./_refs.ts";
import { TokenManager } from "./token_manager.ts";
import type { PodClaims, PodObjects } from "./types.ts";
import { WatchManager } from "./watch_manager.ts";

export {
  ObjectNotFoundError,
  type PodClaims,
  type PodObjects,
  type TokenRequestSpec,
} from "./types.ts";
export { ClaimCache, type ClaimCacheDeps } from "./claims.ts";
export { type PodRefs, podRefs } from "./_refs.ts";
export { TokenManager, type TokenManagerDeps } from "./token_manager.ts";
export { type WatchedObject, WatchManager, type WatchManagerDeps } from "./watch_manager.ts";

export interface ObjectManagersDeps {
  client: ApiClient;
  clock: Clock;
  logger: Logger;
  /** Pods to sync soon: an object they use changed, or a token of theirs is due a refresh. */
  onPodsChanged: (podUids: string[]) => void;
  /** First read's wait for a new watch's list; default 5 s. */
  syncTimeoutMs?: number;
  /** Token refresh jitter source; default Math.random. */
  random?: () => number;
  /** Checkpoints of the objects and tokens (edge autonomy): served while the API is away. */
  checkpoint?: Pick<
    CheckpointSlots,
    "configMaps" | "secrets" | "tokens" | "claims" | "persistentVolumes"
  >;
}

/** The API mode's `PodObjects`, with the registration of pods and the periodic checks. */
export interface ObjectManagers extends PodObjects, PodClaims {
  /**
   * Makes the registered pods exactly `pods` (the kubelet's desired pods): watches start for
   * the objects new pods reference and stop for those of pods that are gone, whose tokens are
   * dropped. Never blocks.
   */
  syncPods(pods: V1Pod[]): void;
  /**
   * Every `periodMs` (default 1 s): `syncPods(pods())`, pods whose tokens are due a refresh to
   * `onPodsChanged`, expired tokens dropped. Runs until the signal aborts, then stops every
   * watch. Never rejects.
   */
  run(pods: () => V1Pod[], opts: { signal: AbortSignal; periodMs?: number }): Promise<void>;
}

export function createObjectManagers(deps: ObjectManagersDeps): ObjectManagers {
  const log = deps.logger.child({ component: "objects" });
  const common = {
    client: deps.client,
    clock: deps.clock,
    onChange: deps.onPodsChanged,
    syncTimeoutMs: deps.syncTimeoutMs,
  };
  const configMaps = new WatchManager<V1ConfigMap>({
    ...common,
    logger: log,
    kind: "configmap",
    resource: "configmaps",
    checkpoint: deps.checkpoint?.configMaps,
  });
  const secrets = new WatchManager<V1Secret>({
    ...common,
    logger: log,
    kind: "secret",
    resource: "secrets",
    checkpoint: deps.checkpoint?.secrets,
  });
  const tokens = new TokenManager({
    client: deps.client,
    clock: deps.clock,
    logger: log,
    random: deps.random,
    checkpoint: deps.checkpoint?.tokens,
  });
  const claims = new ClaimCache({
    client: deps.client,
    logger: log,
    checkpoint: {
      claims: deps.checkpoint?.claims,
      volumes: deps.checkpoint?.persistentVolumes,
    },
  });
  const registered = new Set<string>();

  const register = (pod: V1Pod) => {
    const uid = pod.metadata?.uid ?? "";
    const ns = pod.metadata?.namespace ?? "default";
    const refs = podRefs(pod);
    configMaps.registerPod(uid, ns, refs.configMaps);
    secrets.registerPod(uid, ns, refs.secrets);
    registered.add(uid);
  };
  // A pod read before the next periodic sync registers itself: its first sync must not wait.
  const ensure = (pod: V1Pod) => {
    if (!registered.has(pod.metadata?.uid ?? "")) register(pod);
  };
  const syncPods = (pods: V1Pod[]) => {
    const want = new Map(pods.map((p) => [p.metadata?.uid ?? "", p]));
    for (const uid of registered) {
      if (want.has(uid)) continue;
      configMaps.unregisterPod(uid);
      secrets.unregisterPod(uid);
      tokens.forgetPod(uid);
      claims.forgetPod(uid);
      registered.delete(uid);
    }
    // Pod specs cannot change what they reference, so a registered pod stays as it is.
    for (const [uid, pod] of want) if (!registered.has(uid)) register(pod);
  };

  return {
    configMap(pod, name, opts) {
      ensure(pod);
      return configMaps.get(pod.metadata?.namespace ?? "default", name, opts);
    },
    secret(pod, name, opts) {
      ensure(pod);
      return secrets.get(pod.metadata?.namespace ?? "default", name, opts);
    },
    serviceAccountToken(pod, spec, opts) {
      // Registered so its tokens are dropped with it, even before the next periodic sync.
      ensure(pod);
      return tokens.get(pod, spec, opts);
    },
    persistentVolumeClaim(pod, name, opts) {
      ensure(pod);
      const ref = { namespace: pod.metadata?.namespace ?? "default", name };
      return claims.claim(pod.metadata?.uid ?? "", ref, opts);
    },
    persistentVolume(pod, name, opts) {
      ensure(pod);
      return claims.volume(pod.metadata?.uid ?? "", name, opts);
    },
    syncPods,
    async run(pods, opts) {
      const { signal } = opts;
      const tick = () => {
        try {
          syncPods(pods());
          tokens.cleanup();
          const due = tokens.dueForRefresh();
          if (due.length) {
            log.debug(3, "Service account tokens due for refresh", { pods: due });
            deps.onPodsChanged(due);
          }
        } catch (err) {
          // A timer callback must not throw; the next tick tries again.
          log.error("Object managers' periodic check failed", { err });
        }
      };
      tick();
      const stop = deps.clock.every(opts.periodMs ?? 1000, tick, { signal });
      if (!signal.aborted) {
        await new Promise<void>((resolve) =>
          signal.addEventListener("abort", () => resolve(), { once: true })
        );
      }
      stop();
      await Promise.all([configMaps.close(), secrets.close()]);
    },
  };
}
