/**
 * cAdvisor's container metric families as the kubelet enables them (CPU, memory, disk I/O,
 * disk usage, network, processes, OOM; PSI where the kernel has it), in one list.
 */
import { CPU_FAMILIES, MEMORY_FAMILIES } from "./_families_cpu_memory.ts";
import {
  ALWAYS_FAMILIES,
  DISK_IO_FAMILIES,
  DISK_USAGE_FAMILIES,
  NETWORK_FAMILIES,
  OOM_FAMILY,
  PROCESS_FAMILIES,
  PSI_FAMILIES,
} from "./_families_io.ts";
import type { ContainerFamily } from "./_family.ts";

export type { ContainerFamily, ContainerView } from "./_family.ts";

export const CONTAINER_FAMILIES: readonly ContainerFamily[] = [
  ...ALWAYS_FAMILIES,
  ...CPU_FAMILIES,
  ...MEMORY_FAMILIES,
  ...DISK_USAGE_FAMILIES,
  ...DISK_IO_FAMILIES,
  ...NETWORK_FAMILIES,
  ...PROCESS_FAMILIES,
  OOM_FAMILY,
  ...PSI_FAMILIES,
];
