/**
 * The runtime manager (what to do for a pod, done through the CRI) with this node's settings:
 * cgroups, swap, DNS, image pulls and their credentials, user namespaces, resize checkpoints.
 */
import type { AgentConfig } from "../config/types.ts";
import { featureEnabled } from "../config/mod.ts";
import type { ClusterMode } from "../cluster/mod.ts";
import type { CredentialProviders } from "../credentials/plugins/mod.ts";
import type { CgroupVersion } from "../cm/mod.ts";
import type { CriClient } from "../cri/mod.ts";
import type { RuntimeState } from "../kubelet/mod.ts";
import type { ProbeManager } from "../prober/mod.ts";
import {
  createRuntimeManager,
  type RuntimeManagerDeps,
  type SwapSettings,
} from "../runtime/mod.ts";
import { ephemeralContainerProblem } from "../admission/mod.ts";
import type { Clock } from "../util/clock.ts";
import type { Logger } from "../util/log.ts";

export interface RuntimeManagerSetup {
  cgroupVersion: CgroupVersion;
  allocatable: { hugePageSizes: NonNullable<RuntimeManagerDeps["node"]>["hugePageSizes"] };
  swap: SwapSettings;
  cri: CriClient;
  /** API mode's parts, when a kubeconfig is given. */
  cluster?: ClusterMode;
  volumes: RuntimeManagerDeps["volumes"];
  clock: Clock;
  logger: Logger;
  prober: ProbeManager;
  podCgroups: RuntimeManagerDeps["podCgroups"];
  pullRecords: RuntimeManagerDeps["pullRecords"];
  /** Credential provider plugins, when configured. */
  plugins?: CredentialProviders;
  logLinks: RuntimeManagerDeps["logLinks"];
  runtimeState: RuntimeState;
  userns: RuntimeManagerDeps["userns"];
  actuatedState: RuntimeManagerDeps["actuated"];
  legacyHashes: RuntimeManagerDeps["legacyHashes"];
  podLevelResize: boolean;
  hostDNS: RuntimeManagerDeps["sandboxOptions"]["hostDNS"];
  nodeIPs: string[];
}

export function buildRuntimeManager(config: AgentConfig, d: RuntimeManagerSetup) {
  const plugins = d.plugins;
  return createRuntimeManager({
    node: {
      cgroupVersion: d.cgroupVersion,
      seccompDefault: config.seccompDefault,
      hugePageSizes: d.allocatable.hugePageSizes,
      swap: d.swap,
    },
    runtime: d.cri.runtime,
    image: d.cri.image,
    events: d.cluster?.events,
    volumes: d.volumes,
    clock: d.clock,
    logger: d.logger,
    nodeName: config.nodeName,
    podLogsDir: config.podLogsDir,
    rootDir: config.rootDir,
    runtimeRequestTimeoutMs: config.runtimeRequestTimeoutMs,
    probeFailure: (id) => d.prober.probeFailure(id),
    startupSucceeded: (id) => d.prober.startupSucceeded(id),
    podCgroups: d.podCgroups,
    envObjects: d.cluster?.objects,
    pullSecrets: d.cluster?.objects,
    pullRecords: d.pullRecords,
    imagePulls: {
      serialize: config.serializeImagePulls,
      maxParallel: config.maxParallelImagePulls || undefined,
    },
    imagePullRate: { qps: config.registryPullQPS, burst: config.registryBurst },
    keyrings: plugins ? (pod) => [plugins.keyring(pod)] : undefined,
    services: d.cluster?.services,
    runtimeHandler: d.cluster?.runtimeHandler,
    logLinks: d.logLinks,
    ephemeralProblem: (pod, name) =>
      ephemeralContainerProblem(pod, name, {
        apiMode: d.cluster !== undefined,
        runtime: () => d.runtimeState.capabilities,
      }),
    userns: d.userns,
    runtimeHandlers: () => d.runtimeState.capabilities.handlers,
    actuated: d.actuatedState,
    legacyHashes: d.legacyHashes,
    podLevelResize: d.podLevelResize,
    sandboxOptions: {
      podLogsDir: config.podLogsDir,
      clusterDNS: config.clusterDNS,
      clusterDomain: config.clusterDomain,
      hostDNS: d.hostDNS,
      resolvConf: config.resolvConf,
      nodeIPs: d.nodeIPs,
      defaultPodSysctls: featureEnabled(config, "DefaultPodSysctls")
        ? config.defaultPodSysctls
        : undefined,
    },
  });
}
