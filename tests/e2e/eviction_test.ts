/**
 * Eviction on the real containerd: a memory hog under a memory.available threshold set just
 * below what the node has is evicted (Failed / Evicted, message naming memory) while a
 * Guaranteed pod survives, and /node shows MemoryPressure turn true, then false after a short
 * --eviction-pressure-transition-period.
 *
 * Every pod of a standalone agent is static, and upstream never evicts static pods (they are
 * critical); the suite runs with denolet's --evict-static-pods opt-in. It needs the agent to
 * serve /stats/summary and /node (the lead's wiring): it fails with that message otherwise.
 */
import assert from "node:assert/strict";
import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { freePort, waitFor } from "../support/agent.ts";
import { type E2E, E2E_TEST, isRunning, setupE2E, shellPod } from "./_helpers.ts";
import { agentJson, nodeApiArgs } from "./_node_api.ts";

const MB = 1024 * 1024;
const HOG_MB = 1024;
/** The threshold sits this far below the node's available memory; the hog crosses it. */
const MARGIN_MB = 512;

/** The authenticated port: `/node` is not served on the read-only one. */
const API_PORT = freePort();

const getJson = <T>(e2e: E2E, path: string) => agentJson<T>(e2e.agent, API_PORT, path);

async function memoryAvailable(e2e: E2E): Promise<number> {
  type S = { node?: { memory?: { availableBytes?: number } } };
  return await waitFor(
    async () => (await getJson<S>(e2e, "/stats/summary"))?.node?.memory?.availableBytes,
    {
      timeoutMs: 60_000,
      what: "/stats/summary to report node.memory.availableBytes (is stats wired into the agent?)",
    },
  );
}

function memoryPressure(node: V1Node | undefined): string | undefined {
  return node?.status?.conditions?.find((c) => c.type === "MemoryPressure")?.status;
}

function hogPod(): V1Pod {
  // A memory-backed emptyDir: the tmpfs pages count in the container's working set.
  const p = shellPod(
    "evict-hog",
    `sleep 3; dd if=/dev/zero of=/mem/fill bs=1048576 count=${HOG_MB}; echo filled; sleep 3600`,
  );
  p.spec!.containers[0].volumeMounts = [{ name: "mem", mountPath: "/mem" }];
  p.spec!.volumes = [{ name: "mem", emptyDir: { medium: "Memory" } }];
  return p;
}

function guaranteedPod(): V1Pod {
  const p = shellPod("evict-guaranteed", "sleep 3600");
  p.spec!.containers[0].resources = {
    requests: { cpu: "50m", memory: "32Mi" },
    limits: { cpu: "50m", memory: "32Mi" },
  };
  return p;
}

Deno.test(
  "eviction: a memory hog is evicted, a Guaranteed pod survives, MemoryPressure comes and goes",
  E2E_TEST,
  async () => {
    // A first agent tells us the node's memory.available as the agent itself computes it.
    const probe = await setupE2E();
    let available: number;
    try {
      available = await memoryAvailable(probe);
    } finally {
      await probe.close();
    }
    const threshold = Math.floor(available - MARGIN_MB * MB);
    assert.ok(threshold > 100 * MB, `too little memory for this test (${available} bytes)`);

    const e2e = await setupE2E({
      extraArgs: [
        "--eviction-hard",
        `memory.available<${threshold}`,
        "--eviction-pressure-transition-period",
        "20s",
        "--evict-static-pods",
        ...nodeApiArgs(API_PORT),
      ],
    });
    try {
      const node = await getJson<V1Node>(e2e, "/node");
      assert.ok(node, "/node is not served: wire the node status into the agent");
      assert.equal(memoryPressure(node), "False", "no pressure before the hog");

      await e2e.writePod("guaranteed.yaml", guaranteedPod());
      await e2e.waitPod("evict-guaranteed", isRunning, { what: "Guaranteed pod running" });
      await e2e.writePod("hog.yaml", hogPod());

      let sawPressure = false;
      const evicted = await waitFor(async () => {
        sawPressure ||= memoryPressure(await getJson<V1Node>(e2e, "/node")) === "True";
        const p = await e2e.pod("evict-hog");
        return p?.status?.phase === "Failed" ? p : undefined;
      }, { timeoutMs: 120_000, intervalMs: 500, what: "the hog to be evicted" });
      assert.equal(evicted.status?.reason, "Evicted");
      assert.match(evicted.status?.message ?? "", /^The node was low on resource: memory\. /);
      assert.match(
        evicted.status?.message ?? "",
        /Threshold quantity: \d+\w*, available: \d+\w*\./,
      );

      // The condition holds for the transition period after the eviction relieved it.
      sawPressure ||= memoryPressure(await getJson<V1Node>(e2e, "/node")) === "True";
      assert.ok(sawPressure, "/node never showed MemoryPressure=True");
      await waitFor(async () => memoryPressure(await getJson<V1Node>(e2e, "/node")) === "False", {
        timeoutMs: 90_000,
        intervalMs: 1000,
        what: "MemoryPressure to return to False after the 20s transition period",
      });

      const survivor = await e2e.pod("evict-guaranteed");
      assert.ok(survivor && isRunning(survivor), "the Guaranteed pod survived");
      // After its termination finished (the containers are dead), the pod keeps what the
      // eviction recorded: Failed/Evicted and the DisruptionTarget condition.
      const hog = await waitFor(async () => {
        const p = await e2e.pod("evict-hog");
        const dead = (p?.status?.containerStatuses ?? []).every((c) => c.state?.terminated);
        return dead ? p : undefined;
      }, { timeoutMs: 60_000, what: "the evicted hog's containers to be terminated" });
      assert.equal(hog?.status?.phase, "Failed", "an evicted static pod stays Failed");
      assert.equal(hog?.status?.reason, "Evicted");
      const disruption = hog?.status?.conditions?.find((c) => c.type === "DisruptionTarget");
      assert.equal(disruption?.status, "True", JSON.stringify(hog?.status?.conditions));
      assert.equal(disruption?.reason, "TerminationByKubelet");
    } finally {
      await e2e.close();
    }
  },
);
