/**
 * Events as `kubectl describe` and `kubectl get events` show them for the upstream kubelet:
 * source kubelet on this node, the upstream reasons and messages, repeats counted.
 */
import assert from "node:assert/strict";
import type { CoreV1Event, CoreV1EventList } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import { busyboxPod, E2E_TEST, setupCluster } from "./_cluster.ts";

Deno.test({
  name: "API mode events: a pod's life and a failing probe read as upstream's in kubectl",
  ...E2E_TEST,
  async fn() {
    const c = await setupCluster();
    const eventsOf = async (name: string): Promise<CoreV1Event[]> =>
      (await c.getJson<CoreV1EventList>([
        "events",
        "-n",
        "default",
        "--field-selector",
        `involvedObject.name=${name}`,
      ]))?.items ?? [];
    try {
      const web = busyboxPod("ev-web", "while true; do sleep 1; done", {
        node: c.nodeName,
        extra: { automountServiceAccountToken: false },
      });
      const sick = busyboxPod("ev-sick", "while true; do sleep 1; done", {
        node: c.nodeName,
        extra: { automountServiceAccountToken: false },
      });
      sick.spec!.containers[0].livenessProbe = {
        exec: { command: ["sh", "-c", "echo not today; exit 1"] },
        periodSeconds: 1,
        failureThreshold: 2,
      };
      await c.apply(web, sick);
      const started = await waitFor(async () => {
        const evs = await eventsOf("ev-web");
        const reasons = evs.map((e) => e.reason);
        return ["Pulled", "Created", "Started"].every((r) => reasons.includes(r)) ? evs : undefined;
      }, { what: "Pulled, Created and Started events for ev-web", timeoutMs: 60_000 });
      for (const e of started) {
        assert.equal(e.source?.component, "kubelet");
        assert.equal(e.source?.host, c.nodeName);
        assert.equal(e.involvedObject.fieldPath, "spec.containers{main}");
      }
      assert.equal(
        started.find((e) => e.reason === "Started")?.message,
        "Started container main",
      );
      const sickEvents = await waitFor(async () => {
        const evs = await eventsOf("ev-sick");
        const unhealthy = evs.find((e) => e.reason === "Unhealthy");
        const killing = evs.find((e) => e.reason === "Killing");
        return unhealthy && killing && (unhealthy.count ?? 0) >= 2 ? evs : undefined;
      }, { what: "Unhealthy (counted) and Killing events for ev-sick", timeoutMs: 90_000 });
      const unhealthy = sickEvents.find((e) => e.reason === "Unhealthy")!;
      assert.equal(unhealthy.type, "Warning");
      assert.equal(unhealthy.message, "Liveness probe failed: not today\n");
      assert.equal(
        sickEvents.find((e) => e.reason === "Killing")?.message,
        "Container main failed liveness probe, will be restarted",
      );
      const describe = await c.kubectl(["describe", "pod", "ev-sick", "-n", "default"]);
      // kubectl prefixes the container's field path, as for the upstream kubelet's events.
      assert.match(
        describe,
        /Warning\s+Unhealthy\s+.*\(x\d+ over .*kubelet\s+spec\.containers\{main\}: Liveness probe failed: not today/,
      );
    } finally {
      await c.close();
    }
  },
});
