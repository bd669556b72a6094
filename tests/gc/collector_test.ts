import assert from "node:assert/strict";
import { LABEL_CONTAINER_NAME, LABEL_NODE_NAME, LABEL_POD_UID } from "../../src/runtime/mod.ts";
import { collector, container, IMAGE, NODE, sandbox, setup } from "./_fixtures.ts";

const MB = 1_000_000;

/** Lets the loops' promise chains settle without moving the clock. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
}

Deno.test("GarbageCollector.run collects at once, then once per period (upstream wait.Until)", async () => {
  const env = setup();
  const { cri, clock } = env;
  cri.addImage("docker.io/library/unused:1", { id: "sha256:unused", size: 10 * MB });
  const sb = await sandbox(cri, "u1");
  for (let attempt = 0; attempt < 3; attempt++) {
    await container(cri, sb, { uid: "u1", name: "c", attempt, exit: true });
    await clock.advance(1000);
  }
  const gc = collector({ cri, clock }, {
    containerPolicy: { maxPerPodContainer: 1 },
    imagePolicy: { highThresholdPercent: 1, lowThresholdPercent: 0, minAgeMs: 0 },
    fsStats: () => Promise.resolve({ capacityBytes: 100 * MB, availableBytes: 50 * MB }),
    periods: { containersMs: 60_000, imagesMs: 300_000, logsMs: 10_000 },
  });
  const ac = new AbortController();
  const running = gc.run({ signal: ac.signal });
  await settle();
  // Without any time passing: the dead containers are trimmed and the unused image is gone.
  const dead = (await cri.listContainers({})).filter((c) => c.state !== "CONTAINER_RUNNING");
  assert.equal(dead.length, 1, "container GC ran at start-up");
  const images = (await cri.listImages()).map((i) => i.id);
  assert.ok(!images.includes("sha256:unused"), "image GC ran at start-up");

  // The next container round waits for its period.
  await container(cri, sb, { uid: "u1", name: "c", attempt: 3, exit: true });
  await clock.advance(59_000);
  assert.equal(
    (await cri.listContainers({})).filter((c) => c.state !== "CONTAINER_RUNNING").length,
    2,
  );
  await clock.advance(1000);
  await settle();
  assert.equal(
    (await cri.listContainers({})).filter((c) => c.state !== "CONTAINER_RUNNING").length,
    1,
  );
  ac.abort();
  await running;
});

Deno.test("container GC removes a dead container's log and its rotations, not its siblings'", async () => {
  const { cri, clock } = setup();
  const dir = await Deno.makeTempDir({ prefix: "denolet-gc-logs-" });
  try {
    await Deno.mkdir(`${dir}/c`);
    const sandboxConfig = {
      metadata: { name: "u1", uid: "u1", namespace: "default", attempt: 0 },
      labels: { [LABEL_NODE_NAME]: NODE, [LABEL_POD_UID]: "u1" },
      logDirectory: dir,
    };
    const sb = await cri.runPodSandbox(sandboxConfig);
    const ids: string[] = [];
    for (const attempt of [0, 1]) {
      const id = await cri.createContainer(sb, {
        metadata: { name: "c", attempt },
        image: { image: IMAGE },
        labels: {
          [LABEL_NODE_NAME]: NODE,
          [LABEL_POD_UID]: "u1",
          [LABEL_CONTAINER_NAME]: "c",
        },
        logPath: `c/${attempt}.log`,
      }, sandboxConfig);
      await cri.startContainer(id);
      cri.exitContainer(id, 1);
      ids.push(id);
      await clock.advance(1000);
    }
    const files = ["0.log", "0.log.20260101-000000.gz", "0.log.20260101-000010", "1.log", "10.log"];
    for (const f of files) await Deno.writeTextFile(`${dir}/c/${f}`, "x\n");
    const gc = collector({ cri, clock }, {
      containerPolicy: { maxPerPodContainer: 1 },
    });
    assert.deepEqual(await gc.collectContainers(), { containers: 1, sandboxes: 0 });
    assert.ok(!cri.containers.has(ids[0]) && cri.containers.has(ids[1]));
    const left = (await Array.fromAsync(Deno.readDir(`${dir}/c`))).map((e) => e.name).sort();
    assert.deepEqual(left, ["1.log", "10.log"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
