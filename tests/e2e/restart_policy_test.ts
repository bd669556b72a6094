/**
 * restartPolicy decides what happens when a container exits: Never and OnFailure reach a final
 * phase, OnFailure and Always restart with the crash-loop back-off (10 s, then 20 s).
 * The four pods run in one agent at once to keep the suite short.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { realClock } from "../../src/util/clock.ts";
import { containerStatus, E2E_TEST, setupE2E, shellPod } from "./_helpers.ts";

const BACKOFF_WAIT_MS = 70_000;

function policyPod(name: string, policy: string, script: string): V1Pod {
  return shellPod(name, script, { restartPolicy: policy });
}

const main = (p: V1Pod) => containerStatus(p, "main");

Deno.test({
  name: "restartPolicy: Never fails, OnFailure succeeds or crash-loops, Always keeps restarting",
  ...E2E_TEST,
  async fn(t) {
    const e2e = await setupE2E();
    try {
      await e2e.writePod("never-fail.yaml", policyPod("never-fail", "Never", "echo once; exit 1"));
      await e2e.writePod("onfailure-ok.yaml", policyPod("onfailure-ok", "OnFailure", "exit 0"));
      await e2e.writePod(
        "onfailure-fail.yaml",
        policyPod("onfailure-fail", "OnFailure", "echo attempt; exit 1"),
      );
      await e2e.writePod("always-ok.yaml", policyPod("always-ok", "Always", "echo run; exit 0"));

      const neverFail = async () => {
        const pod = await e2e.waitPod("never-fail", (p) => p.status?.phase === "Failed", {
          what: "pod never-fail to be Failed",
        });
        const cs = main(pod);
        assert.equal(cs?.restartCount, 0);
        assert.equal(cs?.state?.terminated?.exitCode, 1);
        assert.equal(cs?.state?.terminated?.reason, "Error");
        assert.equal(cs?.ready, false);
        assert.equal(pod.status?.conditions?.find((c) => c.type === "Ready")?.status, "False");
        // The container is not restarted: the phase and count stay put past a sync period.
        await realClock.sleep(6_000);
        const later = await e2e.waitPod("never-fail", () => true, { what: "pod never-fail" });
        assert.equal(later.status?.phase, "Failed");
        assert.equal(main(later)?.restartCount, 0);
      };

      const onFailureOk = async () => {
        const pod = await e2e.waitPod("onfailure-ok", (p) => p.status?.phase === "Succeeded", {
          what: "pod onfailure-ok to be Succeeded",
        });
        const cs = main(pod);
        assert.equal(cs?.restartCount, 0);
        assert.equal(cs?.state?.terminated?.exitCode, 0);
        assert.equal(cs?.state?.terminated?.reason, "Completed");
      };

      const onFailureFail = async () => {
        const pod = await e2e.waitPod(
          "onfailure-fail",
          (p) =>
            (main(p)?.restartCount ?? 0) >= 1 &&
            main(p)?.state?.waiting?.reason === "CrashLoopBackOff",
          { what: "pod onfailure-fail to crash-loop", timeoutMs: BACKOFF_WAIT_MS },
        );
        const cs = main(pod);
        assert.equal(cs?.lastState?.terminated?.exitCode, 1);
        assert.equal(cs?.lastState?.terminated?.reason, "Error");
        assert.match(cs?.state?.waiting?.message ?? "", /back-off/);
        assert.equal(pod.status?.phase, "Running", "OnFailure with a restart pending is Running");
        // Each attempt logs to <restartCount>.log.
        assert.ok((await e2e.readLog(pod, "main", 0)).includes("attempt"), "0.log");
        assert.ok((await e2e.readLog(pod, "main", 1)).includes("attempt"), "1.log");
      };

      const alwaysOk = async () => {
        const first = await e2e.waitPod(
          "always-ok",
          (p) => main(p)?.state?.waiting?.reason === "CrashLoopBackOff",
          { what: "pod always-ok to show CrashLoopBackOff", timeoutMs: BACKOFF_WAIT_MS },
        );
        assert.equal(first.status?.phase, "Running");
        assert.equal(main(first)?.lastState?.terminated?.exitCode, 0);
        assert.equal(main(first)?.lastState?.terminated?.reason, "Completed");
        const count = main(first)?.restartCount ?? 0;
        const later = await e2e.waitPod(
          "always-ok",
          (p) => (main(p)?.restartCount ?? 0) > count,
          { what: `always-ok restartCount to rise above ${count}`, timeoutMs: BACKOFF_WAIT_MS },
        );
        assert.equal(later.status?.phase, "Running");
        assert.equal(later.metadata?.uid, first.metadata?.uid, "same pod, restarted in place");
      };

      await t.step("all four policies, concurrently", async () => {
        const results = await Promise.allSettled([
          neverFail(),
          onFailureOk(),
          onFailureFail(),
          alwaysOk(),
        ]);
        const failures = results.flatMap((r, i) =>
          r.status === "rejected"
            ? [`${["Never+1", "OnFailure+0", "OnFailure+1", "Always+0"][i]}: ${r.reason}`]
            : []
        );
        assert.deepEqual(failures, [], failures.join("\n\n"));
      });
    } finally {
      await e2e.close();
    }
  },
});
