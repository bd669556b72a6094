/** CRI pod sandbox messages: RunPodSandbox's config, the sandboxes listed, their status. */
import type {
  Int64Value,
  Labels,
  LinuxContainerResources,
  NamespaceOption,
  SecurityProfile,
  SELinuxOption,
  SupplementalGroupsPolicy,
} from "./types.ts";

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
