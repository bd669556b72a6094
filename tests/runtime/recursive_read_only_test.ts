/**
 * volumeMounts[].recursiveReadOnly through the runtime manager: the CRI mount is recursively
 * read-only where the pod's runtime handler says it can (CRI Status), IfPossible falls back to
 * plain read-only, and Enabled fails the container with upstream's CreateContainerConfigError.
 */
import { fakeRuntimeManager } from "./_fake_manager.ts";
import assert from "node:assert/strict";
import type { V1Pod, V1VolumeMount } from "@kubernetes/client-node";
import type { ContainerConfig, RuntimeHandlerFeatures } from "../../src/cri/types.ts";
import type { RuntimeManagerDeps } from "../../src/runtime/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import type { MountedVolume, VolumeManager } from "../../src/volumes/mod.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

const volumes = {
  setUpPod: () =>
    Promise.resolve(
      new Map<string, MountedVolume>([["mnt", {
        hostPath: "/v/mnt",
        readOnly: false,
        kind: "hostPath",
        bindSubPath: () => Promise.reject(new Error("no subPath here")),
      }]]),
    ),
  tearDownPod: () => Promise.resolve(),
} as unknown as VolumeManager;

function pod(mounts: V1VolumeMount[], runtimeClassName?: string): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "u1" },
    spec: {
      runtimeClassName,
      containers: [{
        name: "app",
        image: "busybox:1.36",
        imagePullPolicy: "IfNotPresent",
        volumeMounts: mounts,
      }],
      volumes: [{ name: "mnt", hostPath: { path: "/v/mnt" } }],
    },
  };
}

const features = (rro: boolean): RuntimeHandlerFeatures => ({
  recursiveReadOnlyMounts: rro,
  userNamespaces: false,
});

async function sync(p: V1Pod, deps: Partial<RuntimeManagerDeps>) {
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-rro-" });
  try {
    const clock = new FakeClock();
    const cri = new FakeRuntime({ clock });
    cri.addImage("busybox:1.36");
    const rm = fakeRuntimeManager({ cri, clock, logsDir }, { volumes, ...deps });
    const res = await rm.syncPod(p, await rm.getPodStatus("u1", "web", "default"), {});
    const created = cri.callsTo("createContainer").map((c) => c[1] as ContainerConfig);
    return { errors: res.errors, mounts: created[0]?.mounts ?? [] };
  } finally {
    await Deno.remove(logsDir, { recursive: true });
  }
}

const enabled: V1VolumeMount = {
  name: "mnt",
  mountPath: "/rro",
  readOnly: true,
  recursiveReadOnly: "Enabled",
};
const ifPossible: V1VolumeMount = {
  name: "mnt",
  mountPath: "/maybe",
  readOnly: true,
  recursiveReadOnly: "IfPossible",
};

Deno.test("recursiveReadOnly reaches CreateContainer when the pod's handler supports it", async () => {
  const { errors, mounts } = await sync(pod([enabled, ifPossible]), {
    runtimeHandlers: () => new Map([["", features(true)], ["runc", features(true)]]),
  });
  assert.deepEqual(errors, []);
  assert.deepEqual(
    mounts.map((m) => [m.containerPath, m.readonly, m.recursiveReadOnly]),
    [["/rro", true, true], ["/maybe", true, true]],
  );
});

Deno.test("without handler support IfPossible is plain read-only", async () => {
  // containerd 1.6 lists no handlers at all.
  for (const runtimeHandlers of [undefined, () => new Map()]) {
    const { errors, mounts } = await sync(pod([ifPossible]), { runtimeHandlers });
    assert.deepEqual(errors, []);
    assert.deepEqual(
      mounts.map((m) => [m.containerPath, m.readonly, m.recursiveReadOnly]),
      [["/maybe", true, undefined]],
    );
  }
});

Deno.test("Enabled without handler support fails the container with upstream's message", async () => {
  const message = 'failed to resolve recursive read-only mode: volume "mnt" requested ' +
    "recursive read-only mode, but it is not supported by the runtime";
  const cases: Partial<RuntimeManagerDeps>[] = [
    {},
    { runtimeHandlers: () => new Map([["", features(false)]]) },
    // The pod's class names a handler that does not support it (the default one would).
    {
      runtimeHandlers: () => new Map([["", features(true)], ["kata", features(false)]]),
      runtimeHandler: () => "kata",
    },
    // A handler the runtime does not list.
    {
      runtimeHandlers: () => new Map([["", features(true)]]),
      runtimeHandler: () => "gvisor",
    },
  ];
  for (const deps of cases) {
    const { errors, mounts } = await sync(pod([enabled], "any"), deps);
    assert.deepEqual(errors, [{ container: "app", reason: "CreateContainerConfigError", message }]);
    assert.deepEqual(mounts, [], "no container created");
  }
});
