/**
 * The volume manager with its plugins: downwardAPI always; configMap, secret, projected, claims
 * and CSI (loaded when a plugin registers or a pod needs it) come with API mode.
 */
import type { V1Pod } from "@kubernetes/client-node";
import type { AgentConfig } from "../config/types.ts";
import type { ClusterMode } from "../cluster/mod.ts";
import { resourceConfigForPod } from "../cm/mod.ts";
import { downwardAPIValues } from "../runtime/mod.ts";
import { createVolumeManager, downwardAPIPlugin } from "../volumes/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";
import { lazyCsi } from "./_csi.ts";

export interface VolumesDeps {
  /** API mode's parts, when a kubeconfig is given. */
  cluster?: ClusterMode;
  clock: Clock;
  logger: Logger;
  /** A CSI driver registered or went: pods waiting for a driver sync again. */
  onChange: () => void;
  /** A CSI driver's readiness changed: the Node's status is updated. */
  onReadinessChange: () => void;
}

export function buildVolumes(config: AgentConfig, deps: VolumesDeps) {
  const { cluster, clock, logger } = deps;
  // CSI (API mode only) loads when a plugin registers or a pod needs it; pods waiting for a
  // driver sync again when one registers.
  const csi = cluster
    ? lazyCsi({
      rootDir: config.rootDir,
      nodeName: config.nodeName,
      client: cluster.client,
      clock,
      logger,
      onChange: () => deps.onChange(),
      onReadinessChange: () => deps.onReadinessChange(),
      nodeUid: () => cluster.admissionNode?.()?.metadata?.uid,
    })
    : undefined;
  // downwardAPI needs no API server; configMap, secret and projected come with the cluster.
  const volumes = createVolumeManager({
    rootDir: config.rootDir,
    logger,
    clock,
    plugins: [downwardAPIPlugin(downwardAPIValues()), ...(cluster?.volumePlugins ?? [])],
    podMemoryLimitBytes: podMemoryLimit,
    claims: cluster?.claims,
    // PersistentVolume node affinity: the Node's labels; before the Node is seen (offline after
    // a reboot), the labels this agent gives it.
    nodeLabels: () => cluster?.admissionNode?.()?.metadata?.labels ?? ownNodeLabels(config),
    csi: csi?.persistent,
    csiInline: csi?.inline,
    csiTearDown: csi?.tearDown,
  });
  return { volumes, csi };
}

/** The labels the agent registers its Node with (node_status.ts), before any the API adds. */
function ownNodeLabels(config: AgentConfig): Record<string, string> {
  const arch = ({ x86_64: "amd64", aarch64: "arm64" } as Record<string, string>)[Deno.build.arch] ??
    Deno.build.arch;
  return {
    "kubernetes.io/arch": arch,
    "kubernetes.io/hostname": config.nodeName,
    "kubernetes.io/os": "linux",
    ...config.nodeLabels,
  };
}

/** The pod cgroup's memory limit, which caps its Memory-medium volumes; undefined for none. */
function podMemoryLimit(pod: V1Pod): number | undefined {
  try {
    return resourceConfigForPod(pod).memoryLimitBytes;
  } catch {
    // A quantity that does not parse fails the container's config step, which reports it.
    return undefined;
  }
}
