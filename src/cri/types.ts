/**
 * The subset of CRI `runtime.v1` that denolet uses, as plain TypeScript shapes.
 * Field names are the proto names in lowerCamelCase (as @grpc/proto-loader yields them with
 * keepCase=false); enums are their proto value names; int64 values are JS numbers
 * (nanosecond timestamps lose sub-microsecond precision, which nothing here needs).
 * Optional fields are omitted when unset.
 */

export type Labels = Record<string, string>;

export type * from "./_stats_types.ts";
import type {
  ContainerStats,
  ContainerStatsFilter,
  PodSandboxStats,
  PodSandboxStatsFilter,
} from "./_stats_types.ts";

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

export interface NamespaceOption {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
  targetId?: string;
}

export interface Int64Value {
  value: number;
}

export interface LinuxSandboxSecurityContext {
  namespaceOptions?: NamespaceOption;
  runAsUser?: Int64Value;
  runAsGroup?: Int64Value;
  readonlyRootfs?: boolean;
  supplementalGroups?: number[];
  privileged?: boolean;
}

export interface LinuxContainerResources {
  cpuPeriod?: number;
  cpuQuota?: number;
  cpuShares?: number;
  memoryLimitInBytes?: number;
  oomScoreAdj?: number;
  cpusetCpus?: string;
  cpusetMems?: string;
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
}

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

// ---- images ----

export interface Image {
  id: string;
  repoTags: string[];
  repoDigests: string[];
  /** Bytes. */
  size: number;
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

export interface CallOptions {
  /** Aborting cancels the RPC on the wire. */
  signal?: AbortSignal;
  /** Overrides the client's default deadline (--runtime-request-timeout), in ms. */
  timeoutMs?: number;
}

/**
 * CRI RuntimeService. Every call is a single unary RPC with a deadline (the client's default,
 * or `timeoutMs`); aborting `signal` cancels it. Failures are thrown as errors whose chain
 * contains `NotFoundError` for gRPC NOT_FOUND and `RuntimeUnavailableError` when the runtime
 * cannot be reached. Stop/Remove calls are idempotent on the runtime side.
 */
export interface RuntimeService {
  version(opts?: CallOptions): Promise<VersionResponse>;
  /** Creates and starts a sandbox; returns its id. */
  runPodSandbox(
    config: PodSandboxConfig,
    runtimeHandler?: string,
    opts?: CallOptions,
  ): Promise<string>;
  stopPodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void>;
  removePodSandbox(podSandboxId: string, opts?: CallOptions): Promise<void>;
  podSandboxStatus(podSandboxId: string, opts?: CallOptions): Promise<PodSandboxStatus>;
  /**
   * Sandboxes matching `filter`. The items are frozen and may be the same objects as in an
   * earlier answer when they did not change (the client decodes only what changed).
   */
  listPodSandbox(filter?: PodSandboxFilter, opts?: CallOptions): Promise<PodSandbox[]>;
  /** Returns the new container's id. */
  createContainer(
    podSandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
    opts?: CallOptions,
  ): Promise<string>;
  startContainer(containerId: string, opts?: CallOptions): Promise<void>;
  /** Sends the stop signal, then SIGKILL after `timeoutSeconds`. Blocks until the container exits. */
  stopContainer(containerId: string, timeoutSeconds: number, opts?: CallOptions): Promise<void>;
  removeContainer(containerId: string, opts?: CallOptions): Promise<void>;
  /** Containers matching `filter`; frozen items, shared between answers like listPodSandbox's. */
  listContainers(filter?: ContainerFilter, opts?: CallOptions): Promise<Container[]>;
  containerStatus(containerId: string, opts?: CallOptions): Promise<ContainerStatus>;
  execSync(
    containerId: string,
    cmd: string[],
    timeoutSeconds: number,
    opts?: CallOptions,
  ): Promise<ExecSyncResponse>;
  status(opts?: CallOptions): Promise<RuntimeStatus>;
  /** Asks the runtime to reopen the container's log file (after rotation). Errors if not running. */
  reopenContainerLog(containerId: string, opts?: CallOptions): Promise<void>;
  /** Stats of one container; NotFoundError if it does not exist. */
  containerStats(containerId: string, opts?: CallOptions): Promise<ContainerStats>;
  /** Stats of the running containers matching `filter`. */
  listContainerStats(filter?: ContainerStatsFilter, opts?: CallOptions): Promise<ContainerStats[]>;
  /**
   * Stats of the ready sandboxes matching `filter`. containerd 1.6 fails the whole call if a
   * matching sandbox has no cgroup parent.
   */
  listPodSandboxStats(
    filter?: PodSandboxStatsFilter,
    opts?: CallOptions,
  ): Promise<PodSandboxStats[]>;
  /**
   * Streams the runtime's container events (CRI GetContainerEvents, read by the evented PLEG) to
   * `onEvent` until `signal` aborts, then resolves. Rejects when the stream fails or ends; a
   * runtime that does not serve it (containerd before 1.7) rejects at once with an error for
   * which `isUnimplemented` is true. `onReady` runs once the runtime has accepted the stream.
   * Optional: fakes and runtimes without events leave it out.
   */
  containerEvents?(
    onEvent: (e: ContainerEvent) => void,
    opts: { signal: AbortSignal; onReady?: () => void },
  ): Promise<void>;
}

/** Which streams an exec or attach session carries (CRI ExecRequest/AttachRequest). */
export interface StreamFlags {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** With a TTY there is no separate stderr: the runtime merges it into stdout. */
  tty: boolean;
}

/**
 * The CRI's streaming calls: each prepares a session on the runtime's streaming server and
 * returns its one-shot URL, to which the caller then connects (or proxies a client's upgraded
 * connection). Same error and cancellation contract as RuntimeService.
 */
export interface StreamingService {
  exec(containerId: string, cmd: string[], flags: StreamFlags, opts?: CallOptions): Promise<string>;
  attach(containerId: string, flags: StreamFlags, opts?: CallOptions): Promise<string>;
  portForward(podSandboxId: string, ports: number[], opts?: CallOptions): Promise<string>;
}

/** CRI ImageService. Same error and cancellation contract as RuntimeService. */
export interface ImageService {
  listImages(opts?: CallOptions): Promise<Image[]>;
  /** Returns undefined when the image is not present. */
  imageStatus(image: ImageSpec, opts?: CallOptions): Promise<Image | undefined>;
  /** Returns the image reference (usually the digest/id) of the pulled image. */
  pullImage(
    image: ImageSpec,
    sandboxConfig?: PodSandboxConfig,
    opts?: CallOptions,
  ): Promise<string>;
  removeImage(image: ImageSpec, opts?: CallOptions): Promise<void>;
  imageFsInfo(opts?: CallOptions): Promise<FilesystemUsage[]>;
}
