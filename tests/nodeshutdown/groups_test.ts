/** Which pods stop together and for how long, with upstream's test cases. */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  DEFAULT_PRIORITY,
  groupByPriority,
  migrateConfig,
  periodRequestedMs,
  podGracePeriodSeconds,
  shutdownPeriods,
  SYSTEM_CRITICAL_PRIORITY,
} from "../../src/nodeshutdown/mod.ts";

/** scheduling.HighestUserDefinablePriority. */
const HIGHEST_USER_DEFINABLE = 1_000_000_000;

function pod(name: string, priority?: number, grace?: number): V1Pod {
  return {
    metadata: { name, namespace: "default", uid: name },
    spec: { containers: [], priority, terminationGracePeriodSeconds: grace },
  };
}

const names = (pods: V1Pod[]) => pods.map((p) => p.metadata!.name);

Deno.test("migrateConfig: the two grace periods as priority ranges, in whole seconds", () => {
  assert.deepEqual(migrateConfig(300_000, 120_000), [
    { priority: DEFAULT_PRIORITY, shutdownGracePeriodSeconds: 180 },
    { priority: SYSTEM_CRITICAL_PRIORITY, shutdownGracePeriodSeconds: 120 },
  ]);
  assert.deepEqual(migrateConfig(100_000, 0), [
    { priority: 0, shutdownGracePeriodSeconds: 100 },
    { priority: SYSTEM_CRITICAL_PRIORITY, shutdownGracePeriodSeconds: 0 },
  ]);
  assert.deepEqual(migrateConfig(0, 0), []);
  assert.deepEqual(migrateConfig(1_000, 100_000), []);
});

Deno.test("groupByPriority: ordinary pods first, critical ones last (upstream's migrated case)", () => {
  const groups = groupByPriority(migrateConfig(300_000, 120_000), [
    pod("normal-pod", DEFAULT_PRIORITY),
    pod("highest-user-definable-pod", HIGHEST_USER_DEFINABLE),
    pod("critical-pod", SYSTEM_CRITICAL_PRIORITY),
    pod("no-priority"),
  ]);
  assert.deepEqual(groups.map((g) => [g.priority, g.shutdownGracePeriodSeconds, names(g.pods)]), [
    [0, 180, ["normal-pod", "highest-user-definable-pod", "no-priority"]],
    [SYSTEM_CRITICAL_PRIORITY, 120, ["critical-pod"]],
  ]);
});

Deno.test("groupByPriority: a pod joins the highest range it reaches, clamped at both ends", () => {
  const periods = [1, 2, 3, 4].map((p) => ({ priority: p, shutdownGracePeriodSeconds: p * 10 }));
  const groups = groupByPriority(periods, [
    pod("pod-0", 0),
    pod("pod-1", 1),
    pod("pod-2", 2),
    pod("pod-3", 3),
    pod("pod-4", 4),
    pod("pod-5", 5),
  ]);
  assert.deepEqual(groups.map((g) => names(g.pods)), [
    ["pod-0", "pod-1"],
    ["pod-2"],
    ["pod-3"],
    ["pod-4", "pod-5"],
  ]);
  // Between two ranges: the lower one.
  const gap = groupByPriority([
    { priority: 0, shutdownGracePeriodSeconds: 5 },
    { priority: 100, shutdownGracePeriodSeconds: 5 },
  ], [pod("p50", 50), pod("p150", 150), pod("neg", -10)]);
  assert.deepEqual(gap.map((g) => names(g.pods)), [["p50", "neg"], ["p150"]]);
});

Deno.test("shutdownPeriods: the by-priority list wins when its gate is on; lowest priority first", () => {
  const byPriority = [
    { priority: 2_000_000_000, shutdownGracePeriodSeconds: 10 },
    { priority: 10_000, shutdownGracePeriodSeconds: 20 },
    { priority: 0, shutdownGracePeriodSeconds: 30 },
  ];
  const on = shutdownPeriods({
    shutdownGracePeriodMs: 0,
    shutdownGracePeriodCriticalPodsMs: 0,
    shutdownGracePeriodByPodPriority: byPriority,
    byPriorityGate: true,
  });
  assert.deepEqual(on.map((p) => p.priority), [0, 10_000, 2_000_000_000]);
  assert.equal(periodRequestedMs(on), 60_000);
  const off = shutdownPeriods({
    shutdownGracePeriodMs: 30_000,
    shutdownGracePeriodCriticalPodsMs: 10_000,
    shutdownGracePeriodByPodPriority: byPriority,
    byPriorityGate: false,
  });
  assert.deepEqual(off, migrateConfig(30_000, 10_000));
  assert.equal(periodRequestedMs(off), 30_000);
});

Deno.test("podGracePeriodSeconds: the pod's own grace period when it is shorter", () => {
  const group = { priority: 0, shutdownGracePeriodSeconds: 20 };
  assert.equal(podGracePeriodSeconds(pod("short", 0, 5), group), 5);
  assert.equal(podGracePeriodSeconds(pod("long", 0, 60), group), 20);
  assert.equal(podGracePeriodSeconds(pod("unset", 0), group), 20);
  assert.equal(podGracePeriodSeconds(pod("zero", 0, 0), group), 0);
});
