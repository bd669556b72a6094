/**
 * Every Service in the cluster, kept by a watch (the upstream kubelet's service informer), for
 * the service-link variables of container env. Only what those variables need is kept: a
 * Service's selector, labels and annotations would cost memory for nothing. With a checkpoint
 * (edge autonomy) they are saved, and served when the first list fails, so pods started while
 * the API server is away get the same variables as before; with none saved, none.
 */
import type { V1Service } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import type { ReflectorOptions } from "../apiclient/reflector.ts";
import type { CheckpointSlot, ServicesCheckpoint } from "../checkpoint/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

export interface ServiceCacheDeps {
  client: ApiClient;
  reflector: (opts: ReflectorOptions<V1Service>, run: { signal: AbortSignal }) => Promise<void>;
  clock: Clock;
  logger: Logger;
  /**
   * Called once, when the Services are first known (listed, or taken from the checkpoint):
   * pods that failed for want of them can be retried at once rather than after their back-off.
   */
  onSynced?: () => void;
  checkpoint?: CheckpointSlot<ServicesCheckpoint>;
}

export interface ServiceCache {
  /**
   * The Services of a namespace (an empty list for a namespace without any), or undefined until
   * the first list has completed. Cheap, never blocks.
   */
  list(namespace: string): readonly V1Service[] | undefined;
  /** Lists and watches until the signal aborts. Never rejects. */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

/** The fields the env needs; a fresh object, so the watch's own is not held on to. */
function slim(svc: V1Service): V1Service {
  return {
    metadata: { name: svc.metadata?.name, namespace: svc.metadata?.namespace },
    spec: {
      clusterIP: svc.spec?.clusterIP,
      ports: (svc.spec?.ports ?? []).map((p) => ({
        name: p.name,
        port: p.port,
        protocol: p.protocol,
      })),
    },
  };
}

export function createServiceCache(deps: ServiceCacheDeps): ServiceCache {
  // namespace -> name -> service; a namespace's list is rebuilt only after it changed.
  let byNamespace: Map<string, Map<string, V1Service>> | undefined;
  const lists = new Map<string, readonly V1Service[]>();
  let saved = deps.checkpoint?.take()?.objects;
  const put = (svc: V1Service) => {
    if (!byNamespace) return; // the reflector lists first; nothing to add to before that
    const ns = svc.metadata?.namespace ?? "";
    let names = byNamespace.get(ns);
    if (!names) byNamespace.set(ns, names = new Map());
    names.set(svc.metadata?.name ?? "", slim(svc));
    lists.delete(ns);
  };
  const replace = (items: V1Service[]) => {
    const first = byNamespace === undefined;
    byNamespace = new Map();
    lists.clear();
    for (const svc of items) put(svc);
    if (first) deps.onSynced?.();
  };
  const save = () =>
    deps.checkpoint?.schedule(() => ({
      objects: [...byNamespace?.values() ?? []].flatMap((names) => [...names.values()]),
    }));
  return {
    list(namespace) {
      if (!byNamespace) return undefined;
      let list = lists.get(namespace);
      if (!list) {
        list = [...byNamespace.get(namespace)?.values() ?? []];
        lists.set(namespace, list);
      }
      return list;
    },
    run: (opts) =>
      deps.reflector({
        client: deps.client,
        path: "/api/v1/services",
        clock: deps.clock,
        logger: deps.logger,
        onList: (items) => {
          saved = undefined;
          replace(items);
          save();
        },
        onListError: () => {
          if (byNamespace || !deps.checkpoint) return;
          if (!saved) {
            // A node meant to run offline (checkpoints on) that never saved its Services (first
            // start since they were checkpointed): its pods start without service links rather
            // than wait for the API server. Upstream has no offline start to weigh this against.
            deps.logger.warn(
              "The API server cannot be reached and no Services were saved; pods started now " +
                "get no service-link variables",
            );
            replace([]);
            return;
          }
          deps.logger.info("The API server cannot be reached; using the checkpoint's Services", {
            services: saved.length,
          });
          replace(saved);
          saved = undefined;
        },
        onEvent: (type, svc) => {
          if (type !== "DELETED") put(svc);
          else {
            const ns = svc.metadata?.namespace ?? "";
            byNamespace?.get(ns)?.delete(svc.metadata?.name ?? "");
            lists.delete(ns);
          }
          save();
        },
      }, opts),
  };
}
