/**
 * `kubelet_volume_stats_*` on /metrics (upstream's volume stats collector): per claim volume of
 * the summary (a volume stat with a pvcRef), its capacity, available and used bytes and inodes,
 * labelled by the claim's namespace and name. Refreshed from the stats provider's latest sample.
 */
import type { MetricsRegistry } from "../util/metrics.ts";
import type { Summary } from "./types.ts";

const LABELS = ["namespace", "persistentvolumeclaim"] as const;

/** Registers the gauges; the returned function sets them from a summary. */
export function volumeStatsMetrics(registry: MetricsRegistry): (s: Summary | undefined) => void {
  const gauge = (name: string, help: string) =>
    registry.gaugeVec({ name: `kubelet_volume_stats_${name}`, help, labelNames: LABELS });
  const capacity = gauge("capacity_bytes", "Capacity in bytes of the volume");
  const available = gauge("available_bytes", "Number of available bytes in the volume");
  const used = gauge("used_bytes", "Number of used bytes in the volume");
  const inodes = gauge("inodes", "Maximum number of inodes in the volume");
  const inodesFree = gauge("inodes_free", "Number of free inodes in the volume");
  const inodesUsed = gauge("inodes_used", "Number of used inodes in the volume");
  const all = [capacity, available, used, inodes, inodesFree, inodesUsed];
  return (summary) => {
    for (const g of all) g.reset();
    const seen = new Set<string>();
    for (const pod of summary?.pods ?? []) {
      for (const v of pod.volume ?? []) {
        const ref = v.pvcRef;
        // A claim mounted by several pods is one series, as upstream's collector dedups them.
        if (!ref || seen.has(`${ref.namespace}/${ref.name}`)) continue;
        seen.add(`${ref.namespace}/${ref.name}`);
        const set = (g: typeof capacity, value: number | undefined) => {
          if (value !== undefined) g.labels(ref.namespace, ref.name).set(value);
        };
        set(capacity, v.capacityBytes);
        set(available, v.availableBytes);
        set(used, v.usedBytes);
        set(inodes, v.inodes);
        set(inodesFree, v.inodesFree);
        set(inodesUsed, v.inodesUsed);
      }
    }
  };
}
