/**
 * `/metrics/resource`: the upstream resource metrics (pkg/kubelet/metrics/collectors/
 * resource_metrics.go) rendered from a CPU-and-memory Summary, in the Prometheus text format,
 * with the sample time as each series' timestamp as upstream does.
 */
import type { Summary } from "./types.ts";

interface Family {
  name: string;
  help: string;
  type: "counter" | "gauge";
  lines: string[];
}

const FAMILIES: Omit<Family, "lines">[] = [
  {
    name: "container_cpu_usage_seconds_total",
    type: "counter",
    help: "[STABLE] Cumulative cpu time consumed by the container in core-seconds",
  },
  {
    name: "container_memory_working_set_bytes",
    type: "gauge",
    help: "[STABLE] Current working set of the container in bytes",
  },
  {
    name: "container_start_time_seconds",
    type: "gauge",
    help: "[STABLE] Start time of the container since unix epoch in seconds",
  },
  {
    name: "container_swap_usage_bytes",
    type: "gauge",
    help:
      "[ALPHA] Current amount of the container swap usage in bytes. Reported only on non-windows systems",
  },
  {
    name: "node_cpu_usage_seconds_total",
    type: "counter",
    help: "[STABLE] Cumulative cpu time consumed by the node in core-seconds",
  },
  {
    name: "node_memory_working_set_bytes",
    type: "gauge",
    help: "[STABLE] Current working set of the node in bytes",
  },
  {
    name: "node_swap_usage_bytes",
    type: "gauge",
    help: "[ALPHA] Current swap usage of the node in bytes. Reported only on non-windows systems",
  },
  {
    name: "pod_cpu_usage_seconds_total",
    type: "counter",
    help: "[STABLE] Cumulative cpu time consumed by the pod in core-seconds",
  },
  {
    name: "pod_memory_working_set_bytes",
    type: "gauge",
    help: "[STABLE] Current working set of the pod in bytes",
  },
  {
    name: "pod_swap_usage_bytes",
    type: "gauge",
    help:
      "[ALPHA] Current amount of the pod swap usage in bytes. Reported only on non-windows systems",
  },
  {
    name: "resource_scrape_error",
    type: "gauge",
    help: "[STABLE] 1 if there was an error while getting container metrics, 0 otherwise",
  },
  {
    name: "scrape_error",
    type: "gauge",
    help:
      "[ALPHA] (Deprecated since 1.29.0) 1 if there was an error while getting container metrics, 0 otherwise",
  },
];

/**
 * Renders the resource metrics. `summary` undefined means getting it failed: only the scrape
 * error gauges are written, set to 1, as upstream.
 */
export function renderResourceMetrics(summary: Summary | undefined): string {
  const fam = new Map<string, Family>(FAMILIES.map((f) => [f.name, { ...f, lines: [] }]));
  const add = (
    name: string,
    labels: Record<string, string>,
    value: number | undefined,
    time?: Date,
  ) => {
    if (value === undefined || !Number.isFinite(value)) return;
    fam.get(name)!.lines.push(series(name, labels, value, time));
  };
  if (summary !== undefined) {
    const n = summary.node;
    add("node_cpu_usage_seconds_total", {}, seconds(n.cpu?.usageCoreNanoSeconds), n.cpu?.time);
    add("node_memory_working_set_bytes", {}, n.memory?.workingSetBytes, n.memory?.time);
    add("node_swap_usage_bytes", {}, n.swap?.swapUsageBytes, n.memory?.time);
    for (const p of summary.pods) {
      const podLabels = { namespace: p.podRef.namespace, pod: p.podRef.name };
      for (const c of p.containers) {
        const l = { container: c.name, ...podLabels };
        if (c.startTime.getTime() > 0) {
          add("container_start_time_seconds", l, c.startTime.getTime() / 1000);
        }
        add(
          "container_cpu_usage_seconds_total",
          l,
          seconds(c.cpu?.usageCoreNanoSeconds),
          c.cpu?.time,
        );
        add("container_memory_working_set_bytes", l, c.memory?.workingSetBytes, c.memory?.time);
        add("container_swap_usage_bytes", l, c.swap?.swapUsageBytes, c.swap?.time);
      }
      add(
        "pod_cpu_usage_seconds_total",
        podLabels,
        seconds(p.cpu?.usageCoreNanoSeconds),
        p.cpu?.time,
      );
      add("pod_memory_working_set_bytes", podLabels, p.memory?.workingSetBytes, p.memory?.time);
      add("pod_swap_usage_bytes", podLabels, p.swap?.swapUsageBytes, p.swap?.time);
    }
  }
  const failed = summary === undefined ? 1 : 0;
  add("resource_scrape_error", {}, failed);
  add("scrape_error", {}, failed);

  let out = "";
  for (const f of fam.values()) {
    if (f.lines.length === 0) continue;
    out += `# HELP ${f.name} ${f.help}\n# TYPE ${f.name} ${f.type}\n`;
    // Sorted like the Go client, so the output is stable between scrapes.
    out += f.lines.sort().join("\n") + "\n";
  }
  return out;
}

function seconds(ns: number | undefined): number | undefined {
  return ns === undefined ? undefined : ns / 1e9;
}

function series(
  name: string,
  labels: Record<string, string>,
  value: number,
  time: Date | undefined,
): string {
  const keys = Object.keys(labels).sort();
  const l = keys.length === 0
    ? ""
    : `{${keys.map((k) => `${k}="${escapeLabel(labels[k])}"`).join(",")}}`;
  const ts = time === undefined ? "" : ` ${time.getTime()}`;
  return `${name}${l} ${formatValue(value)}${ts}`;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function formatValue(v: number): string {
  // Go writes 1e+06-style exponents for large values; JS's plain digits parse the same.
  return Object.is(v, -0) ? "0" : String(v);
}
