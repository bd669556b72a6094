import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { handleContainerLogs } from "../../src/server/logs/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";

const POD: V1Pod = {
  metadata: { namespace: "default", name: "web", uid: "u1" },
  spec: { containers: [{ name: "main", image: "busybox" }] },
  status: {
    containerStatuses: [{
      name: "main",
      image: "busybox",
      imageID: "",
      ready: true,
      restartCount: 0,
      containerID: "containerd://c1",
      state: { running: { startedAt: new Date(0) } },
    }],
  },
};

/** Whether `p` settles while only microtasks run (no event-loop turn). */
async function settlesWithinMicrotasks(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(() => settled = true, () => settled = true);
  for (let i = 0; i < 1000 && !settled; i++) await Promise.resolve();
  return settled;
}

Deno.test("containerLogs: the body ends an event-loop turn after its last bytes, so the end is written apart from them", async () => {
  // The API server's websocket log stream drops bytes that a Go read returns together with EOF.
  const dir = await Deno.makeTempDir({ prefix: "denolet-logs-end-" });
  try {
    await Deno.writeTextFile(`${dir}/0.log`, "2026-01-01T00:00:01Z stdout F container is alive\n");
    const res = await handleContainerLogs(
      {
        pods: () => [POD],
        runtime: {
          containerStatus: () =>
            Promise.resolve({ logPath: `${dir}/0.log`, state: "CONTAINER_RUNNING" } as never),
        },
        clock: new FakeClock(),
        logger: nullLogger,
      },
      new Request("https://node/containerLogs/default/web/main"),
      {
        namespace: "default",
        pod: "web",
        container: "main",
      },
    );
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.equal(new TextDecoder().decode(first.value), "container is alive\n");
    const end = reader.read();
    assert.equal(await settlesWithinMicrotasks(end), false, "the end followed the data at once");
    assert.deepEqual(await end, { done: true, value: undefined });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
