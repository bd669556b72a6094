/**
 * CRI container messages: the config CreateContainer takes (image, mounts, security context),
 * the containers it lists, their status and events, exec results.
 */
import type {
  IDMapping,
  Int64Value,
  Labels,
  LinuxContainerResources,
  NamespaceOption,
  SecurityProfile,
  SELinuxOption,
  SupplementalGroupsPolicy,
} from "./types.ts";

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
