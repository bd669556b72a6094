/**
 * The node API's listeners: the read-only port (plain HTTP), healthz, and --port (HTTPS with
 * authentication and authorization). Bound before anything runs, so a taken port fails the
 * start cleanly.
 */
import type { AgentConfig } from "../config/types.ts";
import type { ClusterMode } from "../cluster/mod.ts";
import type { CriClient } from "../cri/mod.ts";
import type { Kubelet } from "../kubelet/mod.ts";
import type { RuntimeManager } from "../runtime/mod.ts";
import {
  createHealthzHandler,
  createNodeApiHandler,
  serveAuthenticatedNodeApi,
  serveHealthz,
  serveNodeApi,
} from "../server/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import type { buildNodeServices } from "./_node_services.ts";

export interface NodeApiDeps {
  kubelet: Kubelet;
  runtime: RuntimeManager;
  /** API mode's parts, when a kubeconfig is given. */
  cluster?: ClusterMode;
  node: ReturnType<typeof buildNodeServices>;
  registry: MetricsRegistry;
  nodeIPs: string[];
  cri: CriClient;
  clock: Clock;
  logger: Logger;
  signal: AbortSignal;
}

/** Binds the configured listeners; each one's `finished` settles once the signal aborts. */
export async function serveNodeApis(config: AgentConfig, deps: NodeApiDeps) {
  const { kubelet, runtime, cluster, node, registry, nodeIPs, cri, clock, logger, signal } = deps;
  const api = {
    nodeName: config.nodeName,
    pods: () => kubelet.podsWithStatus(),
    runningPods: (o: { signal?: AbortSignal }) =>
      runtime.getPods({ all: false, signal: o?.signal }),
    healthChecks: () => [...kubelet.healthChecks(), ...(cluster?.healthChecks?.() ?? [])],
    manifestProblems: () => kubelet.manifestProblems(),
    metrics: registry,
    stats: node.stats,
    cadvisor: node.cadvisor,
    node: (o: { signal?: AbortSignal }) => node.nodeStatus.node(o),
    logger,
  };
  // Bind before anything runs, so a taken port fails the start cleanly. The read-only port is
  // plain HTTP without authentication; --port is HTTPS with authentication and authorization.
  const servers = [];
  if (config.readOnlyPort !== 0) {
    servers.push(
      await serveNodeApi(createNodeApiHandler(api), {
        address: config.address,
        port: config.readOnlyPort,
        logger,
        signal,
      }),
    );
  }
  if (config.healthzPort !== 0) {
    servers.push(serveHealthz(createHealthzHandler({ logger }), {
      address: config.healthzBindAddress,
      port: config.healthzPort,
      logger,
      clock,
      signal,
    }));
  }
  if (config.port !== 0) {
    // Upstream's flag defaults, kept for compatibility, open exec and logs to anyone who can
    // connect; an installed node's older config may still carry them. Said at every start.
    if (
      config.anonymousAuth && config.authorizationMode === "AlwaysAllow" &&
      config.enableDebuggingHandlers
    ) {
      logger.warn(
        "The node API lets anyone who reaches it read logs and run commands in containers " +
          "(anonymous access with AlwaysAllow); set --anonymous-auth=false with " +
          "--client-ca-file, or --authorization-mode=Webhook",
        { address: `${config.address}:${config.port}` },
      );
    }
    servers.push(
      await serveAuthenticatedNodeApi({
        config,
        nodeIPs,
        api,
        cri,
        clock,
        logger,
        apiClient: cluster?.client,
        reviewClient: cluster?.reviewClient,
        signal,
      }),
    );
  }
  return servers;
}
