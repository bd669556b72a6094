/**
 * User namespaces through the runtime manager: the CRI options on the sandbox and container
 * configs, idmapped mounts, and the sandbox refused (never run in the host's namespace) where
 * the runtime's handler lacks support.
 */
import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { fakeRuntimeManager } from "./_fake_manager.ts";
import type { ContainerConfig, PodSandboxConfig } from "../../src/cri/types.ts";
import { handlerUserNamespaces, RuntimeState } from "../../src/kubelet/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { UserNamespaces } from "../../src/userns/mod.ts";
import type { MountedVolume, VolumeManager } from "../../src/volumes/mod.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { FakeUsernsFs, PODS } from "../userns/_fake_fs.ts";

const MAPPING = [{ hostId: 65536, containerId: 0, length: 65536 }];

async function setup(opts: { handlers?: FakeRuntime["runtimeHandlers"] } = {}) {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  if (opts.handlers) cri.runtimeHandlers = opts.handlers;
  cri.addImage("busybox:1.36");
  const state = new RuntimeState();
  state.updateStatus(await cri.status());
  const fs = new FakeUsernsFs();
  const userns = new UserNamespaces({
    fs,
    podDir: (uid) => `${PODS}/${uid}`,
    handlerSupport: (h) => Promise.resolve(handlerUserNamespaces(state.capabilities, h)),
    logger: nullLogger,
    random: () => 0,
  }, { range: { firstId: 65536, length: 2 ** 32 - 65536, source: "default" }, maxPods: 110 });
  const dir = await Deno.makeTempDir({ prefix: "denolet-userns-" });
  const data: MountedVolume = {
    hostPath: `${dir}/data`,
    readOnly: false,
    kind: "emptyDir",
    bindSubPath: () => Promise.reject(new Error("no subPath here")),
  };
  const volumes = {
    setUpPod: () => Promise.resolve(new Map([["data", data]])),
    tearDownPod: () => Promise.resolve(),
  } as unknown as VolumeManager;
  const events: string[] = [];
  const rm = fakeRuntimeManager({ cri, clock, logsDir: `${dir}/logs` }, {
    volumes,
    rootDir: `${dir}/root`,
    userns,
    events: {
      event: (_ref, type, reason, message) => events.push(`${type} ${reason}: ${message}`),
    },
  });
  return {
    cri,
    rm,
    fs,
    events,
    async sync(pod: V1Pod) {
      const m = pod.metadata!;
      return await rm.syncPod(pod, await rm.getPodStatus(m.uid!, m.name!, m.namespace!), {});
    },
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function pod(hostUsers?: boolean): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "uid-1" },
    spec: {
      hostUsers,
      containers: [{
        name: "app",
        image: "busybox:1.36",
        imagePullPolicy: "IfNotPresent",
        volumeMounts: [{ name: "data", mountPath: "/data" }],
        securityContext: hostUsers === false ? { procMount: "Unmasked" } : undefined,
      }],
      volumes: [{ name: "data", emptyDir: {} }],
    },
  };
}

Deno.test("hostUsers: false puts the sandbox and containers in the pod's own user namespace, mounts idmapped", async () => {
  await using env = await setup();
  assert.deepEqual((await env.sync(pod(false))).errors, []);
  const [sandbox] = env.cri.callsTo("runPodSandbox")[0] as [PodSandboxConfig];
  const userns = { mode: "POD", uids: MAPPING, gids: MAPPING };
  assert.deepEqual(sandbox.linux?.securityContext?.namespaceOptions?.usernsOptions, userns);
  const [, config] = env.cri.callsTo("createContainer")[0] as [string, ContainerConfig];
  const sc = config.linux?.securityContext;
  assert.deepEqual(sc?.namespaceOptions?.usernsOptions, userns);
  // Every mount upstream maps: the volume, /etc/hosts and the termination log.
  const paths = (config.mounts ?? []).map((m) => m.containerPath).sort();
  assert.deepEqual(paths, ["/data", "/dev/termination-log", "/etc/hosts"]);
  for (const m of config.mounts ?? []) {
    assert.deepEqual([m.uidMappings, m.gidMappings], [MAPPING, MAPPING], m.containerPath);
  }
  // procMount Unmasked, valid only here: no masked or read-only /proc paths.
  assert.deepEqual([sc?.maskedPaths, sc?.readonlyPaths], [[], []]);
  // The range is the pod's until it is released with the pod.
  assert.ok(env.fs.files.has(`${PODS}/uid-1/userns`));
  await env.rm.releasePod("uid-1");
  assert.equal(env.fs.files.has(`${PODS}/uid-1/userns`), false);
});

Deno.test("a pod in the host's user namespace gets NODE and plain mounts, as upstream", async () => {
  await using env = await setup();
  assert.deepEqual((await env.sync(pod())).errors, []);
  const [sandbox] = env.cri.callsTo("runPodSandbox")[0] as [PodSandboxConfig];
  assert.deepEqual(sandbox.linux?.securityContext?.namespaceOptions?.usernsOptions, {
    mode: "NODE",
  });
  const [, config] = env.cri.callsTo("createContainer")[0] as [string, ContainerConfig];
  assert.deepEqual(config.linux?.securityContext?.namespaceOptions?.usernsOptions, {
    mode: "NODE",
  });
  for (const m of config.mounts ?? []) assert.equal(m.uidMappings, undefined, m.containerPath);
  assert.equal(env.fs.files.size, 0);
});

Deno.test("a runtime that lists no handlers (containerd 1.6) fails the sandbox with upstream's event", async () => {
  await using env = await setup({ handlers: [] });
  const r = await env.sync(pod(false));
  const why = "can't set `spec.hostUsers: false`, runtime does not support user namespaces";
  assert.deepEqual(r.errors, [{
    reason: "CreatePodSandboxError",
    message: `Failed to create pod sandbox: ${why}`,
  }]);
  assert.deepEqual(env.events, [
    `Warning FailedCreatePodSandBox: Failed to create pod sandbox: ${why}`,
  ]);
  // Never a sandbox in the host's user namespace instead.
  assert.equal(env.cri.callsTo("runPodSandbox").length, 0);
});

Deno.test("a handler that reports no user namespace support is refused the same way", async () => {
  await using env = await setup({
    handlers: [
      { name: "", features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
      { name: "runc", features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
    ],
  });
  const r = await env.sync(pod(false));
  assert.match(r.errors[0].message, /runtime does not support user namespaces$/);
  assert.equal(env.cri.callsTo("runPodSandbox").length, 0);
  // Host-user pods are unaffected.
  assert.deepEqual(
    (await env.sync({ ...pod(), metadata: { ...pod().metadata, uid: "u2" } }))
      .errors,
    [],
  );
});
