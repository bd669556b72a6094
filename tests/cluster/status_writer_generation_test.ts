/**
 * The status writer and the pod's generation (PodObservedGenerationTracking): the generation the
 * kubelet observed reaches the API, in `status.observedGeneration` and in its own conditions.
 */
import assert from "node:assert/strict";
import type { V1PodStatus } from "@kubernetes/client-node";
import { settle } from "./_fakes.ts";
import { apiPod, asApi, running, setup, T0, T1 } from "./_status_fixtures.ts";

/** A running status that observed `generation`. */
function observed(generation: number): V1PodStatus {
  return running({
    observedGeneration: generation,
    conditions: [
      { type: "PodScheduled", status: "True", lastTransitionTime: new Date(T0) },
      { type: "Ready", status: "True", lastTransitionTime: T1, observedGeneration: generation },
    ],
  });
}

Deno.test("status writer: a new observed generation is written, in the status and the conditions", async () => {
  const t = setup();
  const pod = apiPod("web", asApi(observed(1)));
  pod.metadata!.generation = 2;
  t.driven.list([pod]);
  t.kubelet.add(pod);
  t.writer.statusChanged(pod, observed(2));
  await settle();
  const [patch, ...more] = t.api.calls("PATCH");
  assert.equal(more.length, 0);
  const body = patch.body as { status: Record<string, unknown> };
  assert.equal(body.status.observedGeneration, 2);
  // Nothing else changed: the condition is sent only for its generation, its time kept.
  assert.deepEqual(body.status.conditions, [
    {
      type: "Ready",
      status: "True",
      lastTransitionTime: "2026-01-01T00:00:05Z",
      observedGeneration: 2,
    },
  ]);
  assert.equal(body.status.phase, undefined);
  await t.stop();
});

Deno.test("status writer: an observed generation the API already holds is not sent again", async () => {
  const t = setup();
  const pod = apiPod("web", asApi(observed(3)));
  pod.metadata!.generation = 3;
  t.driven.list([pod]);
  t.kubelet.add(pod);
  t.writer.statusChanged(pod, observed(3));
  await settle();
  assert.equal(t.api.requests.length, 0);
  await t.stop();
});
