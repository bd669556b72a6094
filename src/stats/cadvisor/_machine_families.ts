/**
 * The series that are not per container: cAdvisor's machine collector (`machine_*`, labelled
 * with the machine's ids), `cadvisor_version_info`, the spec series of each container (no
 * timestamp, as cAdvisor's) and the two scrape error gauges.
 */
import type { Exposition, LabelPairs } from "./_exposition.ts";
import type { MachineFacts } from "./_machine.ts";
import type { CgroupSpec } from "./_cgroup_stats.ts";

const gauge = (name: string, help: string) => ({ name, help, type: "gauge" as const });

export const CONTAINER_SCRAPE_ERROR = gauge(
  "container_scrape_error",
  "1 if there was an error while getting container metrics, 0 otherwise",
);
export const MACHINE_SCRAPE_ERROR = gauge(
  "machine_scrape_error",
  "1 if there was an error while getting machine metrics, 0 otherwise.",
);
const VERSION_INFO = gauge(
  "cadvisor_version_info",
  "A metric with a constant '1' value labeled by kernel version, OS version, docker version, cadvisor version & cadvisor revision.",
);

export function addVersionInfo(out: Exposition, m: MachineFacts): void {
  // The kubelet's cAdvisor is a library without build stamps, and there is no docker.
  out.add(VERSION_INFO, {
    labels: {
      kernelVersion: m.kernelVersion,
      osVersion: m.osVersion,
      dockerVersion: "",
      cadvisorVersion: "",
      cadvisorRevision: "",
    },
    value: 1,
  });
}

export function addMachine(out: Exposition, m: MachineFacts): void {
  const labels = { machine_id: m.machineId, system_uuid: m.systemUuid, boot_id: m.bootId };
  const add = (name: string, help: string, value: number, extra: Record<string, string> = {}) =>
    out.add(gauge(name, help), {
      labels: { ...labels, ...extra },
      value,
      timestampMs: m.timestampMs,
    });
  add("machine_cpu_physical_cores", "Number of physical CPU cores.", m.physicalCores);
  add("machine_cpu_cores", "Number of logical CPU cores.", m.cores);
  add("machine_cpu_sockets", "Number of CPU sockets.", m.sockets);
  // Books and drawers are s390x's; cAdvisor reports 0 elsewhere.
  add("machine_cpu_books", "Number of CPU books.", 0);
  add("machine_cpu_drawers", "Number of CPU drawers.", 0);
  add("machine_memory_bytes", "Amount of memory installed on the machine.", m.memoryBytes);
  add("machine_swap_bytes", "Amount of swap memory available on the machine.", m.swapBytes);
  // No NVDIMM support here: cAdvisor reports zeros without one.
  const nvm = "NVM capacity value labeled by NVM mode (memory mode or app direct mode).";
  add("machine_nvm_capacity", nvm, 0, { mode: "memory_mode" });
  add("machine_nvm_capacity", nvm, 0, { mode: "app_direct_mode" });
  add("machine_nvm_avg_power_budget_watts", "NVM power budget.", 0);
}

/** Limits at or above 2^62 are "unlimited" (page-rounded MaxInt64, MaxUint64): 0, as cAdvisor. */
function specMemory(v: number): number {
  return v > 2 ** 62 ? 0 : v;
}

export interface SpecTimes {
  creationMs: number;
  startMs: number;
}

/** container_creation_time_seconds, container_start_time_seconds and container_spec_*. */
export function addSpec(
  out: Exposition,
  pairs: LabelPairs,
  p: { times?: SpecTimes; spec: CgroupSpec },
): void {
  const { spec, times } = p;
  // Spec series carry no timestamp, as cAdvisor's.
  const add = (name: string, help: string, value: number) =>
    out.addSorted(gauge(name, help), { pairs, value });
  if (times) {
    add(
      "container_creation_time_seconds",
      "Container creation time since unix epoch in seconds.",
      Math.floor(times.creationMs / 1000),
    );
    add(
      "container_start_time_seconds",
      "Start time of the container since unix epoch in seconds.",
      Math.floor(times.startMs / 1000),
    );
  }
  if (spec.hasCpu) {
    add("container_spec_cpu_period", "CPU period of the container.", spec.cpuPeriod);
    if (spec.cpuQuota !== 0) {
      add("container_spec_cpu_quota", "CPU quota of the container.", spec.cpuQuota);
    }
    add("container_spec_cpu_shares", "CPU share of the container.", spec.cpuShares);
  }
  if (spec.hasMemory) {
    add(
      "container_spec_memory_limit_bytes",
      "Memory limit for the container.",
      specMemory(spec.memoryLimit),
    );
    add(
      "container_spec_memory_swap_limit_bytes",
      "Memory swap limit for the container.",
      specMemory(spec.memorySwapLimit),
    );
    add(
      "container_spec_memory_reservation_limit_bytes",
      "Memory reservation limit for the container.",
      specMemory(spec.memoryReservation),
    );
  }
}
