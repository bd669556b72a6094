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

export function buildRuntimeManager(config: AgentConfig, deps: RuntimeManagerSetup) {
  const {
    cgroupVersion,
    allocatable,
    swap,
    cri,
    cluster,
    volumes,
    clock,
    logger,
    prober,
    podCgroups,
    pullRecords,
    plugins,
    logLinks,
    runtimeState,
    userns,
    actuatedState,
    legacyHashes,
    podLevelResize,
    hostDNS,
    nodeIPs,
  } = deps;
  return createRuntimeManager({
    node: {
      cgroupVersion,
      seccompDefault: config.seccompDefault,
      hugePageSizes: allocatable.hugePageSizes,
      swap,
    },
    runtime: cri.runtime,
    image: cri.image,
    events: cluster?.events,
    volumes,
    clock,
    logger,
    nodeName: config.nodeName,
    podLogsDir: config.podLogsDir,
    rootDir: config.rootDir,
    runtimeRequestTimeoutMs: config.runtimeRequestTimeoutMs,
    probeFailure: (id) => prober.probeFailure(id),
    startupSucceeded: (id) => prober.startupSucceeded(id),
    podCgroups,
    envObjects: cluster?.objects,
    pullSecrets: cluster?.objects,
    pullRecords,
    imagePulls: {
      serialize: config.serializeImagePulls,
      maxParallel: config.maxParallelImagePulls || undefined,
    },
    imagePullRate: { qps: config.registryPullQPS, burst: config.registryBurst },
    keyrings: plugins ? (pod) => [plugins.keyring(pod)] : undefined,
    services: cluster?.services,
    runtimeHandler: cluster?.runtimeHandler,
    logLinks,
    ephemeralProblem: (pod, name) =>
      ephemeralContainerProblem(pod, name, {
        apiMode: cluster !== undefined,
        runtime: () => runtimeState.capabilities,
      }),
    userns,
    runtimeHandlers: () => runtimeState.capabilities.handlers,
    actuated: actuatedState,
    legacyHashes,
    podLevelResize,
    sandboxOptions: {
      podLogsDir: config.podLogsDir,
      clusterDNS: config.clusterDNS,
      clusterDomain: config.clusterDomain,
      hostDNS,
      resolvConf: config.resolvConf,
      nodeIPs,
      defaultPodSysctls: featureEnabled(config, "DefaultPodSysctls")
        ? config.defaultPodSysctls
        : undefined,
    },
  });
}
