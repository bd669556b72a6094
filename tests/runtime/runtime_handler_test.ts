/** The pod's RuntimeClass handler reaches RunPodSandbox; an unresolved class fails the sandbox. */
import { fakeRuntimeManager } from "./_fake_manager.ts";
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { FakeClock } from "../../src/util/clock.ts";
import { NotFoundError } from "../../src/util/errors.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

function pod(runtimeClassName?: string): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: {
      runtimeClassName,
      containers: [{ name: "c", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" }],
    },
  };
}

Deno.test("runtime manager: the RuntimeClass's handler is passed to RunPodSandbox", async () => {
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-handler-" });
  try {
    const clock = new FakeClock();
    const cri = new FakeRuntime({ clock });
    const rm = fakeRuntimeManager({ cri, clock, logsDir }, {
      runtimeHandler: (p) => p.spec?.runtimeClassName === "kata" ? "kata-qemu" : "",
    });
    const status = await rm.getPodStatus("uid-1", "web", "default");
    assert.deepEqual((await rm.syncPod(pod("kata"), status, {})).errors, []);
    assert.equal(cri.callsTo("runPodSandbox")[0][1], "kata-qemu");
  } finally {
    await Deno.remove(logsDir, { recursive: true });
  }
});

Deno.test("runtime manager: an unknown RuntimeClass fails the sandbox with FailedCreatePodSandBox", async () => {
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-handler-" });
  try {
    const clock = new FakeClock();
    const cri = new FakeRuntime({ clock });
    const events: string[] = [];
    const rm = fakeRuntimeManager({ cri, clock, logsDir }, {
      runtimeHandler: () => {
        throw new NotFoundError('runtimeclass.node.k8s.io "nope" not found');
      },
      events: {
        event: (_ref, type, reason, message) => events.push(`${type} ${reason} ${message}`),
      },
    });
    const status = await rm.getPodStatus("uid-1", "web", "default");
    const { errors } = await rm.syncPod(pod("nope"), status, {});
    assert.equal(errors[0]?.reason, "CreatePodSandboxError");
    assert.equal(cri.callsTo("runPodSandbox").length, 0, "no sandbox on the default handler");
    assert.deepEqual(events, [
      'Warning FailedCreatePodSandBox Failed to create pod sandbox: runtimeclass.node.k8s.io "nope" not found',
    ]);
  } finally {
    await Deno.remove(logsDir, { recursive: true });
  }
});
