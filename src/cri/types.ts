/**
 * The subset of CRI `runtime.v1` that denolet uses, as plain TypeScript shapes.
 * Field names are the proto names in lowerCamelCase (as the generated codecs in `_codec.ts` yield
 * them); enums are their proto value names; int64 values are JS numbers
 * (nanosecond timestamps lose sub-microsecond precision, which nothing here needs).
 * Optional fields are omitted when unset.
 */

export type Labels = Record<string, string>;

export type * from "./_stats_types.ts";
export type * from "./_service_types.ts";

export interface VersionResponse {
  version: string;
  runtimeName: string;
  runtimeVersion: string;
  runtimeApiVersion: string;
}

// ---- sandbox ----

export interface PodSandboxMetadata {
  name: string;
  uid: string;
  namespace: string;
  attempt: number;
}

export interface DNSConfig {
  servers: string[];
  searches: string[];
  options: string[];
}

export type Protocol = "TCP" | "UDP" | "SCTP";

export interface PortMapping {
  protocol: Protocol;
  containerPort: number;
  hostPort: number;
  hostIp: string;
}

export type NamespaceMode = "POD" | "CONTAINER" | "NODE" | "TARGET";

/** A contiguous ID range: container IDs [containerId, containerId+length) are host IDs from hostId. */
export interface IDMapping {
  hostId: number;
  containerId: number;
  length: number;
}

/** The pod's user namespace: NODE (the host's) or POD (a private one, with its mappings). */
export interface UserNamespace {
  mode: NamespaceMode;
  uids?: IDMapping[];
  gids?: IDMapping[];
}

export interface NamespaceOption {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
  targetId?: string;
  usernsOptions?: UserNamespace;
}

export type SupplementalGroupsPolicy = "Merge" | "Strict";

export interface SELinuxOption {
  user: string;
  role: string;
  type: string;
  level: string;
}

export interface Int64Value {
  value: number;
}

/** SecurityProfile.ProfileType: RuntimeDefault is 0, so it is also what an unset type reads as. */
export type ProfileType = "RuntimeDefault" | "Unconfined" | "Localhost";

/** A seccomp (or AppArmor) profile; localhostRef only with Localhost (for seccomp, a host path). */
export interface SecurityProfile {
  profileType: ProfileType;
  localhostRef?: string;
}

export interface LinuxSandboxSecurityContext {
  namespaceOptions?: NamespaceOption;
  runAsUser?: Int64Value;
  runAsGroup?: Int64Value;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  privileged?: boolean;
  seccomp?: SecurityProfile;
  selinuxOptions?: SELinuxOption;
  apparmor?: SecurityProfile;
  supplementalGroupsPolicy?: SupplementalGroupsPolicy;
}

export interface HugepageLimit {
  /** "2MB", "1GB": the hugetlb cgroup's naming. */
  pageSize: string;
  limit: number;
}

export interface LinuxContainerResources {
  cpuPeriod?: number;
  cpuQuota?: number;
  cpuShares?: number;
  memoryLimitInBytes?: number;
  oomScoreAdj?: number;
  cpusetCpus?: string;
  cpusetMems?: string;
  hugepageLimits?: HugepageLimit[];
  unified?: Record<string, string>;
  memorySwapLimitInBytes?: number;
}

export interface LinuxPodSandboxConfig {
  cgroupParent?: string;
  securityContext?: LinuxSandboxSecurityContext;
  sysctls?: Record<string, string>;
  overhead?: LinuxContainerResources;
  resources?: LinuxContainerResources;
}

export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname?: string;
  logDirectory?: string;
  dnsConfig?: DNSConfig;
  portMappings?: PortMapping[];
  labels?: Labels;
  annotations?: Labels;
  linux?: LinuxPodSandboxConfig;
}

export type PodSandboxState = "SANDBOX_READY" | "SANDBOX_NOTREADY";

export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  /** Nanoseconds since the epoch. */
  createdAt: number;
  labels: Labels;
  annotations: Labels;
  runtimeHandler?: string;
}

export interface PodIP {
  ip: string;
}

export interface PodSandboxNetworkStatus {
  ip: string;
  additionalIps: PodIP[];
}

export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadata;
  state: PodSandboxState;
  createdAt: number;
  network?: PodSandboxNetworkStatus;
  linux?: { namespaces?: { options?: NamespaceOption } };
  labels: Labels;
  annotations: Labels;
  runtimeHandler?: string;
}

export interface PodSandboxFilter {
  id?: string;
  state?: { state: PodSandboxState };
  labelSelector?: Labels;
}

// ---- containers ----

export interface ContainerMetadata {
  name: string;
  attempt: number;
}

export interface ImageSpec {
  image: string;
  annotations?: Labels;
}

/** Registry credentials for one PullImage (CRI AuthConfig). */
export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  serverAddress?: string;
  identityToken?: string;
  registryToken?: string;
}

export interface KeyValue {
  key: string;
  value: string;
}

export type MountPropagation =
  | "PROPAGATION_PRIVATE"
  | "PROPAGATION_HOST_TO_CONTAINER"
  | "PROPAGATION_BIDIRECTIONAL";

export interface Mount {
  containerPath: string;
  hostPath: string;
  readonly?: boolean;
  selinuxRelabel?: boolean;
  propagation?: MountPropagation;
  /** ID-mapped mount (user namespaces): host IDs as the container sees them. */
  uidMappings?: IDMapping[];
  gidMappings?: IDMapping[];
  recursiveReadOnly?: boolean;
  /** An image volume: the image whose rootfs is mounted (hostPath unused). */
  image?: ImageSpec;
  imageSubPath?: string;
  mountOptions?: string[];
}

export interface Capability {
  addCapabilities?: string[];
  dropCapabilities?: string[];
}

export interface LinuxContainerSecurityContext {
  capabilities?: Capability;
  privileged?: boolean;
  namespaceOptions?: NamespaceOption;
  runAsUser?: Int64Value;
  runAsGroup?: Int64Value;
  runAsUsername?: string;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  noNewPrivs?: boolean;
  maskedPaths?: string[];
  readonlyPaths?: string[];
  seccomp?: SecurityProfile;
  selinuxOptions?: SELinuxOption;
  apparmor?: SecurityProfile;
  /** The same profile as `apparmor`, in the annotation syntax older runtimes read. */
  apparmorProfile?: string;
  supplementalGroupsPolicy?: SupplementalGroupsPolicy;
}

export interface LinuxContainerConfig {
  resources?: LinuxContainerResources;
  securityContext?: LinuxContainerSecurityContext;
}

export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command?: string[];
  args?: string[];
  workingDir?: string;
  envs?: KeyValue[];
  mounts?: Mount[];
  labels?: Labels;
  annotations?: Labels;
  /** Relative to the sandbox's logDirectory. */
  logPath?: string;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  linux?: LinuxContainerConfig;
  /** The signal the runtime stops the container with; SIGNAL_RUNTIME_DEFAULT (the image's) if unset. */
  stopSignal?: Signal;
}

/** CRI Signal names: SIGNAL_RUNTIME_DEFAULT, or SIGNAL_ and the Linux signal name (SIGNAL_SIGTERM). */
export type Signal = string;

export type ContainerState =
  | "CONTAINER_CREATED"
  | "CONTAINER_RUNNING"
  | "CONTAINER_EXITED"
  | "CONTAINER_UNKNOWN";

export interface Container {
  id: string;
  podSandboxId: string;
  metadata: ContainerMetadata;
  image: ImageSpec;
  imageRef: string;
  state: ContainerState;
  createdAt: number;
  labels: Labels;
  annotations: Labels;
}

export interface ContainerStatus {
  id: string;
  metadata: ContainerMetadata;
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  image: ImageSpec;
  imageRef: string;
  reason: string;
  message: string;
  labels: Labels;
  annotations: Labels;
  mounts: Mount[];
  logPath: string;
  /** The resources the runtime applied (containerd 1.6+). */
  resources?: { linux?: LinuxContainerResources };
  /** The identity of the container's first process (runtimes that report it: containerd 2). */
  user?: { linux?: { uid: number; gid: number; supplementalGroups: number[] } };
  stopSignal?: Signal;
}

export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState };
  podSandboxId?: string;
  labelSelector?: Labels;
}

export interface ExecSyncResponse {
  stdout: Uint8Array;
  stderr: Uint8Array;
  exitCode: number;
}

export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

export interface RuntimeStatus {
  conditions: RuntimeCondition[];
}

export interface RuntimeHandlerFeatures {
  recursiveReadOnlyMounts: boolean;
  userNamespaces: boolean;
}

/** A runtime handler (a RuntimeClass's `handler`); "" is the default handler. */
export interface RuntimeHandler {
  name: string;
  features?: RuntimeHandlerFeatures;
}

export interface RuntimeFeatures {
  supplementalGroupsPolicy: boolean;
  userNamespacesHostNetwork: boolean;
  mountOptions: boolean;
}

/** CRI StatusResponse: conditions, and (CRI 1.30+) the handlers and features the runtime serves. */
export interface StatusResponse {
  status?: RuntimeStatus;
  runtimeHandlers: RuntimeHandler[];
  features?: RuntimeFeatures;
}

/** CRI RuntimeConfig (1.34+ runtimes): the cgroup driver the runtime uses. */
export interface RuntimeConfigResponse {
  linux?: { cgroupDriver: "SYSTEMD" | "CGROUPFS" };
}

// ---- images ----

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** Bytes. */
  size: number;
  /** The image config's user when it is numeric (the part before any ":group"). */
  uid?: Int64Value;
  /** The image config's user when it is a name; "" or absent otherwise. */
  username?: string;
  pinned?: boolean;
}

export interface FilesystemUsage {
  timestamp: number;
  fsId?: { mountpoint: string };
  usedBytes?: { value: number };
  inodesUsed?: { value: number };
}

export type ContainerEventType =
  | "CONTAINER_CREATED_EVENT"
  | "CONTAINER_STARTED_EVENT"
  | "CONTAINER_STOPPED_EVENT"
  | "CONTAINER_DELETED_EVENT";

/** One message of CRI GetContainerEvents (the fields denolet reads). */
export interface ContainerEvent {
  containerId: string;
  containerEventType: ContainerEventType;
  /** Nanoseconds since the epoch. */
  createdAt: number;
}
