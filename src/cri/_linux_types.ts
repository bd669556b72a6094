/**
 * CRI Linux shapes that pod sandboxes and containers share: namespaces and user-namespace ID
 * mappings, security profiles and options, cgroup resources.
 */

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
