/**
 * RuntimeClasses (node.k8s.io/v1), for the runtime handler a pod's `runtimeClassName` names
 * (upstream pkg/kubelet/runtimeclass). Only name → handler is kept. The watch starts when a pod
 * first names a class: most edge nodes never do, and an idle watch is bytes on their uplink.
 */
import type { V1RuntimeClass } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import type { ReflectorOptions } from "../apiclient/reflector.ts";
import type { Clock } from "../util/clock.ts";
import { NotFoundError, NotSyncedError } from "../util/errors.ts";
import type { Logger } from "../util/log.ts";

/** A pod named a class before the first list completed; its sync is retried. */
export class RuntimeClassesNotSyncedError extends NotSyncedError {}

export interface RuntimeClassDeps {
  client: ApiClient;
  reflector: (
    opts: ReflectorOptions<V1RuntimeClass>,
    run: { signal: AbortSignal },
  ) => Promise<void>;
  clock: Clock;
  logger: Logger;
  /** Called when the classes are first listed: pods waiting for them can sync at once. */
  onSynced?: () => void;
}

export interface RuntimeClasses {
  /**
   * The handler for `name` ("" for no class: the runtime's default). Throws NotFoundError with
   * upstream's text for a class that does not exist, RuntimeClassesNotSyncedError before the
   * first list (and starts the watch). Never blocks.
   */
  handler(name: string | undefined): string;
  /** Waits for the first lookup, then lists and watches until the signal aborts. Never rejects. */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

export function createRuntimeClasses(deps: RuntimeClassDeps): RuntimeClasses {
  let handlers: Map<string, string> | undefined;
  let wanted: () => void = () => {};
  const demand = new Promise<void>((resolve) => wanted = resolve);
  return {
    handler(name) {
      if (!name) return "";
      wanted();
      if (!handlers) {
        throw new RuntimeClassesNotSyncedError(
          `RuntimeClass ${
            JSON.stringify(name)
          } cannot be looked up yet: RuntimeClasses are not listed`,
        );
      }
      const handler = handlers.get(name);
      if (handler === undefined) {
        throw new NotFoundError(`runtimeclass.node.k8s.io ${JSON.stringify(name)} not found`);
      }
      return handler;
    },
    async run({ signal }) {
      const aborted = new Promise<void>((resolve) =>
        signal.addEventListener("abort", () => resolve(), { once: true })
      );
      await Promise.race([demand, aborted]);
      if (signal.aborted) return;
      deps.logger.info("Watching RuntimeClasses: a pod names one");
      await deps.reflector({
        client: deps.client,
        path: "/apis/node.k8s.io/v1/runtimeclasses",
        clock: deps.clock,
        logger: deps.logger,
        onList: (items) => {
          const first = handlers === undefined;
          handlers = new Map(items.map((rc) => [rc.metadata?.name ?? "", rc.handler]));
          if (first) deps.onSynced?.();
        },
        onEvent: (type, rc) => {
          const name = rc.metadata?.name ?? "";
          if (type === "DELETED") handlers?.delete(name);
          else handlers?.set(name, rc.handler);
        },
      }, { signal });
    },
  };
}
