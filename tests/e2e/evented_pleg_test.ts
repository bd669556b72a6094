/**
 * The evented PLEG against a runtime that serves container events: containerd v2, built from the
 * Go module proxy and run in a directory and pod network of its own (Debian's containerd 1.6,
 * which every other suite uses, answers GetContainerEvents with Unimplemented). While the events
 * flow the periodic relist runs every 300 s, so a container's exit must reach the pod's status
 * through its event, not through a relist.
 */
import assert from "node:assert/strict";
import { realClock } from "../../src/util/clock.ts";
import { waitFor } from "../support/agent.ts";
import { CONTAINERD_VERSION } from "../support/_containerd_build.ts";

import { containerStatus, E2E_TEST, setupE2E, shellPod, time } from "./_helpers.ts";

/** How many relists the agent ran during the next `ms` (its relist duration histogram's count). */
async function relistsDuring(get: (path: string) => Promise<Response>, ms: number) {
  const count = async () => {
    const text = await (await get("/metrics")).text();
    const m = /^kubelet_pleg_relist_duration_seconds_count(?:\{\})? (\d+)$/m.exec(text);
    if (!m) throw new Error("no kubelet_pleg_relist_duration_seconds_count in /metrics");
    return Number(m[1]);
  };
  const before = await count();
  await realClock.sleep(ms);
  return (await count()) - before;
}

Deno.test({
  name: "evented PLEG on containerd v2: events replace the per-second relist and report exits",
  ...E2E_TEST,
  async fn() {
    // A pod worker resyncs every 60 s here, so only the event can report the exit in time.
    const e2e = await setupE2E({
      runtime: { containerd: "upstream" },
      extraArgs: ["--sync-frequency", "60s"],
    });
    try {
      assert.equal((await e2e.cri.runtime.version()).runtimeVersion, CONTAINERD_VERSION);
      await waitFor(
        async () => (await e2e.agent.logTail(200)).includes("following the runtime's container"),
        { timeoutMs: 15_000, what: "the PLEG to follow containerd's events" },
      );
      await e2e.writePod("sleeper.yaml", shellPod("sleeper", "sleep 3600"));
      await e2e.writePod(
        "exits.yaml",
        shellPod("exits", "sleep 4; exit 3", { restartPolicy: "Never" }),
      );
      // A failing liveness probe asks for a sync that waits for a status newer than the last
      // one: with no relist for minutes, only the cache's 5 s tick lets it through in time.
      const unhealthy = shellPod("unhealthy", "sleep 3600");
      unhealthy.spec!.containers[0].livenessProbe = {
        exec: { command: ["false"] },
        initialDelaySeconds: 2,
        periodSeconds: 2,
        failureThreshold: 1,
      };
      await e2e.writePod("unhealthy.yaml", unhealthy);
      await e2e.waitPod("sleeper", (p) => p.status?.phase === "Running", {
        what: "pod sleeper to be Running",
        timeoutMs: 60_000,
      });

      const failed = await e2e.waitPod("exits", (p) => p.status?.phase === "Failed", {
        what: "pod exits to be Failed",
        timeoutMs: 30_000,
      });
      const seenAt = realClock.now();
      const term = containerStatus(failed, "main")?.state?.terminated;
      assert.equal(term?.exitCode, 3);
      const lag = seenAt - time(term?.finishedAt);
      assert.ok(
        lag < 10_000,
        `exit reported ${lag} ms after it happened (relists are 300 s apart)`,
      );

      await e2e.waitPod("unhealthy", (p) => (containerStatus(p, "main")?.restartCount ?? 0) >= 1, {
        what: "pod unhealthy's container restarted by its liveness probe",
        timeoutMs: 40_000,
      });

      await e2e.removeManifest("unhealthy.yaml");
      await waitFor(async () => (await e2e.pod("unhealthy")) === undefined, {
        timeoutMs: 40_000,
        what: "pod unhealthy to be gone",
      });

      // Ten quiet seconds: a relisting PLEG would list the runtime ten times. (A late event of
      // a teardown may still ask for one or two.)
      const n = await relistsDuring(e2e.agent.get, 10_000);
      assert.ok(n <= 3, `${n} relists in 10 s while events flow`);
    } finally {
      await e2e.close();
    }
  },
});

Deno.test({
  name: "evented PLEG gate off (--feature-gates=EventedPLEG=false): relists every second",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E({
      runtime: { containerd: "upstream" },
      extraArgs: ["--feature-gates=EventedPLEG=false"],
    });
    try {
      await e2e.writePod("sleeper.yaml", shellPod("sleeper", "sleep 3600"));
      await e2e.waitPod("sleeper", (p) => p.status?.phase === "Running", {
        what: "pod sleeper to be Running",
        timeoutMs: 60_000,
      });
      const n = await relistsDuring(e2e.agent.get, 5_000);
      assert.ok(n >= 4, `${n} relists in 5 s with the gate off`);
      assert.ok(
        !(await e2e.agent.logTail(500)).includes("following the runtime's container"),
        "the PLEG followed the runtime's events with the gate off",
      );
    } finally {
      await e2e.close();
    }
  },
});
