/**
 * One manifest can never take the agent down (issue 9, point 1): with every hostile entry in the
 * manifest directory and an alias bomb behind --manifest-url, the agent stays up, each bad entry
 * is listed on /sources with its reason, and the good pods keep their containers.
 */
import assert from "node:assert/strict";
import { stringify as toYaml } from "yaml";
import { freePort, waitFor } from "../support/agent.ts";
import { aliasBomb, writeHostileEntries } from "../sources/_support.ts";
import { containerStatus, type E2E, E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";
import { nodeApiArgs, nodeApiGet } from "./_node_api.ts";

/** The authenticated port: `/sources` is not served on the read-only one. */
const API_PORT = freePort();

interface Problem {
  source: string;
  path: string;
  reason: string;
}

const loop = (name: string) =>
  shellPod(name, `echo ${name}; trap 'exit 0' TERM; while true; do sleep 1; done`);

async function problems(e2e: E2E): Promise<Problem[]> {
  const res = await nodeApiGet(e2e.agent, API_PORT, "/sources");
  return ((await res.json()) as { problems: Problem[] }).problems;
}

/** Polls for `ms`: the pod must stay Running with the same container all along. */
async function holdsFor(e2e: E2E, name: string, containerID: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const pod = await e2e.waitPod(name, isRunning, { what: `${name} Running` });
    assert.equal(containerStatus(pod, "main")?.containerID, containerID, `${name}: same container`);
    assert.equal(containerStatus(pod, "main")?.restartCount, 0, `${name}: not restarted`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

Deno.test({
  name: "hostile manifests: the agent stays up, /sources lists each bad entry, good pods run on",
  ...E2E_TEST,
  async fn(t) {
    let body = aliasBomb();
    let requests = 0;
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
      requests++;
      return new Response(body);
    });
    const url = `http://127.0.0.1:${server.addr.port}/pods.yaml`;
    let e2e: E2E | undefined;
    try {
      // The URL serves an alias bomb from the very first poll: that alone used to end the agent.
      e2e = await setupE2E({
        manifestURL: url,
        extraArgs: ["--http-check-frequency", "1s", ...nodeApiArgs(API_PORT)],
      });
      const env = e2e;
      let exited = false;
      void env.agent.exited.then(() => (exited = true));

      await t.step(
        "an alias bomb at the URL from the start is logged; the agent stays up",
        async () => {
          await waitFor(() => requests >= 3, { what: "three polls of the URL", timeoutMs: 30_000 });
          const log = await Deno.readTextFile(env.agent.logFile);
          assert.match(log, /level=warn msg="Failed to read pods from URL".*excessive aliasing/);
          const health = await env.agent.get("/healthz");
          await health.body?.cancel();
          assert.equal(health.status, 200);
        },
      );

      await env.writePod("good.yaml", loop("good"));
      body = toYaml(loop("urlgood"));
      const [good, urlGood] = await Promise.all(
        ["good", "urlgood"].map((n) => env.waitPod(n, isRunning, { what: `${n} Running` })),
      );
      const goodId = containerStatus(good, "main")?.containerID ?? "";
      const urlGoodId = containerStatus(urlGood, "main")?.containerID ?? "";
      assert.ok(goodId && urlGoodId);

      await t.step("every hostile entry is listed on /sources with its reason", async () => {
        const expected = await writeHostileEntries(env.agent.manifestDir);
        body = aliasBomb();
        const listed = await waitFor(async () => {
          const all = await problems(env);
          const byPath = new Map(all.map((p) => [p.path, p]));
          const done = [...expected.keys()].every((n) =>
            byPath.has(`${env.agent.manifestDir}/${n}`)
          ) &&
            byPath.has(url);
          return done ? byPath : undefined;
        }, { what: "/sources to list every hostile entry and the URL", timeoutMs: 30_000 });
        for (const [name, reason] of expected) {
          const p = listed.get(`${env.agent.manifestDir}/${name}`)!;
          assert.equal(p.source, "file", name);
          assert.match(p.reason, reason, name);
        }
        assert.equal(listed.get(url)!.source, "http");
        assert.match(listed.get(url)!.reason, /excessive aliasing/);
      });

      await t.step("the good pods keep their containers while the bad entries stay", async () => {
        await holdsFor(env, "good", goodId, 8_000);
        await holdsFor(env, "urlgood", urlGoodId, 2_000);
        const log = await Deno.readTextFile(env.agent.logFile);
        assert.doesNotMatch(log, /Unhandled promise rejection|denolet failed/);
        assert.doesNotMatch(log, /Pod removed from its source/);
        assert.equal(exited, false, "the agent process is still running");
      });
    } finally {
      await e2e?.close();
      await server.shutdown();
    }
  },
});
