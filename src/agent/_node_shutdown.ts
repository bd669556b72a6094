/**
 * Graceful node shutdown's wiring: built only when the configuration asks for it
 * (shutdownGracePeriod, shutdownGracePeriodByPodPriority), its module and the D-Bus client
 * loaded only then.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type AgentConfig, featureEnabled, gracefulShutdownConfigured } from "../config/mod.ts";
import type { EventRecorder } from "../events/mod.ts";
import type { Kubelet } from "../kubelet/mod.ts";
import type { ShutdownManager } from "../nodeshutdown/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import type { MetricsRegistry } from "../util/metrics.ts";

export interface NodeShutdownDeps {
  kubelet: Kubelet;
  clock: Clock;
  logger: Logger;
  registry: MetricsRegistry;
  events?: EventRecorder;
  /** Posts the Node's status now (API mode). */
  syncNodeStatus: () => void;
}

/** The shutdown manager, or undefined when graceful node shutdown is off. */
export async function buildNodeShutdown(
  config: AgentConfig,
  deps: NodeShutdownDeps,
): Promise<ShutdownManager | undefined> {
  if (!gracefulShutdownConfigured(config)) return undefined;
  const m = await import("../nodeshutdown/mod.ts");
  const byPriorityGate = featureEnabled(config, "GracefulNodeShutdownBasedOnPodPriority");
  const reason = m.NODE_SHUTDOWN_REASON;
  const message = m.NODE_SHUTDOWN_MESSAGE;
  return m.createShutdownManager({
    connect: () => m.connectLogind(),
    periods: m.shutdownPeriods({
      shutdownGracePeriodMs: config.shutdownGracePeriodMs,
      shutdownGracePeriodCriticalPodsMs: config.shutdownGracePeriodCriticalPodsMs,
      shutdownGracePeriodByPodPriority: config.shutdownGracePeriodByPodPriority,
      byPriorityGate,
    }),
    activePods: () => deps.kubelet.activePods(),
    kill: (pod: V1Pod, o) =>
      deps.kubelet.evictPod(pod.metadata!.uid!, {
        reason,
        message,
        gracePeriodSeconds: o.gracePeriodSeconds,
        condition: {
          type: "DisruptionTarget",
          status: "True",
          reason: "TerminationByKubelet",
          message,
        },
        signal: o.signal,
      }),
    syncNodeStatus: deps.syncNodeStatus,
    events: deps.events,
    nodeName: config.nodeName,
    clock: deps.clock,
    logger: deps.logger,
    stateFile: `${config.rootDir.replace(/\/+$/, "")}/${m.STATE_FILE}`,
    // upstream registers the gauges with the by-priority gate.
    metrics: byPriorityGate ? deps.registry : undefined,
  });
}
