/**
 * This node's Node object as the API server has it, kept by a watch (the upstream kubelet's
 * node informer, `fieldSelector=metadata.name=<node>`): admission reads its allocatable, labels
 * and taints, the mirror pods its UID. Undefined until the first list finds it.
 */
import type { V1Node } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/types.ts";
import type { ReflectorOptions } from "../apiclient/reflector.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

export interface NodeViewDeps {
  client: ApiClient;
  reflector: (opts: ReflectorOptions<V1Node>, run: { signal: AbortSignal }) => Promise<void>;
  nodeName: string;
  clock: Clock;
  logger: Logger;
}

export interface NodeView {
  /** The latest Node seen; cheap, never blocks. */
  current(): V1Node | undefined;
  /** Watches until the signal aborts. Never rejects. */
  run(opts: { signal: AbortSignal }): Promise<void>;
}

export function createNodeView(deps: NodeViewDeps): NodeView {
  let node: V1Node | undefined;
  return {
    current: () => node,
    run: (opts) =>
      deps.reflector({
        client: deps.client,
        path: "/api/v1/nodes",
        fieldSelector: `metadata.name=${deps.nodeName}`,
        clock: deps.clock,
        logger: deps.logger,
        onList: (items) => {
          node = items.find((n) => n.metadata?.name === deps.nodeName);
        },
        onEvent: (type, n) => {
          if (n.metadata?.name !== deps.nodeName) return;
          node = type === "DELETED" ? undefined : n;
        },
      }, opts),
  };
}
