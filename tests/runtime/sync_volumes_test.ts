/**
 * The runtime manager and the API mode's objects: volumes are set up on every sync (so running
 * containers see configMap, secret and token updates) and container env reads ConfigMaps and
 * Secrets through `envObjects`, a missing one holding the container in CreateContainerConfigError.
 */
import { fakeRuntimeManager } from "./_fake_manager.ts";
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { ObjectNotFoundError } from "../../src/objects/mod.ts";
import type { EnvObjects } from "../../src/runtime/mod.ts";
import type { VolumeManager } from "../../src/volumes/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { DenoletError } from "../../src/util/errors.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

async function setup(opts: { envObjects?: EnvObjects; failVolumes?: () => Error | undefined }) {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-syncvol-" });
  const setUps: string[] = [];
  const volumes = {
    setUpPod: (pod: V1Pod) => {
      setUps.push(pod.metadata!.uid!);
      const err = opts.failVolumes?.();
      return err ? Promise.reject(err) : Promise.resolve(new Map());
    },
    tearDownPod: () => Promise.resolve(),
  } as unknown as VolumeManager;
  const rm = fakeRuntimeManager({ cri, clock, logsDir, hostDNSServers: ["192.0.2.53"] }, {
    volumes,
    envObjects: opts.envObjects,
  });
  const sync = async (pod: V1Pod) => {
    const m = pod.metadata!;
    return await rm.syncPod(pod, await rm.getPodStatus(m.uid!, m.name!, m.namespace!), {});
  };
  const running = () =>
    [...cri.containers.values()].filter((c) => c.status.state === "CONTAINER_RUNNING").length;
  return {
    cri,
    setUps,
    sync,
    running,
    [Symbol.asyncDispose]: () => Deno.remove(logsDir, { recursive: true }),
  };
}

const pod: V1Pod = {
  metadata: { name: "web", namespace: "prod", uid: "uid-1" },
  spec: {
    nodeName: "node1",
    containers: [{
      name: "app",
      image: "busybox:1.36",
      imagePullPolicy: "IfNotPresent",
      env: [{ name: "MODE", valueFrom: { configMapKeyRef: { name: "app", key: "mode" } } }],
    }],
  },
};

Deno.test("syncPod sets volumes up on every sync, also when every container runs", async () => {
  const volumes: { error?: Error } = {};
  await using env = await setup({
    envObjects: {
      configMap: () => Promise.resolve({ data: { mode: "fast" } }),
      secret: () => Promise.reject(new DenoletError("unused")),
    },
    failVolumes: () => volumes.error,
  });
  assert.deepEqual((await env.sync(pod)).errors, []);
  assert.equal(env.running(), 1);
  await env.sync(pod);
  await env.sync(pod);
  assert.deepEqual(env.setUps, ["uid-1", "uid-1", "uid-1"]);

  // A running pod whose volume can no longer be set up keeps running; the sync reports it.
  volumes.error = new DenoletError('MountVolume.SetUp failed for volume "cfg" : gone');
  const res = await env.sync(pod);
  assert.deepEqual(res.errors.map((e) => [e.reason, e.message]), [
    [
      "FailedMount",
      'Unable to attach or mount volumes: MountVolume.SetUp failed for volume "cfg" : gone',
    ],
  ]);
  assert.equal(env.running(), 1);
  assert.equal(env.cri.callsTo("stopContainer").length, 0);
});

Deno.test("a missing ConfigMap holds the container in CreateContainerConfigError until it exists", async () => {
  const data = new Map<string, Record<string, string>>();
  await using env = await setup({
    envObjects: {
      configMap: (p, name) => {
        const found = data.get(name);
        return found
          ? Promise.resolve({ data: found })
          : Promise.reject(new ObjectNotFoundError("configmap", p.metadata!.namespace!, name));
      },
      secret: () => Promise.reject(new DenoletError("unused")),
    },
  });
  const first = await env.sync(pod);
  assert.deepEqual(first.errors.map((e) => [e.container, e.reason, e.message]), [
    ["app", "CreateContainerConfigError", 'configmap "app" not found'],
  ]);
  assert.equal(env.cri.callsTo("createContainer").length, 0);

  data.set("app", {});
  const second = await env.sync(pod);
  assert.deepEqual(second.errors.map((e) => e.message), [
    "couldn't find key mode in ConfigMap prod/app",
  ]);

  data.set("app", { mode: "fast" });
  assert.deepEqual((await env.sync(pod)).errors, []);
  const [, config] = env.cri.callsTo("createContainer")[0] as [
    string,
    { envs: { key: string; value: string }[] },
  ];
  assert.deepEqual(config.envs, [{ key: "MODE", value: "fast" }]);
});
