/** CRI `runtime.v1` stats messages (ContainerStats, ListContainerStats, ListPodSandboxStats). */
import type { ContainerMetadata, FilesystemUsage, Labels, PodSandboxMetadata } from "./types.ts";

export interface UInt64Value {
  value: number;
}

export interface CpuUsage {
  /** Nanoseconds since the epoch. */
  timestamp: number;
  /** Cumulative CPU time, all cores. */
  usageCoreNanoSeconds?: UInt64Value;
  /** Average over the runtime's sample window, in nano-cores. */
  usageNanoCores?: UInt64Value;
}

export interface MemoryUsage {
  timestamp: number;
  workingSetBytes?: UInt64Value;
  availableBytes?: UInt64Value;
  usageBytes?: UInt64Value;
  rssBytes?: UInt64Value;
  pageFaults?: UInt64Value;
  majorPageFaults?: UInt64Value;
}

export interface SwapUsage {
  timestamp: number;
  swapAvailableBytes?: UInt64Value;
  swapUsageBytes?: UInt64Value;
}

export interface NetworkInterfaceUsage {
  name: string;
  rxBytes?: UInt64Value;
  rxErrors?: UInt64Value;
  txBytes?: UInt64Value;
  txErrors?: UInt64Value;
}

export interface NetworkUsage {
  timestamp: number;
  defaultInterface?: NetworkInterfaceUsage;
  interfaces: NetworkInterfaceUsage[];
}

export interface ProcessUsage {
  timestamp: number;
  processCount?: UInt64Value;
}

export interface ContainerAttributes {
  id: string;
  metadata: ContainerMetadata;
  labels: Labels;
  annotations: Labels;
}

export interface ContainerStats {
  attributes: ContainerAttributes;
  cpu?: CpuUsage;
  memory?: MemoryUsage;
  writableLayer?: FilesystemUsage;
  swap?: SwapUsage;
}

export interface ContainerStatsFilter {
  id?: string;
  podSandboxId?: string;
  labelSelector?: Labels;
}

export interface PodSandboxAttributes {
  id: string;
  metadata: PodSandboxMetadata;
  labels: Labels;
  annotations: Labels;
}

export interface LinuxPodSandboxStats {
  cpu?: CpuUsage;
  memory?: MemoryUsage;
  network?: NetworkUsage;
  process?: ProcessUsage;
  containers: ContainerStats[];
}

export interface PodSandboxStats {
  attributes: PodSandboxAttributes;
  linux?: LinuxPodSandboxStats;
}

export interface PodSandboxStatsFilter {
  id?: string;
  labelSelector?: Labels;
}
