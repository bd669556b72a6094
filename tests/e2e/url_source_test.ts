/**
 * --manifest-url: the agent polls an HTTP endpoint (with the configured headers) for a pod
 * manifest, replaces the pod when the manifest changes, and keeps it when the server fails;
 * an agent restarted while the server is down touches none of the pods it served.
 */
import assert from "node:assert/strict";
import { stringify as toYaml } from "yaml";
import type { V1Pod } from "@kubernetes/client-node";
import { freePort, waitFor } from "../support/agent.ts";
import {
  containerStatus,
  type E2E,
  E2E_TEST,
  isRunning,
  POD_UID_LABEL,
  setupE2E,
  shellPod,
} from "./_helpers.ts";
import { closeRestartAgents } from "./_restart.ts";
import { nodeApiArgs, nodeApiGet } from "./_node_api.ts";

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
    // `/sources` is served on the authenticated port only.
    const apiPort = freePort();
    try {
      e2e = await setupE2E({
        manifestURL: url,
        extraArgs: [
          "--manifest-url-header",
          "X-Token:abc",
          "--http-check-frequency",
          "2s",
          ...nodeApiArgs(apiPort),
        ],
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
          const res = await nodeApiGet(env.agent, apiPort, "/sources");
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

/** A manifest server that can go down and come back on the same port. */
function restartableServer(manifest: () => string) {
  let requests = 0;
  const handler = () => {
    requests++;
    return new Response(manifest());
  };
  let server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const port = server.addr.port;
  let up = true;
  return {
    url: `http://127.0.0.1:${port}/pod.yaml`,
    get requests() {
      return requests;
    },
    async down() {
      if (!up) return;
      up = false;
      await server.shutdown();
    },
    up() {
      if (up) return;
      server = Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, handler);
      up = true;
    },
  };
}

Deno.test({
  name: "url source: an agent restarted while the URL is down removes and restarts nothing",
  ...E2E_TEST,
  async fn(t) {
    const manifest = toYaml(served("adopt-me"));
    const server = restartableServer(() => manifest);
    const base = await Deno.makeTempDir({ prefix: "denolet-e2e-url-restart-" });
    const shared = {
      hostname: `e2e-url-restart-${Deno.pid}`,
      rootDir: `${base}/root`,
      manifestDir: `${base}/manifests`,
      podLogsDir: `${base}/pods`,
      manifestURL: server.url,
      extraArgs: ["--http-check-frequency", "1s"],
    };
    await Deno.mkdir(shared.manifestDir, { recursive: true });
    let first: E2E | undefined;
    let second: E2E | undefined;
    try {
      first = await setupE2E({ ...shared, removePodsOnStop: false });
      const before = await first.waitPod("urlpod", isRunning, { what: "urlpod Running" });
      const uid = before.metadata?.uid ?? "";
      const containerID = containerStatus(before, "main")?.containerID ?? "";
      assert.ok(uid && containerID);
      const sandboxIds = (await first.sandboxes(uid)).map((s) => s.id);
      assert.equal(sandboxIds.length, 1);
      const runningContainers = async () =>
        (await second!.cri.runtime.listContainers({ labelSelector: { [POD_UID_LABEL]: uid } }))
          .filter((c) => c.state === "CONTAINER_RUNNING")
          .map((c) => `containerd://${c.id}`);

      await t.step("restart with the URL down: the pod's sandbox and container stay", async () => {
        first!.agent.kill("SIGKILL");
        await first!.agent.exited;
        await first!.close({ keepState: true });
        first = undefined;
        await server.down();

        second = await setupE2E(shared);
        const env = second;
        // Housekeeping runs every 2 s and the URL is polled every second: an agent that took
        // the failed read for "no pods" would have removed the sandbox well within this time.
        const until = Date.now() + 12_000;
        while (Date.now() < until) {
          assert.deepEqual(await runningContainers(), [containerID], "the container keeps running");
          assert.deepEqual((await env.sandboxes(uid)).map((s) => s.id), sandboxIds, "same sandbox");
          await new Promise((r) => setTimeout(r, 500));
        }
        const log = await Deno.readTextFile(env.agent.logFile);
        assert.match(log, /level=warn msg="Failed to read pods from URL"/);
        assert.doesNotMatch(log, /Removing|Killing/i, "nothing was stopped or removed");
      });

      await t.step("the URL comes back: the pod is adopted, nothing restarts", async () => {
        const env = second!;
        const polled = server.requests;
        server.up();
        await waitFor(() => server.requests > polled, {
          what: "a poll of the URL",
          timeoutMs: 15_000,
        });
        const adopted = await env.waitPod("urlpod", isRunning, { what: "urlpod Running again" });
        assert.equal(adopted.metadata?.uid, uid, "same pod uid");
        assert.equal(containerStatus(adopted, "main")?.containerID, containerID, "same container");
        assert.equal(containerStatus(adopted, "main")?.restartCount, 0);
        // A few sync passes later, still the same container and sandbox.
        await waitFor(() => server.requests >= polled + 5, {
          what: "five more polls of the URL",
          timeoutMs: 20_000,
        });
        const again = await env.waitPod("urlpod", isRunning, { what: "urlpod Running" });
        assert.equal(containerStatus(again, "main")?.containerID, containerID);
        assert.deepEqual((await env.sandboxes(uid)).map((s) => s.id), sandboxIds);
      });
    } finally {
      await closeRestartAgents({ first, second, base, removeSandboxesOf: shared.hostname });
      await server.down();
    }
  },
});
