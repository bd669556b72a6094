/** How the API-server mode plugs into the agent. */
import type { EventRecorder } from "../events/mod.ts";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import type { ApiClient } from "../apiclient/mod.ts";
import type { AgentConfig } from "../config/types.ts";
import type { CriClient } from "../cri/mod.ts";
import type { HealthCheck, Kubelet, PodStatusSink } from "../kubelet/mod.ts";
import type { NodeStatusProvider } from "../node/mod.ts";
import type { PodClaims, PodObjects } from "../objects/mod.ts";
import type { ServiceLookup } from "../runtime/mod.ts";
import type { VolumePlugin } from "../volumes/mod.ts";
import type { PodSource } from "../sources/types.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";

export interface ClusterDeps {
  config: AgentConfig;
  clock: Clock;
  logger: Logger;
  /** The node's InternalIP ("" when unknown). */
  nodeIP: string;
  /** The agent's version, for the User-Agent. */
  version: string;
  /** The agent's /metrics: the API clients' request and byte counts go there. */
  registry?: MetricsRegistry;
  /** Ends waits at start (the bootstrap CSR may take an hour). */
  signal: AbortSignal;
  /** Stops the agent with `err` (no client certificate could be had, as upstream exits). */
  fail: (err: Error) => void;
}

/** The agent's parts the cluster side needs once they are built (they need it first). */
export interface AgentParts {
  kubelet: Kubelet;
  nodeStatus: NodeStatusProvider;
  cri: CriClient;
}

/**
 * The API-server mode's parts. Built before the kubelet (its source and sink are the kubelet's
 * dependencies); `run` starts its loops once the agent is assembled.
 */
export interface ClusterMode {
  readonly client: ApiClient;
  /** For the node API's TokenReviews and SubjectAccessReviews: not the pods' budget. */
  readonly reviewClient?: ApiClient;
  /** Pods bound to this node, from the API server: the `api` source. */
  readonly podSource?: PodSource;
  /** Writes pod statuses to the API server; deletes pods whose graceful deletion finished. */
  readonly statusSink?: PodStatusSink;
  /** The Node as the API server has it, for the kubelet's admission predicates. */
  readonly admissionNode?: () => V1Node | undefined;
  /** ConfigMaps, Secrets and tokens for the pods' env and volumes (watch-based caches). */
  readonly objects?: PodObjects;
  /** PersistentVolumeClaims and PersistentVolumes for the pods' claim volumes (GETs). */
  readonly claims?: PodClaims;
  /** The cluster's Services by namespace (a watch-fed cache), for service-link env. */
  readonly services?: ServiceLookup;
  /**
   * ServiceAccounts and their tokens for credential provider plugins in service-account-token
   * mode (structural: the plugins' types load only with them).
   */
  readonly serviceAccounts?: {
    get(
      namespace: string,
      name: string,
    ): Promise<{ uid: string; annotations: Record<string, string> }>;
    token(
      pod: { namespace: string; name: string; uid: string; serviceAccountName: string },
      audience: string,
    ): Promise<string>;
  };
  /** The runtime handler of a pod's RuntimeClass; throws for one that cannot be resolved. */
  readonly runtimeHandler?: (pod: V1Pod) => string;
  /** Volume kinds that need the API server: configMap, secret, projected. */
  readonly volumePlugins?: VolumePlugin[];
  /** Events to the API server (source kubelet on this node). */
  readonly events?: EventRecorder;
  /**
   * Checks for `/healthz` besides the kubelet's (`apiserver`, with the checkpoint on). Kept out
   * of the Node's readiness. Cheap, never blocks.
   */
  readonly healthChecks?: () => HealthCheck[];
  /**
   * Runs the cluster loops (node registration and status, lease, mirror pods, object watches)
   * until the signal aborts. Never rejects.
   */
  run(parts: AgentParts, opts: { signal: AbortSignal }): Promise<void>;
  /** Releases the API clients. Idempotent. */
  close(): void;
}
