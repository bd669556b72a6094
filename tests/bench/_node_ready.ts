/**
 * When the API server first shows a Node Ready, as a watch on it sees the change (a list, then
 * a watch from its resourceVersion, re-listing after a break): started before the agent is, so
 * the time from the agent's spawn to its Ready Node is what a user watching `kubectl get nodes
 * -w` sees, without a polling interval in it.
 */
import type { V1Node } from "@kubernetes/client-node";
import { type ApiClient, runReflector } from "../../src/apiclient/mod.ts";
import { realClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

export interface NodeReadyWatch {
  /** Resolves with `realClock.monotonic()` when the Node was first seen Ready. */
  readonly ready: Promise<number>;
  /** Stops the watch; resolves once it has stopped. */
  stop(): Promise<void>;
}

export function isNodeReady(node: V1Node | undefined): boolean {
  return node?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ??
    false;
}

export function watchNodeReady(api: ApiClient, nodeName: string): NodeReadyWatch {
  const abort = new AbortController();
  let resolve: (at: number) => void = () => {};
  const ready = new Promise<number>((r) => resolve = r);
  const see = (n: V1Node) => {
    if (n.metadata?.name === nodeName && isNodeReady(n)) resolve(realClock.monotonic());
  };
  const stopped = runReflector<V1Node>({
    client: api,
    path: "/api/v1/nodes",
    fieldSelector: `metadata.name=${nodeName}`,
    clock: realClock,
    logger: nullLogger,
    backoffMs: 50,
    maxBackoffMs: 500,
    onList: (items) => items.forEach(see),
    onEvent: (_type, n) => see(n),
  }, { signal: abort.signal });
  return {
    ready,
    stop: () => {
      abort.abort();
      return stopped;
    },
  };
}
