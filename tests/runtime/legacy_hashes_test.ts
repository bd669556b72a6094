/**
 * An agent upgrade must not restart containers: those a denolet from before in-place resize
 * started carry the hash of their whole spec. They are kept, a later resize of them is no spec
 * change either (across a restart, from the recorded file), and a real spec change still
 * restarts them.
 */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import {
  ANNOTATION_CONTAINER_HASH,
  containerHash,
  legacyContainerHash,
} from "../../src/runtime/_labels.ts";
import { LegacyHashes } from "../../src/runtime/mod.ts";
import { PodResourceState } from "../../src/allocation/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { fakeRuntimeManager } from "./_fake_manager.ts";

const app = (cpu: string, extra: Partial<V1Container> = {}): V1Container => ({
  name: "app",
  image: "busybox:1.36",
  imagePullPolicy: "IfNotPresent",
  resources: { requests: { cpu }, limits: { cpu } },
  ...extra,
});

const pod = (c: V1Container): V1Pod => ({
  metadata: { name: "web", namespace: "default", uid: "uid-1" },
  spec: { nodeName: "node1", containers: [c] },
});

Deno.test("a container started before in-place resize is kept, resized in place, across restarts", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const dir = await Deno.makeTempDir({ prefix: "denolet-legacy-" });
  try {
    const path = `${dir}/legacy_container_hashes`;
    const manager = async () =>
      fakeRuntimeManager({ cri, clock, logsDir: dir }, {
        legacyHashes: await LegacyHashes.open({ path, logger: nullLogger }),
        // A fresh actuated state: the upgraded agent has none yet.
        actuated: PodResourceState.inMemory(),
      });
    const sync = async (rm: Awaited<ReturnType<typeof manager>>, p: V1Pod) =>
      await rm.syncPod(p, await rm.getPodStatus("uid-1", "web", "default"), {});

    const spec = app("250m");
    assert.notEqual(legacyContainerHash(spec), containerHash(spec));
    await sync(await manager(), pod(spec));
    const [c] = [...cri.containers.values()];
    // What the old agent wrote.
    c.status.annotations[ANNOTATION_CONTAINER_HASH] = legacyContainerHash(spec);

    const upgraded = await manager();
    const mark = cri.calls.length;
    assert.deepEqual((await sync(upgraded, pod(spec))).errors, []);
    assert.ok(!cri.callsTo("stopContainer").length, "kept after the upgrade");
    assert.ok(!cri.calls.slice(mark).some((x) => x.method === "updateContainerResources"));
    await upgraded.syncPod(pod(spec), await upgraded.getPodStatus("uid-1", "web", "default"), {});

    // Resized in place, not restarted, by this agent and by the next one.
    assert.deepEqual((await sync(upgraded, pod(app("500m")))).errors, []);
    assert.equal(cri.callsTo("updateContainerResources").length, 1);
    const restarted = await manager();
    assert.deepEqual((await sync(restarted, pod(app("500m")))).errors, []);
    assert.equal(cri.callsTo("stopContainer").length, 0);
    assert.equal(c.status.state, "CONTAINER_RUNNING");

    // Any other change is still a spec change.
    assert.deepEqual(
      (await sync(restarted, pod(app("500m", { args: ["sleep", "1"] })))).errors,
      [],
    );
    assert.equal(cri.callsTo("stopContainer").length, 1);
    assert.equal(c.status.state, "CONTAINER_EXITED");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
