import assert from "node:assert/strict";
import { createEvictionManager, parseThresholdConfig } from "../../src/eviction/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { Gi, pod, summary } from "./_fakes.ts";

Deno.test("disk reclaim asks for every unused container, finished pods' too (DeleteAllUnusedContainers)", async () => {
  const clock = new FakeClock();
  const asked: Array<{ evictNonDeletedPods?: boolean } | undefined> = [];
  const manager = createEvictionManager({
    stats: {
      summary: () => Promise.resolve(summary(clock.now(), { fsAvailable: 5 * Gi })),
      sampleNow: () => Promise.resolve(summary(clock.now() + 1, { fsAvailable: 50 * Gi })),
    },
    reclaimer: {
      collectContainers: (o) => {
        asked.push(o);
        return Promise.resolve();
      },
      collectImages: () => Promise.resolve(),
    },
    pods: () => [pod({ name: "writer" })],
    evictPod: () => Promise.reject(new Error("must not evict: GC freed enough")),
    clock,
    logger: nullLogger,
    config: {
      thresholds: parseThresholdConfig({ hard: { "nodefs.available": "10%" } }),
      pressureTransitionPeriodMs: 60_000,
      maxPodGracePeriodSeconds: 0,
      evictStaticPods: true,
    },
  });
  assert.equal(await manager.synchronize(), undefined);
  assert.equal(asked.length, 1);
  assert.equal(asked[0]?.evictNonDeletedPods, true);
});
