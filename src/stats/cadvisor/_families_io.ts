/**
 * cAdvisor's disk usage, disk I/O, network, process, OOM and PSI families, names and help
 * texts as in its metrics/prometheus.go.
 */
import type { FilesystemReading } from "./_machine.ts";
import type { DeviceStats, InterfaceCounters } from "./_parse.ts";
import {
  type ContainerFamily,
  type ContainerView,
  counter,
  gauge,
  one,
  SEC,
  type Value,
} from "./_family.ts";

const perFs = (f: (fs: FilesystemReading) => number) => (v: ContainerView): Value[] =>
  (v.filesystems ?? []).map((fs) => [f(fs), [fs.device]]);

export const DISK_USAGE_FAMILIES: ContainerFamily[] = ([
  ["container_fs_inodes_free", "Number of available Inodes", (fs) => fs.capacity.inodesFree],
  ["container_fs_inodes_total", "Number of Inodes", (fs) => fs.capacity.inodes],
  [
    "container_fs_limit_bytes",
    "Number of bytes that can be consumed by the container on this filesystem.",
    (fs) => fs.capacity.capacityBytes,
  ],
  [
    "container_fs_usage_bytes",
    "Number of bytes that are consumed by the container on this filesystem.",
    (fs) => fs.capacity.usedBytes,
  ],
] as [string, string, (fs: FilesystemReading) => number][]).map(([name, help, f]) => ({
  ...gauge(name, { help, values: perFs(f) }),
  extra: ["device"],
}));

type Table = "serviceBytes" | "serviced" | "none";
type DiskField = Exclude<keyof NonNullable<FilesystemReading["disk"]>, "name">;

/**
 * cAdvisor's ioValues: the cgroup's per-device counters of one operation, then (root only) the
 * filesystems' /proc/diskstats field. cAdvisor divides the diskstats times, which the kernel
 * gives in ms, by 1e9 as if they were ns; the values are kept as upstream serves them.
 */
function io(
  table: Table,
  op: string,
  field: DiskField | undefined,
  scale = 1,
): ContainerFamily["values"] {
  return (v) => {
    const out: Value[] = [];
    const rows: DeviceStats[] = table === "none" ? [] : v.reading.io[table];
    for (const d of rows) out.push([d.ops.get(op) ?? 0, [v.deviceName(d.major, d.minor)]]);
    if (field) {
      for (const fs of v.filesystems ?? []) {
        out.push([(fs.disk?.[field] ?? 0) / scale, [fs.device]]);
      }
    }
    return out;
  };
}

export const DISK_IO_FAMILIES: ContainerFamily[] = ([
  ["reads_bytes", "Cumulative count of bytes read", io("serviceBytes", "Read", undefined)],
  ["reads", "Cumulative count of reads completed", io("serviced", "Read", "readsCompleted")],
  ["sector_reads", "Cumulative count of sector reads completed", io("none", "", "sectorsRead")],
  ["reads_merged", "Cumulative count of reads merged", io("none", "", "readsMerged")],
  ["read_seconds", "Cumulative count of seconds spent reading", io("none", "", "readTimeMs", SEC)],
  ["writes_bytes", "Cumulative count of bytes written", io("serviceBytes", "Write", undefined)],
  ["writes", "Cumulative count of writes completed", io("serviced", "Write", "writesCompleted")],
  [
    "sector_writes",
    "Cumulative count of sector writes completed",
    io("none", "", "sectorsWritten"),
  ],
  ["writes_merged", "Cumulative count of writes merged", io("none", "", "writesMerged")],
  [
    "write_seconds",
    "Cumulative count of seconds spent writing",
    io("none", "", "writeTimeMs", SEC),
  ],
  [
    "io_time_seconds",
    "Cumulative count of seconds spent doing I/Os",
    io("none", "", "ioTimeMs", SEC),
  ],
  [
    "io_time_weighted_seconds",
    "Cumulative weighted I/O time in seconds",
    io("none", "", "weightedIoTimeMs", SEC),
  ],
] as [string, string, ContainerFamily["values"]][]).map(([n, help, values]) => ({
  ...counter(`container_fs_${n}_total`, { help, values }),
  extra: ["device"],
}));
DISK_IO_FAMILIES.push(
  {
    ...gauge("container_fs_io_current", {
      help: "Number of I/Os currently in progress",
      values: io("none", "", "ioInProgress"),
    }),
    extra: ["device"],
  },
  {
    ...counter("container_blkio_device_usage_total", {
      help: "Blkio Device bytes usage",
      values: (v) =>
        v.reading.io.serviceBytes.flatMap((d) =>
          [...d.ops].map(([op, n]): Value => [
            n,
            [v.deviceName(d.major, d.minor), String(d.major), String(d.minor), op],
          ])
        ),
    }),
    extra: ["device", "major", "minor", "operation"],
  },
);

type Iface = InterfaceCounters;
const net = (name: string, help: string, f: (i: Iface) => number): ContainerFamily => ({
  ...counter(name, { help, values: (v) => (v.network ?? []).map((i) => [f(i), [i.name]]) }),
  extra: ["interface"],
});

export const NETWORK_FAMILIES: ContainerFamily[] = [
  net(
    "container_network_receive_bytes_total",
    "Cumulative count of bytes received",
    (i) => i.rxBytes,
  ),
  net(
    "container_network_receive_packets_total",
    "Cumulative count of packets received",
    (i) => i.rxPackets,
  ),
  net(
    "container_network_receive_packets_dropped_total",
    "Cumulative count of packets dropped while receiving",
    (i) => i.rxDropped,
  ),
  net(
    "container_network_receive_errors_total",
    "Cumulative count of errors encountered while receiving",
    (i) => i.rxErrors,
  ),
  net(
    "container_network_transmit_bytes_total",
    "Cumulative count of bytes transmitted",
    (i) => i.txBytes,
  ),
  net(
    "container_network_transmit_packets_total",
    "Cumulative count of packets transmitted",
    (i) => i.txPackets,
  ),
  net(
    "container_network_transmit_packets_dropped_total",
    "Cumulative count of packets dropped while transmitting",
    (i) => i.txDropped,
  ),
  net(
    "container_network_transmit_errors_total",
    "Cumulative count of errors encountered while transmitting",
    (i) => i.txErrors,
  ),
];

export const PROCESS_FAMILIES: ContainerFamily[] = [
  gauge("container_processes", {
    help: "Number of processes running inside the container.",
    values: one((v) => v.reading.procs.length),
  }),
  gauge("container_file_descriptors", {
    help: "Number of open file descriptors for the container.",
    values: one((v) => v.processes.fds),
  }),
  gauge("container_sockets", {
    help: "Number of open sockets for the container.",
    values: one((v) => v.processes.sockets),
  }),
  gauge("container_threads_max", {
    help: "Maximum number of threads allowed inside the container, infinity if value is zero",
    values: one((v) => v.reading.threadsMax),
  }),
  gauge("container_threads", {
    help: "Number of threads running inside the container",
    values: one((v) => v.reading.threads),
  }),
  {
    ...gauge("container_ulimits_soft", {
      help:
        "Soft ulimit values for the container root process. Unlimited if -1, except priority and nice",
      values: (v) =>
        v.processes.maxOpenFiles === undefined
          ? []
          : [[v.processes.maxOpenFiles, ["max_open_files"]]],
    }),
    extra: ["ulimit"],
  },
];

export const OOM_FAMILY = counter("container_oom_events_total", {
  help: "Count of out of memory events observed for the container",
  values: one((v) => v.reading.oomKills),
});

export const PSI_FAMILIES: ContainerFamily[] = ([
  [
    "cpu",
    "stalled",
    "Total time duration no tasks in the container could make progress due to CPU congestion.",
  ],
  [
    "cpu",
    "waiting",
    "Total time duration tasks in the container have waited due to CPU congestion.",
  ],
  [
    "memory",
    "stalled",
    "Total time duration no tasks in the container could make progress due to memory congestion.",
  ],
  [
    "memory",
    "waiting",
    "Total time duration tasks in the container have waited due to memory congestion.",
  ],
  [
    "io",
    "stalled",
    "Total time duration no tasks in the container could make progress due to IO congestion.",
  ],
  ["io", "waiting", "Total time duration tasks in the container have waited due to IO congestion."],
] as const).map(([res, kind, help]) => ({
  ...counter(`container_pressure_${res}_${kind}_seconds_total`, {
    help: help,
    values: one((v) => {
      const p = v.reading[res].psi;
      return (kind === "stalled" ? p?.full ?? 0 : p?.some ?? 0) / 1e6;
    }),
  }),
  psi: true,
}));

export const ALWAYS_FAMILIES: ContainerFamily[] = [
  // Seen now: the scrape reads the cgroup (cAdvisor's value is its clock's seconds).
  gauge("container_last_seen", {
    help: "Last time a container was seen by the exporter",
    values: one((v) => Math.floor(v.timestampMs / 1000)),
  }),
  // Containers run by containerd have no health check cAdvisor could see: -1.
  gauge("container_health_state", {
    help: "The result of the container's health check",
    values: one(() => -1),
  }),
];
