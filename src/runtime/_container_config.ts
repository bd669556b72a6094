/**
 * The ContainerConfig for one container instance (kuberuntime_container.go
 * generateContainerConfig, kubelet_pods.go makeMounts, security_context.go).
 */
import type { V1Container, V1Pod, V1SecurityContext, V1VolumeMount } from "@kubernetes/client-node";
import type {
  ContainerConfig,
  KeyValue,
  LinuxContainerSecurityContext,
  Mount,
  UserNamespace,
} from "../cri/types.ts";
import { ConfigError, DenoletError } from "../util/errors.ts";
import {
  containerMounts,
  createTerminationLogFile,
  type MountedVolume,
  writeEtcHosts,
} from "../volumes/mod.ts";
import type { Logger } from "../util/log.ts";
import { buildEnv, type EnvContext, type EnvObjects, expandCommand, expandVars } from "./_env.ts";
import {
  containerAnnotations,
  containerLabels,
  DEFAULT_TERMINATION_MESSAGE_PATH,
} from "./_labels.ts";
import type { ImageUser } from "./_image_puller.ts";
import { linuxResources, type LinuxResourcesOptions } from "./_resources.ts";
import {
  podHostnameAndDomain,
  podNamespaces,
  podSupplementalGroups,
  seLinuxOption,
} from "./_sandbox_config.ts";
import { containerAppArmor } from "./_apparmor.ts";
import { containerSeccomp, type SeccompOptions } from "./_seccomp.ts";
import { idmapMounts } from "./_userns.ts";

export interface ContainerConfigOptions {
  restartCount: number;
  /**
   * An ephemeral container's `targetContainerName`, resolved to the running container's id: it
   * joins that container's PID namespace (when the pod does not share one already).
   */
  pidTargetId?: string;
  /** Sandbox IPs, primary first; empty for host-network pods. */
  podIPs: string[];
  hostIP?: string;
  nodeName: string;
  /** From VolumeManager.setUpPod. */
  volumes: Map<string, MountedVolume>;
  /** Resolved image to run (from the pull); default container.image. */
  imageRef?: string;
  podLogsDir: string;
  /**
   * <rootDir>/pods/<uid> (volumes' podDir). When set, the container gets the kubelet-managed
   * /etc/hosts and a termination-message file, as upstream; when unset both are skipped.
   */
  podDir?: string;
  /** For the pod's FQDN in /etc/hosts (spec.subdomain); default "". */
  clusterDomain?: string;
  /** Node memory for the Burstable oom_score_adj formula; default the machine's. */
  memoryCapacityBytes?: number;
  /** The node's cgroup version, for memory.oom.group on v2; unknown adds nothing. */
  cgroupVersion?: LinuxResourcesOptions["cgroupVersion"];
  /** --single-process-oom-kill; default false. */
  singleProcessOOMKill?: boolean;
  /** The host's huge page sizes, for the containers' hugetlb limits; unknown sends none. */
  hugePageSizes?: LinuxResourcesOptions["hugePageSizes"];
  /** The node's swap settings (memorySwap.swapBehavior); unknown sends none. */
  swap?: LinuxResourcesOptions["swap"];
  /** --seccomp-default; default false (Unconfined when the spec names no profile). */
  seccompDefault?: boolean;
  /** <rootDir>/seccomp for Localhost profiles; default /var/lib/kubelet/seccomp. */
  seccompProfileRoot?: string;
  /** Passed to env resourceFieldRef for unset limits; default this machine. */
  nodeAllocatable?: EnvContext["nodeAllocatable"];
  /**
   * The image's user from its ImageStatus (upstream getImageUser). With runAsNonRoot and no
   * runAsUser it is checked as upstream does, and it is sent when the spec sets no runAsUser;
   * without it both are skipped. Callers may leave it unset when `needsImageUser` is false.
   */
  imageUser?: ImageUser;
  /**
   * Whether the pod's runtime handler makes mounts recursively read-only (CRI Status), asked
   * only for a volumeMount that requests it; unset: it does not, as a runtime that lists no
   * handlers (containerd 1.6).
   */
  recursiveReadOnlyMounts?: () => boolean;
  /** ConfigMaps and Secrets for env references (API mode); standalone they are refused. */
  envObjects?: EnvObjects;
  /** The cluster's Services for service-link env (API mode); standalone, none. */
  services?: EnvContext["services"];
  /**
   * The pod's user namespace, as its sandbox config has it: the container joins it and, in a
   * pod's own namespace, every mount is idmapped with its mappings.
   */
  userns?: UserNamespace;
  /** The pod's or container's logger, for env warnings. */
  logger?: Logger;
  /** Ends a wait for the API server while resolving env references. */
  signal?: AbortSignal;
}

const DEFAULT_MASKED_PATHS = [
  "/proc/asound",
  "/proc/acpi",
  "/proc/kcore",
  "/proc/keys",
  "/proc/latency_stats",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/sched_debug",
  "/proc/scsi",
  "/sys/firmware",
  "/sys/devices/virtual/powercap",
];
const DEFAULT_READONLY_PATHS = [
  "/proc/bus",
  "/proc/fs",
  "/proc/irq",
  "/proc/sys",
  "/proc/sysrq-trigger",
];
const ETC_HOSTS = "/etc/hosts";

/** Container fields override pod-level ones (securitycontext.DetermineEffectiveSecurityContext). */
function effectiveSecurityContext(pod: V1Pod, container: V1Container): V1SecurityContext {
  const p = pod.spec?.securityContext ?? {};
  const c = container.securityContext ?? {};
  return {
    ...c,
    runAsUser: c.runAsUser ?? p.runAsUser,
    runAsGroup: c.runAsGroup ?? p.runAsGroup,
    runAsNonRoot: c.runAsNonRoot ?? p.runAsNonRoot,
    seLinuxOptions: c.seLinuxOptions ?? p.seLinuxOptions,
    seccompProfile: c.seccompProfile ?? p.seccompProfile,
  };
}

/**
 * Whether the container config depends on the image's user: runAsNonRoot without an effective
 * runAsUser is checked against it, and an effective runAsGroup without runAsUser needs a user
 * sent alongside (containerd refuses a group alone). Otherwise containerd applies the image's
 * own user when none is sent, so asking the runtime for it would be a wasted ImageStatus.
 */
export function needsImageUser(pod: V1Pod, container: V1Container): boolean {
  const sc = effectiveSecurityContext(pod, container);
  if (sc.runAsUser !== undefined && sc.runAsUser !== null) return false;
  return sc.runAsNonRoot === true || (sc.runAsGroup !== undefined && sc.runAsGroup !== null);
}

/**
 * A container refused by its runAsNonRoot policy. The message is upstream's, word for word,
 * since users search for it.
 */
export class RunAsNonRootError extends DenoletError {}

/** Upstream verifyRunAsNonRoot; without `imageUser` only an explicit runAsUser is checked. */
function verifyRunAsNonRoot(
  pod: V1Pod,
  container: V1Container,
  sc: V1SecurityContext,
  imageUser: ImageUser | undefined,
): void {
  if (!sc.runAsNonRoot) return;
  const m = pod.metadata ?? {};
  const who = `(pod: "${m.name}_${m.namespace}(${m.uid})", container: ${container.name})`;
  if (sc.runAsUser !== undefined && sc.runAsUser !== null) {
    if (sc.runAsUser === 0) {
      throw new RunAsNonRootError(`container's runAsUser breaks non-root policy ${who}`);
    }
    return;
  }
  if (imageUser?.uid === 0) {
    throw new RunAsNonRootError(`container has runAsNonRoot and image will run as root ${who}`);
  }
  if (imageUser && imageUser.uid === undefined && imageUser.username) {
    throw new RunAsNonRootError(
      `container has runAsNonRoot and image has non-numeric user (${imageUser.username}), ` +
        `cannot verify user is non-root ${who}`,
    );
  }
}

/** The CRI security context; capability names pass through as written (containerd adds CAP_). */
export function containerSecurityContext(
  pod: V1Pod,
  container: V1Container,
  opts: { imageUser?: ImageUser; pidTargetId?: string; userns?: UserNamespace } & SeccompOptions =
    {},
): LinuxContainerSecurityContext {
  const sc = effectiveSecurityContext(pod, container);
  verifyRunAsNonRoot(pod, container, sc, opts.imageUser);
  const namespaces = podNamespaces(pod, opts.userns);
  if (opts.pidTargetId && namespaces.pid === "CONTAINER") {
    namespaces.pid = "TARGET";
    namespaces.targetId = opts.pidTargetId;
  }
  const out: LinuxContainerSecurityContext = {
    namespaceOptions: namespaces,
    // Sent for privileged containers too, as upstream; the runtime leaves those unconfined.
    seccomp: containerSeccomp(pod, container, opts),
    privileged: sc.privileged === true,
    readonlyRootfs: sc.readOnlyRootFilesystem === true,
    // Only an explicit allowPrivilegeEscalation: false sets no_new_privs.
    noNewPrivs: sc.allowPrivilegeEscalation === false,
    maskedPaths: sc.procMount === "Unmasked" ? [] : [...DEFAULT_MASKED_PATHS],
    readonlyPaths: sc.procMount === "Unmasked" ? [] : [...DEFAULT_READONLY_PATHS],
  };
  if (sc.capabilities) {
    out.capabilities = {
      addCapabilities: [...(sc.capabilities.add ?? [])],
      dropCapabilities: [...(sc.capabilities.drop ?? [])],
    };
  }
  if (sc.runAsUser !== undefined && sc.runAsUser !== null) {
    out.runAsUser = { value: sc.runAsUser };
  } else if (opts.imageUser) {
    // Upstream determineEffectiveSecurityContext: the image's user goes to the runtime, which
    // also keeps a runAsGroup from being sent alone (containerd refuses a group without user).
    if (opts.imageUser.uid !== undefined) out.runAsUser = { value: opts.imageUser.uid };
    if (opts.imageUser.username) out.runAsUsername = opts.imageUser.username;
  }
  if (sc.runAsGroup !== undefined && sc.runAsGroup !== null) {
    out.runAsGroup = { value: sc.runAsGroup };
  }
  const groups = podSupplementalGroups(pod);
  if (groups.length) out.supplementalGroups = groups;
  if (pod.spec?.securityContext?.supplementalGroupsPolicy === "Strict") {
    out.supplementalGroupsPolicy = "Strict";
  }
  if (sc.seLinuxOptions) out.selinuxOptions = seLinuxOption(sc.seLinuxOptions);
  const apparmor = containerAppArmor(pod, container);
  if (apparmor) Object.assign(out, apparmor);
  return out;
}

/** volumeMounts with subPathExpr expanded against the env; a missing or empty variable is an error. */
function resolveSubPathExprs(
  mounts: V1VolumeMount[],
  env: KeyValue[],
  where: string,
): V1VolumeMount[] {
  const map = new Map(env.map((kv) => [kv.key, kv.value]));
  return mounts.map((m) => {
    if (!m.subPathExpr) return m;
    const missing = new Set<string>();
    const subPath = expandVars(m.subPathExpr, (k) => {
      const v = map.get(k);
      if (!v) missing.add(k);
      return v ?? "";
    });
    if (missing.size) {
      throw new ConfigError(
        `${where}.volumeMounts[${m.name}].subPathExpr`,
        `missing value for ${[...missing].sort().join(", ")}`,
      );
    }
    return { ...m, subPath };
  });
}

async function buildMounts(
  pod: V1Pod,
  container: V1Container,
  env: KeyValue[],
  opts: ContainerConfigOptions,
): Promise<Mount[]> {
  const where = `containers[${container.name}]`;
  const volumeMounts = resolveSubPathExprs(container.volumeMounts ?? [], env, where);
  const mounts = await containerMounts(volumeMounts, opts.volumes, {
    containerName: container.name,
    recursiveReadOnlySupported: opts.recursiveReadOnlyMounts,
  });
  if (!opts.podDir) return idmapMounts(mounts, opts.userns);
  const hostNetwork = pod.spec?.hostNetwork === true;
  // Upstream skips /etc/hosts while the pod has no IP yet, or when the container mounts its own.
  const wantsHosts = (opts.podIPs.length > 0 || hostNetwork) &&
    !mounts.some((m) => m.containerPath === ETC_HOSTS);
  if (wantsHosts) {
    const { hostname, domain } = podHostnameAndDomain(pod, opts.clusterDomain ?? "");
    const hostPath = writeEtcHosts(opts.podDir, {
      podIPs: opts.podIPs,
      hostname,
      domain,
      hostAliases: pod.spec?.hostAliases,
      hostNetwork,
    });
    mounts.push({ containerPath: ETC_HOSTS, hostPath, readonly: false, selinuxRelabel: true });
  }
  const msgPath = container.terminationMessagePath ?? DEFAULT_TERMINATION_MESSAGE_PATH;
  if (msgPath) {
    const hostPath = createTerminationLogFile(opts.podDir, container.name);
    mounts.push({ containerPath: msgPath, hostPath, selinuxRelabel: true });
  }
  return idmapMounts(mounts, opts.userns);
}

/**
 * Everything CreateContainer needs for this instance of `container`. Throws (the caller reports
 * CreateContainerConfigError) ConfigError for unresolvable env, bad quantities, unknown
 * volumes, escaping or unpreparable subPaths, RunAsNonRootError, a NotFoundError for a
 * missing ConfigMap or Secret, EnvSourceError for a missing key. May create subPath
 * directories and their bind mounts, the pod's etc-hosts and a termination-message file.
 */
export async function buildContainerConfig(
  pod: V1Pod,
  container: V1Container,
  opts: ContainerConfigOptions,
): Promise<ContainerConfig> {
  const envs = await buildEnv(pod, container, {
    podIP: opts.podIPs[0],
    podIPs: opts.podIPs,
    hostIP: opts.hostIP,
    nodeName: opts.nodeName,
    nodeAllocatable: opts.nodeAllocatable,
    objects: opts.envObjects,
    services: opts.services,
    volumes: opts.volumes,
    logger: opts.logger,
    signal: opts.signal,
  });
  // Everything that can fail without side effects first, so a bad spec leaves no files behind.
  const linux = {
    resources: linuxResources(container, {
      pod,
      memoryCapacityBytes: opts.memoryCapacityBytes,
      cgroupVersion: opts.cgroupVersion,
      singleProcessOOMKill: opts.singleProcessOOMKill,
      hugePageSizes: opts.hugePageSizes,
      swap: opts.swap,
    }),
    securityContext: containerSecurityContext(pod, container, {
      imageUser: opts.imageUser,
      userns: opts.userns,
      seccompDefault: opts.seccompDefault,
      seccompProfileRoot: opts.seccompProfileRoot,
      pidTargetId: opts.pidTargetId,
    }),
  };
  const annotations = containerAnnotations(pod, container, opts.restartCount);
  const config: ContainerConfig = {
    metadata: { name: container.name, attempt: opts.restartCount },
    image: { image: opts.imageRef ?? container.image ?? "" },
    envs,
    labels: containerLabels(pod, container),
    annotations,
    logPath: `${container.name}/${opts.restartCount}.log`,
    stdin: container.stdin === true,
    stdinOnce: container.stdinOnce === true,
    tty: container.tty === true,
    linux,
  };
  const command = expandCommand(container.command, envs);
  if (command) config.command = command;
  const args = expandCommand(container.args, envs);
  if (args) config.args = args;
  if (container.workingDir) config.workingDir = container.workingDir;
  config.mounts = await buildMounts(pod, container, envs, opts);
  return config;
}
