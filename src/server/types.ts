import type { V1Node, V1Pod } from "@kubernetes/client-node";
import type { RunningPod } from "../runtime/types.ts";
import type { ManifestProblem } from "../sources/types.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import type { CadvisorMetrics, StatsProvider } from "../stats/types.ts";

/** One named health check as `/healthz` shows it (`[+]name ok` / `[-]name failed`). */
export interface HealthCheckResult {
  name: string;
  ok: boolean;
  /** Why it failed; shown on `/healthz/<name>` and logged, withheld from `/healthz`. */
  message?: string;
}

/** What the read-only node API reads. Every function is called per request. */
export interface NodeApiDeps {
  nodeName: string;
  /** The pods bound to this node, each with its current status. Must be cheap and not block. */
  pods(): V1Pod[];
  /**
   * Pods the runtime runs right now (ready sandbox or running container). May block on the
   * runtime; must honour `signal` (aborted when the client goes away).
   */
  runningPods(opts: { signal?: AbortSignal }): Promise<RunningPod[]>;
  /**
   * The agent's own health checks, e.g. `syncloop`. `ping` and `log` are added by the server
   * unless listed here. Must be cheap and not block.
   */
  healthChecks(): HealthCheckResult[];
  /** Manifests that could not be used, from every source. */
  manifestProblems(): ManifestProblem[];
  /** Served on `/metrics` when present; `/metrics` is 404 otherwise. */
  metrics?: MetricsRegistry;
  /**
   * The node as a v1 Node, served on `/node`; 404 when absent. May block briefly (first call
   * reads /proc and asks the runtime its version); must honour `signal`.
   */
  node?: (opts: { signal?: AbortSignal }) => Promise<V1Node>;
  /** Serves `/stats/summary` and `/metrics/resource` when present; both are 404 otherwise. */
  stats?: StatsProvider;
  /** Serves `/metrics/cadvisor` when present; 404 otherwise. */
  cadvisor?: CadvisorMetrics;
  logger: Logger;
}

/** A plain fetch-style handler, testable without a socket. */
export type NodeApiHandler = (req: Request) => Promise<Response>;

/**
 * A connection the client asked to upgrade (SPDY/3.1, WebSocket), handed to the route as raw
 * bytes. A route that takes it answers 101 (nothing more is written for it); any other answer
 * is sent as a plain HTTP response and the connection closed.
 */
export interface UpgradedConnection {
  /** The request's header lines as received, in order (names as the client spelled them). */
  rawHeaders: [string, string][];
  /** Bytes the client sent after the request head, already read by the server. */
  head: Uint8Array;
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}
