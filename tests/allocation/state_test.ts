/**
 * The allocation checkpoints in the upstream kubelet's format: a file upstream wrote reads, what
 * is written carries upstream's checksum, a state survives a restart, a corrupt file stops the
 * start with upstream's advice, and removals ride on the next write.
 */
import assert from "node:assert/strict";
import { kubeletChecksum } from "../../src/checkpoint/mod.ts";
import { PodResourceState } from "../../src/allocation/mod.ts";
import { nullLogger } from "../../src/util/log.ts";

// From upstream's state_checkpoint_test.go (Test_stateCheckpoint_formatUpgraded).
const UPSTREAM_FILE =
  `{"data":"{\\"entries\\":{\\"pod1\\":{\\"ContainerResources\\":{\\"container1\\":` +
  `{\\"requests\\":{\\"cpu\\":\\"1Ki\\",\\"memory\\":\\"1Ki\\"}}}}}}","checksum":1178570812}`;

async function tempFile(): Promise<string> {
  return `${await Deno.makeTempDir({ prefix: "denolet-alloc-" })}/allocated_pods_state`;
}

Deno.test("PodResourceState reads a checkpoint the upstream kubelet wrote", async () => {
  const path = await tempFile();
  await Deno.writeTextFile(path, UPSTREAM_FILE);
  const state = await PodResourceState.open({ path, logger: nullLogger });
  assert.deepEqual(state.get("pod1"), {
    containers: { container1: { requests: { cpu: "1Ki", memory: "1Ki" } } },
  });
});

Deno.test("kubeletChecksum is the checkpoint manager's (FNV-1a of Go's dump.ForHash)", () => {
  const data = `{"entries":{"pod1":{"ContainerResources":{"container1":` +
    `{"requests":{"cpu":"1Ki","memory":"1Ki"}}}}}}`;
  assert.equal(kubeletChecksum(data), 1178570812);
});

Deno.test("PodResourceState writes Go's layout and reads it back after a restart", async () => {
  const path = await tempFile();
  const state = await PodResourceState.open({ path, logger: nullLogger });
  state.set("uid-b", {
    containers: {
      web: { requests: { memory: "64Mi", cpu: "100m" }, limits: { memory: "128Mi" } },
      init: {},
    },
    pod: { limits: { cpu: "1" } },
  });
  state.setContainer("uid-a", "app", { requests: { cpu: "250m" } });
  await state.flush();
  const file = JSON.parse(await Deno.readTextFile(path));
  assert.equal(file.checksum, kubeletChecksum(file.data));
  assert.equal(
    file.data,
    `{"entries":{"uid-a":{"ContainerResources":{"app":{"requests":{"cpu":"250m"}}},` +
      `"PodLevelResources":null,"EmptyDirVolumeLimits":null},` +
      `"uid-b":{"ContainerResources":{"init":{},"web":{"limits":{"memory":"128Mi"},` +
      `"requests":{"cpu":"100m","memory":"64Mi"}}},"PodLevelResources":{"limits":{"cpu":"1"}},` +
      `"EmptyDirVolumeLimits":null}}}`,
  );
  const again = await PodResourceState.open({ path, logger: nullLogger });
  assert.deepEqual(again.get("uid-b"), state.get("uid-b"));
  assert.deepEqual(again.container("uid-a", "app"), { requests: { cpu: "250m" } });
});

Deno.test("PodResourceState writes a removal with the next change only", async () => {
  const path = await tempFile();
  const state = await PodResourceState.open({ path, logger: nullLogger });
  state.set("gone", { containers: { c: {} } });
  await state.flush();
  state.remove("gone");
  await state.flush();
  assert.ok((await Deno.readTextFile(path)).includes("gone"));
  state.set("kept", { containers: { c: {} } });
  await state.flush();
  const data = JSON.parse(await Deno.readTextFile(path)).data as string;
  assert.ok(!data.includes("gone") && data.includes("kept"));
});

Deno.test("PodResourceState refuses a corrupt checkpoint with upstream's advice", async () => {
  const path = await tempFile();
  await Deno.writeTextFile(path, UPSTREAM_FILE.replace("1178570812", "1"));
  await assert.rejects(
    PodResourceState.open({ path, logger: nullLogger }),
    (err: Error) =>
      err.message.startsWith("could not restore state from checkpoint: checkpoint is corrupted") &&
      err.message.includes(
        `please drain this node and delete pod resource information ` +
          `checkpoint file ${JSON.stringify(path)}`,
      ),
  );
});
