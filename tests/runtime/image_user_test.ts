import { fakeRuntimeManager } from "./_fake_manager.ts";
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { RuntimeManager } from "../../src/runtime/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

interface Env {
  cri: FakeRuntime;
  rm: RuntimeManager;
  [Symbol.asyncDispose](): Promise<void>;
}

async function setup(): Promise<Env> {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-iu-" });
  const rm = fakeRuntimeManager({ cri, clock, logsDir });
  return {
    cri,
    rm,
    [Symbol.asyncDispose]: () => Deno.remove(logsDir, { recursive: true }),
  };
}

function podWith(containers: V1Container[], spec: Partial<NonNullable<V1Pod["spec"]>> = {}): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid: "u1" },
    spec: { nodeName: "node1", containers, ...spec },
  };
}

async function sync(env: Env, pod: V1Pod) {
  const status = await env.rm.getPodStatus("u1", "web", "default");
  return await env.rm.syncPod(pod, status, {});
}

Deno.test("runAsNonRoot without runAsUser refuses an image that runs as root (verifyRunAsNonRoot)", async () => {
  await using env = await setup();
  const id = env.cri.addImage("busybox:1.36");
  env.cri.images.get(id)!.uid = { value: 0 };
  const pod = podWith([{ name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" }], {
    securityContext: { runAsNonRoot: true },
  });
  const res = await sync(env, pod);
  assert.equal(env.cri.callsTo("createContainer").length, 0, "created a root container");
  assert.equal(res.errors[0]?.reason, "CreateContainerConfigError");
  assert.equal(
    res.errors[0]?.message,
    'container has runAsNonRoot and image will run as root (pod: "web_default(u1)", container: app)',
  );
});

Deno.test("an image without a user counts as root; a username-only image cannot be verified", async () => {
  await using env = await setup();
  env.cri.addImage("plain:1");
  const named = env.cri.addImage("named:1");
  env.cri.images.get(named)!.username = "app";
  const pod = podWith([
    { name: "plain", image: "plain:1" },
    { name: "named", image: "named:1" },
  ], { securityContext: { runAsNonRoot: true } });
  const res = await sync(env, pod);
  assert.deepEqual(res.errors.map((e) => [e.container, e.reason]), [
    ["plain", "CreateContainerConfigError"],
    ["named", "CreateContainerConfigError"],
  ]);
  assert.match(res.errors[1].message, /image has non-numeric user \(app\), cannot verify/);
});

Deno.test("a non-root image starts with its uid sent, reusing the presence check's ImageStatus", async () => {
  await using env = await setup();
  const id = env.cri.addImage("app:1");
  env.cri.images.get(id)!.uid = { value: 1000 };
  const pod = podWith([{ name: "a", image: "app:1" }, { name: "b", image: "app:1" }], {
    securityContext: { runAsNonRoot: true, runAsGroup: 3000 },
  });
  const res = await sync(env, pod);
  assert.deepEqual(res.errors, []);
  const created = env.cri.callsTo("createContainer");
  assert.equal(created.length, 2);
  // deno-lint-ignore no-explicit-any
  const sc = (created[0][1] as any).linux.securityContext;
  assert.deepEqual(sc.runAsUser, { value: 1000 });
  assert.deepEqual(sc.runAsGroup, { value: 3000 });
  // One ImageStatus per container (the pull-policy check), none extra for the user.
  assert.equal(env.cri.callsTo("imageStatus").length, 2);
});

Deno.test("after a pull the image's user comes from one ImageStatus", async () => {
  await using env = await setup();
  const pod = podWith([{ name: "a", image: "fresh:1", imagePullPolicy: "Always" }], {
    securityContext: { runAsNonRoot: true },
  });
  const res = await sync(env, pod);
  assert.equal(env.cri.callsTo("pullImage").length, 1);
  assert.equal(env.cri.callsTo("imageStatus").length, 1);
  // The fake's pulled image has no user: root, refused.
  assert.equal(res.errors[0]?.reason, "CreateContainerConfigError");
  assert.match(res.errors[0].message, /image will run as root/);
});

// deno-lint-ignore no-explicit-any
function createdSecurityContext(env: Env, i = 0): any {
  // deno-lint-ignore no-explicit-any
  return (env.cri.callsTo("createContainer")[i][1] as any).linux.securityContext;
}

Deno.test("a plain pod with PullAlways reads each pulled image once (size and user)", async () => {
  await using env = await setup();
  const pod = podWith([{ name: "a", image: "app:latest" }, {
    name: "b",
    image: "app:1",
    imagePullPolicy: "Always",
  }]);
  const res = await sync(env, pod);
  assert.deepEqual(res.errors, []);
  assert.equal(env.cri.callsTo("pullImage").length, 2);
  // Upstream reads the size for the Pulled event; the same answer gives the user.
  assert.equal(env.cri.callsTo("imageStatus").length, 2);
  // The image's user as upstream sends it (an image without one runs as root).
  const sc = createdSecurityContext(env);
  assert.deepEqual(sc.runAsUser, { value: 0 });
  assert.equal(sc.runAsUsername, undefined);
});

Deno.test("a crash-loop restart with PullAlways pulls again and reads the image once each time", async () => {
  await using env = await setup();
  const pod = podWith([{ name: "a", image: "app:latest" }], { restartPolicy: "Always" });
  assert.deepEqual((await sync(env, pod)).errors, []);
  const [running] = env.cri.containers.values();
  env.cri.exitContainer(running.status.id, 1);
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.equal(env.cri.callsTo("pullImage").length, 2);
  assert.equal(env.cri.callsTo("createContainer").length, 2);
  assert.equal(env.cri.callsTo("imageStatus").length, 2);
});

Deno.test("an explicit runAsUser after a pull needs no ImageStatus beyond the pull's, even with runAsNonRoot", async () => {
  await using env = await setup();
  const pod = podWith([{ name: "a", image: "app:1", imagePullPolicy: "Always" }], {
    securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 3000 },
  });
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.equal(env.cri.callsTo("imageStatus").length, 1);
  const sc = createdSecurityContext(env);
  assert.deepEqual(sc.runAsUser, { value: 1000 });
  assert.deepEqual(sc.runAsGroup, { value: 3000 });
});

Deno.test("a runAsGroup without runAsUser after a pull sends the image's user with it", async () => {
  await using env = await setup();
  const id = env.cri.addImage("app:1");
  env.cri.images.get(id)!.username = "app";
  const pod = podWith([{ name: "a", image: "app:1", imagePullPolicy: "Always" }], {
    securityContext: { runAsGroup: 3000 },
  });
  assert.deepEqual((await sync(env, pod)).errors, []);
  assert.equal(env.cri.callsTo("pullImage").length, 1);
  assert.equal(env.cri.callsTo("imageStatus").length, 1);
  const sc = createdSecurityContext(env);
  assert.equal(sc.runAsUsername, "app");
  assert.deepEqual(sc.runAsGroup, { value: 3000 });
});
