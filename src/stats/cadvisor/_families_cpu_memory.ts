/**
 * cAdvisor's CPU and memory families (CpuUsageMetrics, MemoryUsageMetrics), names and help
 * texts as in its metrics/prometheus.go.
 */
import type { CgroupReading } from "./_cgroup_stats.ts";
import type { MetricType } from "./_exposition.ts";
import { type ContainerFamily, type ContainerView, counter, gauge, one, SEC } from "./_family.ts";

export const CPU_FAMILIES: ContainerFamily[] = [
  counter("container_cpu_user_seconds_total", {
    help: "Cumulative user cpu time consumed in seconds.",
    values: one((v) => v.reading.cpu.userNs / SEC),
  }),
  counter("container_cpu_system_seconds_total", {
    help: "Cumulative system cpu time consumed in seconds.",
    values: one((v) => v.reading.cpu.systemNs / SEC),
  }),
  {
    ...counter("container_cpu_usage_seconds_total", {
      help: "Cumulative cpu time consumed in seconds.",
      // Per-CPU usage is not enabled by the kubelet: one "total" series, when non-zero.
      values: (v) => v.reading.cpu.totalNs > 0 ? [[v.reading.cpu.totalNs / SEC, ["total"]]] : [],
    }),
    extra: ["cpu"],
  },
  ...([
    ["periods", "Number of elapsed enforcement period intervals.", (v) => v.reading.cpu.periods],
    [
      "throttled_periods",
      "Number of throttled period intervals.",
      (v) => v.reading.cpu.throttledPeriods,
    ],
    [
      "throttled_seconds",
      "Total time duration the container has been throttled.",
      (v) => v.reading.cpu.throttledNs / SEC,
    ],
    ["burst_periods", "Number of periods when burst occurs.", (v) => v.reading.cpu.burstPeriods],
    [
      "burst_seconds",
      "Total time duration the container has been bursted.",
      (v) => v.reading.cpu.burstNs / SEC,
    ],
  ] as [string, string, (v: ContainerView) => number][]).map(([n, help, f]) => ({
    ...counter(`container_cpu_cfs_${n}_total`, { help, values: one(f) }),
    needsQuota: true,
  })),
];

type Mem = CgroupReading["memory"];
const mem = (type: MetricType, name: string, help: string, f: (m: Mem) => number) =>
  (type === "counter" ? counter : gauge)(name, { help, values: one((v) => f(v.reading.memory)) });

export const MEMORY_FAMILIES: ContainerFamily[] = [
  mem("gauge", "container_memory_cache", "Number of bytes of page cache memory.", (m) => m.cache),
  mem("gauge", "container_memory_rss", "Size of RSS in bytes.", (m) => m.rss),
  mem(
    "gauge",
    "container_memory_kernel_usage",
    "Size of kernel memory allocated in bytes.",
    (m) => m.kernel,
  ),
  mem(
    "gauge",
    "container_memory_mapped_file",
    "Size of memory mapped files in bytes.",
    (m) => m.mappedFile,
  ),
  mem("gauge", "container_memory_swap", "Container swap usage in bytes.", (m) => m.swap),
  mem(
    "counter",
    "container_memory_failcnt",
    "Number of memory usage hits limits",
    (m) => m.failcnt,
  ),
  mem(
    "gauge",
    "container_memory_usage_bytes",
    "Current memory usage in bytes, including all memory regardless of when it was accessed",
    (m) => m.usage,
  ),
  mem(
    "gauge",
    "container_memory_max_usage_bytes",
    "Maximum memory usage recorded in bytes",
    (m) => m.maxUsage,
  ),
  mem(
    "gauge",
    "container_memory_working_set_bytes",
    "Current working set in bytes.",
    (m) => m.workingSet,
  ),
  mem(
    "gauge",
    "container_memory_total_active_file_bytes",
    "Current total active file in bytes.",
    (m) => m.activeFile,
  ),
  mem(
    "gauge",
    "container_memory_total_inactive_file_bytes",
    "Current total inactive file in bytes.",
    (m) => m.inactiveFile,
  ),
  {
    ...counter("container_memory_failures_total", {
      help: "Cumulative count of memory allocation failures.",
      values: ({ reading: { memory: m } }) => [
        [m.pgfault, ["pgfault", "container"]],
        [m.pgmajfault, ["pgmajfault", "container"]],
        [m.pgfault, ["pgfault", "hierarchy"]],
        [m.pgmajfault, ["pgmajfault", "hierarchy"]],
      ],
    }),
    extra: ["failure_type", "scope"],
  },
  mem(
    "counter",
    "container_memory_events_high_total",
    "Cumulative count of memory.high throttle events for the container",
    (m) => m.eventsHigh,
  ),
  mem(
    "counter",
    "container_memory_events_max_total",
    "Cumulative count of memory.max limit hit events for the container",
    (m) => m.eventsMax,
  ),
  mem(
    "gauge",
    "container_memory_file_dirty_bytes",
    "Number of bytes of file cache that has been modified but not yet written back to disk.",
    (m) => m.fileDirty,
  ),
  mem(
    "gauge",
    "container_memory_file_writeback_bytes",
    "Number of bytes of file cache that is currently being written back to disk.",
    (m) => m.fileWriteback,
  ),
  mem(
    "counter",
    "container_memory_pgscan_total",
    "Cumulative number of pages scanned by the page reclaim algorithm.",
    (m) => m.pgscan,
  ),
  mem(
    "counter",
    "container_memory_pgsteal_total",
    "Cumulative number of pages reclaimed by the page reclaim algorithm.",
    (m) => m.pgsteal,
  ),
  mem(
    "counter",
    "container_memory_workingset_refault_file_total",
    "Cumulative number of refaults of previously evicted file pages.",
    (m) => m.refaultFile,
  ),
  mem(
    "counter",
    "container_memory_workingset_refault_anon_total",
    "Cumulative number of refaults of previously evicted anonymous pages.",
    (m) => m.refaultAnon,
  ),
];

/** Per-filesystem values of the root cgroup (cAdvisor's fsValues). */
