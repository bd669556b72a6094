/**
 * --manifest-url: the agent polls an HTTP endpoint (with the configured headers) for a pod
 * manifest, replaces the pod when the manifest changes, and keeps it when the server fails.
 */
import assert from "node:assert/strict";
import { stringify as toYaml } from "yaml";
import type { V1Pod } from "@kubernetes/client-node";
import { waitFor } from "../support/agent.ts";
import { containerStatus, type E2E, E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";

interface Problem {
  source: string;
  path: string;
  reason: string;
}

const served = (text: string): V1Pod =>
  shellPod("urlpod", `echo ${text}; trap 'exit 0' TERM; while true; do sleep 1; done`);

Deno.test({
  name: "url source: a served manifest runs, changes replace the pod, a 500 keeps it",
  ...E2E_TEST,
  async fn(t) {
    let manifest = toYaml(served("first-version"));
    let failWith500 = false;
    const seen: { token: string | null }[] = [];
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req) => {
        const token = req.headers.get("X-Token");
        seen.push({ token });
        if (token !== "abc") return new Response("missing token", { status: 401 });
        if (failWith500) return new Response("boom", { status: 500 });
        return new Response(manifest, { headers: { "content-type": "application/yaml" } });
      },
    );
    const url = `http://127.0.0.1:${server.addr.port}/pod.yaml`;
    let e2e: E2E | undefined;
    try {
      e2e = await setupE2E({
        manifestURL: url,
        extraArgs: ["--manifest-url-header", "X-Token:abc", "--http-check-frequency", "2s"],
      });
      const env = e2e;
      const first = await env.waitPod("urlpod", isRunning, { what: "urlpod Running" });

      await t.step("the served pod runs, named for the node, from source http", async () => {
        assert.equal(first.metadata?.name, `urlpod-${env.agent.hostname}`);
        assert.equal(first.metadata?.annotations?.["kubernetes.io/config.source"], "http");
        assert.ok(first.metadata?.annotations?.["kubernetes.io/config.hash"]);
        assert.ok(seen.length > 0, "the server was polled");
        assert.deepEqual(seen.filter((s) => s.token !== "abc"), [], "every request had the header");
        await env.waitLog(first, "main", ["first-version"]);
      });

      await t.step("changing the served manifest replaces the pod", async () => {
        const oldUid = first.metadata?.uid ?? "";
        manifest = toYaml(served("second-version"));
        const next = await env.waitPod(
          "urlpod",
          (p) => p.metadata?.uid !== oldUid && isRunning(p),
          { what: "urlpod replaced with a new uid" },
        );
        await env.waitLog(next, "main", ["second-version"]);
        await waitFor(async () => (await env.sandboxes(oldUid)).length === 0, {
          what: `the old urlpod sandbox (uid ${oldUid}) to be removed`,
          timeoutMs: 60_000,
        });
      });

      await t.step("a 500 from the server keeps the pod and reports a problem", async () => {
        const before = await env.waitPod("urlpod", isRunning, { what: "urlpod Running" });
        const requestsBefore = seen.length;
        failWith500 = true;
        const problem = await waitFor(async () => {
          const res = await env.agent.get("/sources");
          const body = (await res.json()) as { problems: Problem[] };
          return body.problems.find((p) => p.source === "http");
        }, { what: "/sources to report the failing URL", timeoutMs: 15_000 });
        assert.equal(problem.path, url);
        assert.match(problem.reason, /500/);
        assert.ok(seen.length > requestsBefore, "the agent kept polling");
        // A couple more polls: the pod must stay as it was.
        await waitFor(() => seen.length >= requestsBefore + 3, {
          what: "three more polls of the failing URL",
          timeoutMs: 15_000,
        });
        const after = await env.waitPod("urlpod", isRunning, { what: "urlpod still Running" });
        assert.equal(after.metadata?.uid, before.metadata?.uid);
        assert.equal(
          containerStatus(after, "main")?.containerID,
          containerStatus(before, "main")?.containerID,
        );
        assert.equal(containerStatus(after, "main")?.restartCount, 0);
      });
    } finally {
      await e2e?.close();
      await server.shutdown();
    }
  },
});
