/**
 * Static pod lifecycles that upstream guards and a production node relies on: a replaced pod
 * never overlaps its predecessor, a remove/re-add/remove inside the grace period leaves nothing
 * running, and --max-pods refuses what does not fit.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { freePort, waitFor } from "../support/agent.ts";
import { E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";
import { nodeApiArgs, nodeApiGet } from "./_node_api.ts";

/** A pod that appends to a host file when it starts and, `stopSeconds` after SIGTERM, when it ends. */
function journalPod(name: string, opts: { tag: string; dir: string; stopSeconds: number }): V1Pod {
  const { tag, stopSeconds } = opts;
  const script = `echo ${tag}-start >> /shared/journal; ` +
    `trap 'sleep ${stopSeconds}; echo ${tag}-end >> /shared/journal; exit 0' TERM; ` +
    `while true; do sleep 1; done`;
  const pod = shellPod(name, script, {
    terminationGracePeriodSeconds: 30,
    volumes: [{ name: "shared", hostPath: { path: opts.dir, type: "Directory" } }],
  });
  pod.spec!.containers[0].volumeMounts = [{ name: "shared", mountPath: "/shared" }];
  return pod;
}

async function journal(dir: string): Promise<string[]> {
  try {
    return (await Deno.readTextFile(`${dir}/journal`)).split("\n").filter((l) => l !== "");
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
}

Deno.test({
  name: "a changed static pod (hostPort) starts only after the old one's process has ended",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    const dir = `${e2e.tmp}/shared`;
    await Deno.mkdir(dir, { mode: 0o777 });
    await Deno.chmod(dir, 0o777);
    const hostPort = freePort();
    const withPort = (p: V1Pod) => {
      p.spec!.containers[0].ports = [{ containerPort: 8080, hostPort, protocol: "TCP" }];
      return p;
    };
    try {
      await e2e.writePod(
        "etcd.yaml",
        withPort(journalPod("etcd", { tag: "v1", dir, stopSeconds: 4 })),
      );
      const first = await e2e.waitPod("etcd", isRunning, { what: "v1 Running" });
      await e2e.writePod(
        "etcd.yaml",
        withPort(journalPod("etcd", { tag: "v2", dir, stopSeconds: 1 })),
      );
      await e2e.waitPod("etcd", (p) => p.metadata?.uid !== first.metadata?.uid && isRunning(p), {
        what: "v2 Running under a new uid",
        timeoutMs: 90_000,
      });
      await waitFor(async () => (await journal(dir)).includes("v2-start"), {
        what: "v2 to write its start line",
      });
      assert.deepEqual(await journal(dir), ["v1-start", "v1-end", "v2-start"]);
      assert.equal(
        (await e2e.sandboxes(first.metadata!.uid!)).filter((s) => s.state === "SANDBOX_READY")
          .length,
        0,
        "the old sandbox is gone",
      );
    } finally {
      await e2e.close();
    }
  },
});

Deno.test({
  name: "remove, re-add, remove within the grace period leaves nothing running",
  ...E2E_TEST,
  async fn() {
    const e2e = await setupE2E();
    const dir = `${e2e.tmp}/shared`;
    await Deno.mkdir(dir, { mode: 0o777 });
    await Deno.chmod(dir, 0o777);
    const manifest = journalPod("flicker", { tag: "f", dir, stopSeconds: 6 });
    try {
      await e2e.writePod("flicker.yaml", manifest);
      const running = await e2e.waitPod("flicker", isRunning, { what: "flicker Running" });
      const uid = running.metadata!.uid!;
      await e2e.removeManifest("flicker.yaml");
      await new Promise((r) => setTimeout(r, 1500));
      await e2e.writePod("flicker.yaml", manifest);
      await new Promise((r) => setTimeout(r, 1500));
      await e2e.removeManifest("flicker.yaml");
      await waitFor(async () => (await journal(dir)).includes("f-end"), {
        what: "the first termination to finish",
        timeoutMs: 60_000,
      });
      await waitFor(async () => (await e2e.sandboxes(uid)).length === 0, {
        what: `no sandbox of ${uid} left`,
        timeoutMs: 60_000,
      });
      // Long enough for a wrongly kept re-add to have started the pod again.
      await new Promise((r) => setTimeout(r, 8000));
      assert.equal(await e2e.pod("flicker"), undefined, "no pod without a manifest");
      assert.equal((await e2e.sandboxes(uid)).length, 0, "no sandbox came back");
      assert.deepEqual(await journal(dir), ["f-start", "f-end"]);
    } finally {
      await e2e.close();
    }
  },
});

Deno.test({
  name: "--max-pods admits that many pods; the rest are Failed with OutOfpods",
  ...E2E_TEST,
  async fn() {
    const apiPort = freePort();
    const e2e = await setupE2E({ extraArgs: ["--max-pods", "3", ...nodeApiArgs(apiPort)] });
    const names = ["mp-1", "mp-2", "mp-3", "mp-4", "mp-5"];
    try {
      for (const n of names) {
        await e2e.writePod(`${n}.yaml`, shellPod(n, "while true; do sleep 1; done"));
      }
      const pods = await waitFor(async () => {
        const all = await Promise.all(names.map((n) => e2e.pod(n)));
        const running = all.filter((p) => p && isRunning(p));
        const refused = all.filter((p) => p?.status?.reason === "OutOfpods");
        return running.length === 3 && refused.length === 2 ? all : undefined;
      }, { what: "3 pods Running and 2 refused with OutOfpods", timeoutMs: 90_000 });
      for (const p of pods.filter((p) => p?.status?.reason === "OutOfpods")) {
        assert.equal(p?.status?.phase, "Failed");
        assert.equal(
          p?.status?.message,
          "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
        );
        assert.equal((await e2e.sandboxes(p!.metadata!.uid!)).length, 0, "never started");
      }
      const node = (await (await nodeApiGet(e2e.agent, apiPort, "/node")).json()) as V1Node;
      assert.equal(node.status?.capacity?.pods, "3");
    } finally {
      await e2e.close();
    }
  },
});
