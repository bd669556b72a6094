/** kubelet_volume_stats_* from the summary's claim volumes, one series per claim. */
import assert from "node:assert/strict";
import { volumeStatsMetrics } from "../../src/stats/mod.ts";
import type { Summary } from "../../src/stats/mod.ts";
import { createMetricsRegistry } from "../../src/util/metrics.ts";

const volume = (claim: string) => ({
  name: "data",
  capacityBytes: 1000,
  availableBytes: 600,
  usedBytes: 400,
  inodes: 100,
  inodesFree: 90,
  inodesUsed: 10,
  pvcRef: { name: claim, namespace: "ns" },
});

Deno.test("kubelet_volume_stats_*: a series per claim with upstream's names and labels, gone with the claim", () => {
  const registry = createMetricsRegistry();
  const set = volumeStatsMetrics(registry);
  const summary = {
    node: { nodeName: "n" },
    pods: [
      { podRef: { name: "a", namespace: "ns", uid: "1" }, volume: [volume("c1"), { name: "e" }] },
      { podRef: { name: "b", namespace: "ns", uid: "2" }, volume: [volume("c1")] },
    ],
  } as unknown as Summary;
  set(summary);
  const text = registry.render();
  for (
    const [name, value] of [
      ["capacity_bytes", 1000],
      ["available_bytes", 600],
      ["used_bytes", 400],
      ["inodes", 100],
      ["inodes_free", 90],
      ["inodes_used", 10],
    ]
  ) {
    const line = `kubelet_volume_stats_${name}{namespace="ns",persistentvolumeclaim="c1"} ${value}`;
    assert.equal(text.split("\n").filter((l) => l === line).length, 1, line);
  }
  set({ ...summary, pods: [] });
  assert.doesNotMatch(registry.render(), /persistentvolumeclaim="c1"/);
});
