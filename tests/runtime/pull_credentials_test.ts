/**
 * Image pull secrets through the runtime manager: the pod's Secrets become the PullImage
 * AuthConfig, candidates are tried in order, failures read as upstream's, a Secret that does
 * not decode fails the start with upstream's message, a missing one gives the pod upstream's
 * FailedToRetrieveImagePullSecret event.
 */
import assert from "node:assert/strict";
import type { V1Pod, V1Secret } from "@kubernetes/client-node";
import type { EventRecorder } from "../../src/events/mod.ts";
import { ObjectNotFoundError } from "../../src/objects/mod.ts";
import type { PullSecretReader } from "../../src/runtime/_pull_secrets.ts";
import { PullManager, verificationPolicy } from "../../src/images/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";
import { fakeRuntimeManager } from "./_fake_manager.ts";

const REGISTRY = "reg.example.com:5000";
const IMAGE = `${REGISTRY}/team/app:1`;

function dockerSecret(name: string, auths: Record<string, { auth: string }>): V1Secret {
  return {
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    type: "kubernetes.io/dockerconfigjson",
    data: { ".dockerconfigjson": btoa(JSON.stringify({ auths })) },
  };
}

const auth = (user: string, password: string) => ({ auth: btoa(`${user}:${password}`) });

function reader(secrets: V1Secret[]): PullSecretReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    secret(_pod, name) {
      reads.push(name);
      const s = secrets.find((x) => x.metadata?.name === name);
      return s
        ? Promise.resolve(s)
        : Promise.reject(new ObjectNotFoundError("secret", "default", name));
    },
  };
}

function pod(secretNames: string[], uid = "uid-1", image = IMAGE): V1Pod {
  return {
    metadata: { name: "web", namespace: "default", uid },
    spec: {
      nodeName: "node1",
      imagePullSecrets: secretNames.map((name) => ({ name })),
      containers: [{ name: "app", image, imagePullPolicy: "IfNotPresent" }],
    },
  };
}

async function setup(secrets: V1Secret[], opts: { records?: boolean } = {}) {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  cri.privateRegistries.set(`${REGISTRY}/`, { username: "alice", password: "right" });
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-pullcreds-" });
  const makeRecords = async () => {
    const m = new PullManager({
      rootDir: logsDir,
      clock,
      logger: nullLogger,
      requireVerification: verificationPolicy("NeverVerifyPreloadedImages"),
      listImages: () => cri.listImages(),
    });
    await m.initialize();
    return m;
  };
  const pullRecords = opts.records ? await makeRecords() : undefined;
  const events: string[] = [];
  const recorder: EventRecorder = {
    event: (ref, type, reason, message) =>
      events.push(`${ref.fieldPath ?? ref.kind} ${type} ${reason}: ${message}`),
  };
  const secretReader = reader(secrets);
  const rm = fakeRuntimeManager({ cri, clock, logsDir }, {
    events: recorder,
    pullSecrets: secretReader,
    pullRecords,
  });
  const sync = async (p: V1Pod) => {
    const m = p.metadata!;
    return await rm.syncPod(p, await rm.getPodStatus(m.uid!, m.name!, m.namespace!), {});
  };
  return {
    cri,
    clock,
    events,
    secretReader,
    sync,
    auths: () => cri.callsTo("pullImage").map((a) => (a[2] as { auth?: unknown }).auth),
    async [Symbol.asyncDispose]() {
      await Deno.remove(logsDir, { recursive: true });
    },
  };
}

Deno.test("pull secrets: the matching Secret's credentials reach PullImage as AuthConfig", async () => {
  await using env = await setup([
    dockerSecret("other", { "quay.io": auth("x", "y") }),
    dockerSecret("regcred", { [`https://${REGISTRY}/v2/`]: auth("alice", "right") }),
  ]);
  const r = await env.sync(pod(["other", "regcred"]));
  assert.deepEqual(r.errors, []);
  assert.deepEqual(env.auths(), [{
    username: "alice",
    password: "right",
    auth: undefined,
    serverAddress: undefined,
    identityToken: undefined,
    registryToken: undefined,
  }]);
});

Deno.test("pull secrets: candidates are tried in order until one pulls", async () => {
  await using env = await setup([
    dockerSecret("stale", { [`${REGISTRY}/team`]: auth("alice", "old") }),
    dockerSecret("fresh", { [REGISTRY]: auth("alice", "right") }),
  ]);
  assert.deepEqual((await env.sync(pod(["fresh", "stale"]))).errors, []);
  // The more specific endpoint (with the path) first, though its Secret is named second.
  assert.deepEqual(
    env.auths().map((a) => (a as { password: string }).password),
    ["old", "right"],
  );
});

Deno.test("pull secrets: wrong or no credentials give upstream's ErrImagePull, then the back-off with the error", async () => {
  await using env = await setup([
    dockerSecret("a", { [REGISTRY]: auth("alice", "wrong1") }),
    dockerSecret("b", { [REGISTRY]: auth("alice", "wrong2") }),
  ]);
  const detail = `failed to pull and unpack image "${IMAGE}": failed to resolve reference ` +
    `"${IMAGE}": unexpected status from HEAD request: 401 Unauthorized`;
  const grpc = `rpc error: code = Unknown desc = ${detail}`;
  let r = await env.sync(pod(["a", "b"]));
  // Two credentials failing the same way: the aggregate shows the message once.
  assert.deepEqual(r.errors, [{ container: "app", reason: "ErrImagePull", message: grpc }]);
  assert.ok(
    env.events.includes(
      `spec.containers{app} Warning Failed: Failed to pull image "${IMAGE}": ${grpc}`,
    ),
    env.events.join("\n"),
  );
  r = await env.sync(pod(["a", "b"]));
  assert.deepEqual(r.errors, [{
    container: "app",
    reason: "ImagePullBackOff",
    message: `Back-off pulling image "${IMAGE}": ErrImagePull: ${grpc}`,
  }]);
  assert.ok(
    env.events.includes(`spec.containers{app} Normal BackOff: Back-off pulling image "${IMAGE}"`),
  );

  const anonymous = await env.sync(pod([], "uid-2"));
  assert.equal(anonymous.errors[0].reason, "ErrImagePull");
  assert.equal(env.auths().at(-1), undefined);
});

Deno.test("pull secrets: a Secret that does not decode fails the start with upstream's message", async () => {
  const bad: V1Secret = {
    metadata: { name: "bad", namespace: "default", uid: "uid-bad" },
    type: "kubernetes.io/dockerconfigjson",
    data: {
      ".dockerconfigjson": btoa(
        JSON.stringify({ auths: { [REGISTRY]: { auth: btoa("nocolon") } } }),
      ),
    },
  };
  await using env = await setup([bad]);
  const r = await env.sync(pod(["bad"]));
  const message = "unable to parse auth field, must be formatted as base64(username:password)";
  assert.deepEqual(r.errors, [{ container: "app", reason: message, message }]);
  assert.equal(env.cri.callsTo("pullImage").length, 0);
  assert.deepEqual(env.events, [`spec.containers{app} Warning Failed: Error: ${message}`]);
});

Deno.test("pull secrets: a missing Secret is left out; a failed pull then names it in a pod event", async () => {
  await using env = await setup([dockerSecret("regcred", { [REGISTRY]: auth("alice", "right") })]);
  // The Secret that exists still works.
  assert.deepEqual((await env.sync(pod(["gone", "regcred"]))).errors, []);
  assert.ok(!env.events.some((e) => e.includes("FailedToRetrieveImagePullSecret")));
  // Without it the pull fails and the pod hears about the Secrets it could not read.
  const other = `${REGISTRY}/team/other:1`;
  await env.sync(pod(["gone", "", "also-gone"], "uid-2", other));
  assert.ok(
    env.events.includes(
      "Pod Warning FailedToRetrieveImagePullSecret: Unable to retrieve some image pull " +
        "secrets (gone, also-gone); attempting to pull the image may not succeed.",
    ),
    env.events.join("\n"),
  );
  // While the pull backs off there is no new event (upstream counts only ErrImagePull).
  env.events.length = 0;
  await env.sync(pod(["gone", "", "also-gone"], "uid-2", other));
  assert.ok(!env.events.some((e) => e.includes("FailedToRetrieveImagePullSecret")));
});

Deno.test("pull secrets: a present image needs no Secret read; one sync reads each Secret once", async () => {
  await using env = await setup([dockerSecret("regcred", { [REGISTRY]: auth("alice", "right") })]);
  env.cri.addImage(IMAGE);
  assert.deepEqual((await env.sync(pod(["regcred"]))).errors, []);
  assert.deepEqual(env.secretReader.reads, []);
  const two: V1Pod = pod(["regcred"], "uid-2");
  two.spec!.containers = [
    { name: "a", image: `${REGISTRY}/team/a:1` },
    { name: "b", image: `${REGISTRY}/team/b:1` },
  ];
  assert.deepEqual((await env.sync(two)).errors, []);
  assert.deepEqual(env.secretReader.reads, ["regcred"]);
});

Deno.test("verified reuse: an image pulled with a Secret is not handed to a pod without it", async () => {
  await using env = await setup([dockerSecret("regcred", { [REGISTRY]: auth("alice", "right") })], {
    records: true,
  });
  assert.deepEqual((await env.sync(pod(["regcred"]))).errors, []);
  assert.equal(env.cri.callsTo("pullImage").length, 1);
  // Without credentials the present image does not count: the pull is tried and refused.
  const r = await env.sync(pod([], "uid-2"));
  assert.equal(r.errors[0]?.reason, "ErrImagePull");
  assert.equal(env.cri.callsTo("pullImage").length, 2);
  // With the Secret it is reused without a pull, with upstream's message.
  env.events.length = 0;
  assert.deepEqual((await env.sync(pod(["regcred"], "uid-3"))).errors, []);
  assert.equal(env.cri.callsTo("pullImage").length, 2);
  assert.ok(
    env.events.includes(
      `spec.containers{app} Normal Pulled: Container image "${IMAGE}" already present on machine ` +
        "and can be accessed by the pod",
    ),
    env.events.join("\n"),
  );
  // imagePullPolicy Never: not present for this pod, as upstream says it.
  const never = pod([], "uid-4");
  never.spec!.containers[0].imagePullPolicy = "Never";
  const n = await env.sync(never);
  assert.equal(n.errors[0]?.reason, "ErrImageNeverPull");
  assert.equal(env.cri.callsTo("pullImage").length, 2);
});

Deno.test("verified reuse: images put on the node otherwise (preloaded) serve every pod", async () => {
  await using env = await setup([], { records: true });
  env.cri.addImage(IMAGE);
  assert.deepEqual((await env.sync(pod([]))).errors, []);
  assert.equal(env.cri.callsTo("pullImage").length, 0);
});

Deno.test("keyrings after the pull secrets (credential plugins) supply the AuthConfig", async () => {
  const { BasicKeyring } = await import("../../src/credentials/mod.ts");
  const keyring = new BasicKeyring();
  await keyring.add(
    undefined,
    new Map([[REGISTRY, { username: "alice", password: "right", email: "" }]]),
  );
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  cri.privateRegistries.set(`${REGISTRY}/`, { username: "alice", password: "right" });
  const logsDir = await Deno.makeTempDir({ prefix: "denolet-pullcreds-" });
  try {
    const seen: string[] = [];
    const rm = fakeRuntimeManager({ cri, clock, logsDir }, {
      keyrings: (p) => {
        seen.push(p.metadata?.uid ?? "");
        return [keyring];
      },
    });
    const p = pod([]);
    const r = await rm.syncPod(p, await rm.getPodStatus("uid-1", "web", "default"), {});
    assert.deepEqual(r.errors, []);
    assert.deepEqual(seen, ["uid-1"]);
    assert.equal(
      (cri.callsTo("pullImage")[0][2] as { auth?: { password?: string } }).auth?.password,
      "right",
    );
  } finally {
    await Deno.remove(logsDir, { recursive: true });
  }
});
