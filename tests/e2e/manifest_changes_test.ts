/**
 * The manifest directory is the desired state: removing a file removes its pod, changing it
 * replaces the pod, and a broken file is reported without disturbing the other pods.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { realClock } from "../../src/util/clock.ts";
import { freePort, waitFor } from "../support/agent.ts";
import { nodeApiArgs, nodeApiGet } from "./_node_api.ts";
import {
  containerStatus,
  E2E_TEST,
  isRunning,
  pathExists,
  setupE2E,
  shellPod,
  time,
} from "./_helpers.ts";

interface Problem {
  source: string;
  path: string;
  reason: string;
  /** RFC 3339, like every time on the node API. */
  seenAt: string;
}

const REMOVAL_TIMEOUT_MS = 60_000;

const longRunning = (name: string, text = name) =>
  shellPod(name, `echo ${text}; trap 'exit 0' TERM; while true; do sleep 1; done`);

Deno.test({
  name: "manifest changes: removal stops the pod, an edit replaces it, broken files are reported",
  ...E2E_TEST,
  async fn(t) {
    // /sources is denolet's own path, on the authenticated port only.
    const apiPort = freePort();
    const e2e = await setupE2E({ extraArgs: nodeApiArgs(apiPort) });
    const problems = async (): Promise<Problem[]> => {
      const res = await nodeApiGet(e2e.agent, apiPort, "/sources");
      assert.equal(res.status, 200, "/sources answers 200");
      return ((await res.json()) as { problems: Problem[] }).problems;
    };
    try {
      await e2e.writePod("keeper.yaml", longRunning("keeper"));
      await e2e.writePod("victim.yaml", longRunning("victim"));
      await e2e.writePod("changer.yaml", longRunning("changer", "version-one"));
      const [keeper, victim, changer] = await Promise.all(
        ["keeper", "victim", "changer"].map((n) =>
          e2e.waitPod(n, isRunning, { what: `pod ${n} to be Running` })
        ),
      );
      const keeperId = containerStatus(keeper, "main")?.containerID;
      assert.ok(keeperId, "keeper has a container id");

      await t.step("removing a file stops and removes its pod", async () => {
        const uid = victim.metadata?.uid ?? "";
        assert.equal((await e2e.sandboxes(uid)).length, 1, "victim has a sandbox");
        assert.ok(await pathExists(e2e.podLogDir(victim)), "victim has a log directory");
        await e2e.removeManifest("victim.yaml");
        await waitFor(async () => !(await e2e.pod("victim")), {
          what: "victim to leave /pods",
          timeoutMs: 30_000,
        });
        await waitFor(async () => (await e2e.sandboxes(uid)).length === 0, {
          what: `no sandbox labelled with victim's uid ${uid}`,
          timeoutMs: REMOVAL_TIMEOUT_MS,
        });
        await waitFor(async () => !(await pathExists(e2e.podLogDir(victim))), {
          what: `victim's log directory ${e2e.podLogDir(victim)} to be removed`,
          timeoutMs: REMOVAL_TIMEOUT_MS,
        });
      });

      await t.step("changing a file replaces the pod", async () => {
        const oldUid = changer.metadata?.uid ?? "";
        await e2e.writePod("changer.yaml", longRunning("changer", "version-two"));
        const next = await e2e.waitPod(
          "changer",
          (p) => p.metadata?.uid !== oldUid && isRunning(p),
          { what: "changer to come back with a new uid, Running" },
        );
        const newUid = next.metadata?.uid ?? "";
        assert.notEqual(
          next.metadata?.annotations?.["kubernetes.io/config.hash"],
          changer.metadata?.annotations?.["kubernetes.io/config.hash"],
        );
        await waitFor(async () => (await e2e.sandboxes(oldUid)).length === 0, {
          what: `the old changer sandbox (uid ${oldUid}) to be removed`,
          timeoutMs: REMOVAL_TIMEOUT_MS,
        });
        const sandboxes = await e2e.sandboxes(newUid);
        assert.deepEqual(sandboxes.map((s) => s.state), ["SANDBOX_READY"]);
        const log = await e2e.waitLog(next, "main", ["version-two"]);
        assert.ok(!log.includes("version-one"), "the new pod has its own log");
        const list = (await e2e.agent.pods()).items.filter((p) =>
          p.metadata?.name === e2e.podName("changer")
        );
        assert.equal(list.length, 1, "only one changer pod in /pods");
      });

      await t.step("malformed files are reported and leave other pods alone", async () => {
        const before = await e2e.waitPod("keeper", isRunning, { what: "keeper Running" });
        await e2e.writeRaw(
          "broken.yaml",
          "apiVersion: v1\nkind: Pod\nmetadata: [unclosed\n  name: x\n",
        );
        const invalid: V1Pod = {
          apiVersion: "v1",
          kind: "Pod",
          metadata: { name: "invalid" },
          spec: { containers: [] },
        };
        await e2e.writePod("invalid.yaml", invalid);
        const brokenPath = `${e2e.agent.manifestDir}/broken.yaml`;
        const invalidPath = `${e2e.agent.manifestDir}/invalid.yaml`;
        const reported = await waitFor(async () => {
          const ps = await problems();
          const b = ps.find((p) => p.path === brokenPath);
          const i = ps.find((p) => p.path === invalidPath);
          return b && i ? { b, i } : undefined;
        }, { what: "/sources to report broken.yaml and invalid.yaml", timeoutMs: 20_000 });
        for (const p of [reported.b, reported.i]) {
          assert.equal(p.source, "file");
          assert.ok(p.reason.length > 0, `a reason for ${p.path}`);
          assert.ok(time(p.seenAt) > 0, "seenAt is a time");
        }
        assert.match(reported.i.reason, /containers/i, "the reason names the invalid field");
        const log = await Deno.readTextFile(e2e.agent.logFile);
        assert.ok(log.includes(brokenPath), "the agent log names broken.yaml");
        assert.ok(log.includes(invalidPath), "the agent log names invalid.yaml");
        assert.equal(await e2e.pod("invalid"), undefined, "no pod for an invalid manifest");

        // Several file checks and a sync pass: the keeper must not be restarted or replaced.
        await realClock.sleep(6_000);
        const after = await e2e.waitPod("keeper", isRunning, { what: "keeper still Running" });
        assert.equal(after.metadata?.uid, before.metadata?.uid);
        assert.equal(containerStatus(after, "main")?.containerID, keeperId);
        assert.equal(containerStatus(after, "main")?.restartCount, 0);
      });

      await t.step("fixing the files starts their pods and clears the problems", async () => {
        await e2e.writePod("broken.yaml", longRunning("broken"));
        const fixed = shellPod("invalid", "echo fixed; while true; do sleep 1; done");
        await e2e.writePod("invalid.yaml", fixed);
        await Promise.all(
          ["broken", "invalid"].map((n) => e2e.waitPod(n, isRunning, { what: `pod ${n} Running` })),
        );
        await waitFor(async () => (await problems()).length === 0, {
          what: "/sources problems to clear",
          timeoutMs: 10_000,
        });
        const keeperNow = await e2e.pod("keeper");
        assert.equal(containerStatus(keeperNow ?? {}, "main")?.containerID, keeperId);
      });
    } finally {
      await e2e.close();
    }
  },
});
