/**
 * A manifest directory renamed away for a moment kills nothing (issue 9, point 14). As upstream,
 * the rename of the watched directory itself is ignored and only the periodic read may drop the
 * pods of a missing path; here that read is far off, so the pods must keep their containers, the
 * missing path is logged as a warning, and the directory is watched again once it is back.
 */
import assert from "node:assert/strict";
import { containerStatus, type E2E, E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";

const loop = (name: string) =>
  shellPod(name, `echo ${name}; trap 'exit 0' TERM; while true; do sleep 1; done`);

Deno.test({
  name: "manifest dir renamed away for 5 s and back: same containers, a warning in the log",
  ...E2E_TEST,
  async fn(t) {
    let e2e: E2E | undefined;
    let away: string | undefined;
    try {
      // Only the watch can bring manifests in quickly: the periodic read is 10 minutes away.
      e2e = await setupE2E({ extraArgs: ["--file-check-frequency", "10m"] });
      const env = e2e;
      const dir = env.agent.manifestDir;
      await env.writePod("one.yaml", loop("one"));
      await env.writePod("two.yaml", loop("two"));
      const before = await Promise.all(
        ["one", "two"].map((n) => env.waitPod(n, isRunning, { what: `${n} Running` })),
      );
      const ids = before.map((p) => containerStatus(p, "main")?.containerID);
      assert.ok(ids.every(Boolean));

      await t.step("while the directory is away its pods keep running", async () => {
        away = `${dir}.away`;
        await Deno.rename(dir, away);
        const until = Date.now() + 5_000;
        while (Date.now() < until) {
          for (const [i, name] of ["one", "two"].entries()) {
            const pod = await env.waitPod(name, isRunning, { what: `${name} Running` });
            assert.equal(
              containerStatus(pod, "main")?.containerID,
              ids[i],
              `${name}: same container`,
            );
          }
          await new Promise((r) => setTimeout(r, 500));
        }
        await Deno.rename(away, dir);
        away = undefined;
      });

      await t.step(
        "back in place: same containers, not restarted; a warning was logged",
        async () => {
          // Give the agent time to see the directory again (and to act on it, if it wrongly would).
          await env.writePod("three.yaml", loop("three"));
          await env.waitPod("three", isRunning, {
            what: "a manifest written after the move back to run (the watch is re-established)",
          });
          for (const [i, name] of ["one", "two"].entries()) {
            const pod = await env.waitPod(name, isRunning, { what: `${name} Running` });
            assert.equal(
              containerStatus(pod, "main")?.containerID,
              ids[i],
              `${name}: same container`,
            );
            assert.equal(containerStatus(pod, "main")?.restartCount, 0, `${name}: not restarted`);
            assert.equal(pod.metadata?.uid, before[i].metadata?.uid, `${name}: same uid`);
          }
          const log = await Deno.readTextFile(env.agent.logFile);
          const warning = log.split("\n").filter((l) =>
            l.includes('level=warn msg="Static pod path does not exist')
          );
          assert.equal(warning.length, 1, "one warning for the one disappearance");
          assert.ok(warning[0].includes(`path=${dir}`), warning[0]);
          assert.doesNotMatch(log, /Pod removed from its source/);
        },
      );
    } finally {
      if (away) await Deno.rename(away, e2e!.agent.manifestDir);
      await e2e?.close();
    }
  },
});
