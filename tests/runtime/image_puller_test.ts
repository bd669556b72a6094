import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { applyDefaultTag, ImagePuller, pullPolicyOf } from "../../src/runtime/_image_puller.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { DenoletError, ImagePullError, RuntimeUnavailableError } from "../../src/util/errors.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeRuntime } from "../support/fake_cri.ts";

const S = 1000;
const POD: V1Pod = {
  metadata: { name: "web", namespace: "default", uid: "uid-1" },
  spec: { containers: [] },
};

function setup() {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const puller = new ImagePuller({ image: cri, clock, logger: nullLogger });
  return { clock, cri, puller };
}

async function pullError(p: Promise<unknown>): Promise<ImagePullError> {
  const err = await p.then(() => undefined, (e) => e);
  assert.ok(err instanceof ImagePullError, `expected ImagePullError, got ${err}`);
  return err;
}

Deno.test("ImagePuller: IfNotPresent uses a present image without pulling", async () => {
  const { cri, puller } = setup();
  const id = cri.addImage("busybox:1.36");
  const c: V1Container = { name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" };
  assert.deepEqual(await puller.ensureImage(POD, c), { ref: id, user: { uid: 0 } });
  assert.equal(cri.callsTo("pullImage").length, 0);
});

Deno.test("ImagePuller: the presence check carries the image's user (upstream getImageUser)", async () => {
  const { cri, puller } = setup();
  const c: V1Container = { name: "app", image: "app:1", imagePullPolicy: "IfNotPresent" };
  const id = cri.addImage("app:1");
  cri.images.get(id)!.uid = { value: 1000 };
  assert.deepEqual((await puller.ensureImage(POD, c)).user, { uid: 1000 });
  cri.images.get(id)!.uid = undefined;
  cri.images.get(id)!.username = "app";
  assert.deepEqual((await puller.ensureImage(POD, c)).user, { username: "app" });
  // After a pull the status read for the Pulled event's size carries the user.
  const pulled = await puller.ensureImage(POD, { name: "b", image: "other:1" });
  assert.deepEqual(pulled.user, { uid: 0 });
  // imageUser asks once, by the pulled reference.
  const before = cri.callsTo("imageStatus").length;
  assert.deepEqual(await puller.imageUser(pulled.ref), { uid: 0 });
  assert.deepEqual(cri.callsTo("imageStatus").slice(before).map((a) => a[0]), [
    { image: pulled.ref },
  ]);
});

Deno.test("ImagePuller: IfNotPresent pulls a missing image", async () => {
  const { cri, puller } = setup();
  const c: V1Container = { name: "app", image: "busybox:1.36", imagePullPolicy: "IfNotPresent" };
  const { ref } = await puller.ensureImage(POD, c);
  assert.match(ref, /^sha256:/);
  assert.deepEqual(cri.callsTo("pullImage").map((a) => a[0]), [{ image: "busybox:1.36" }]);
});

Deno.test("ImagePuller: Always pulls even when present", async () => {
  const { cri, puller } = setup();
  cri.addImage("busybox:1.36");
  const c: V1Container = { name: "app", image: "busybox:1.36", imagePullPolicy: "Always" };
  await puller.ensureImage(POD, c);
  await puller.ensureImage(POD, c);
  assert.equal(cri.callsTo("pullImage").length, 2);
  // No presence check; only the pulled image's size, read after each pull as upstream does.
  assert.deepEqual(cri.calls.map((c) => c.method), [
    "pullImage",
    "imageStatus",
    "pullImage",
    "imageStatus",
  ]);
});

Deno.test("ImagePuller: Never fails with ErrImageNeverPull when missing", async () => {
  const { cri, puller } = setup();
  const c: V1Container = { name: "app", image: "busybox:1.36", imagePullPolicy: "Never" };
  const err = await pullError(puller.ensureImage(POD, c));
  assert.equal(err.reason, "ErrImageNeverPull");
  assert.equal(
    err.message,
    `Container image "busybox:1.36" is not present with pull policy of Never`,
  );
  assert.equal(cri.callsTo("pullImage").length, 0);
  const id = cri.addImage("busybox:1.36");
  assert.equal((await puller.ensureImage(POD, c)).ref, id);
});

Deno.test("ImagePuller: failures give ErrImagePull then ImagePullBackOff, 10s doubling", async () => {
  const { clock, cri, puller } = setup();
  cri.pullErrors.set("docker.io/library/nope:1", new DenoletError("not found"));
  const c: V1Container = { name: "app", image: "nope:1" };
  const attempt = async () => (await pullError(puller.ensureImage(POD, c))).reason;

  assert.equal(await attempt(), "ErrImagePull");
  assert.equal(puller.backoffMs("uid-1", "nope:1"), 10 * S);
  const backoff = await pullError(puller.ensureImage(POD, c));
  assert.equal(backoff.reason, "ImagePullBackOff");
  assert.equal(backoff.message, `Back-off pulling image "nope:1": ErrImagePull: not found`);
  await clock.advance(9 * S);
  assert.equal(await attempt(), "ImagePullBackOff");
  await clock.advance(1 * S);
  assert.equal(await attempt(), "ErrImagePull");
  assert.equal(puller.backoffMs("uid-1", "nope:1"), 20 * S);
  await clock.advance(19 * S);
  assert.equal(await attempt(), "ImagePullBackOff");
  await clock.advance(1 * S);
  assert.equal(await attempt(), "ErrImagePull");
  assert.equal(cri.callsTo("pullImage").length, 3);

  // The image appears (fixed upstream): after the window it is pulled and used.
  cri.pullErrors.clear();
  await clock.advance(40 * S);
  assert.match((await puller.ensureImage(POD, c)).ref, /^sha256:/);
  puller.forgetPod("uid-1");
  assert.equal(puller.backoffMs("uid-1", "nope:1"), 0);
});

Deno.test("ImagePuller: back-off is per pod", async () => {
  const { cri, puller } = setup();
  cri.pullErrors.set("docker.io/library/nope:1", new DenoletError("not found"));
  const c: V1Container = { name: "app", image: "nope:1" };
  assert.equal((await pullError(puller.ensureImage(POD, c))).reason, "ErrImagePull");
  const other: V1Pod = { metadata: { ...POD.metadata, uid: "uid-2" } };
  assert.equal((await pullError(puller.ensureImage(other, c))).reason, "ErrImagePull");
});

Deno.test("ImagePuller: an unparsable reference is InvalidImageName", async () => {
  const { cri, puller } = setup();
  const err = await pullError(puller.ensureImage(POD, { name: "app", image: "Bad Image" }));
  assert.equal(err.reason, "InvalidImageName");
  assert.equal(cri.calls.length, 0);
});

Deno.test("ImagePuller: an unreachable runtime is not an image error", async () => {
  const { cri, puller } = setup();
  cri.unavailable = true;
  await assert.rejects(
    puller.ensureImage(POD, { name: "app", image: "busybox:1.36" }),
    RuntimeUnavailableError,
  );
});

Deno.test("ImagePuller: pulls run one at a time", async () => {
  const { cri, puller } = setup();
  let active = 0;
  let maxActive = 0;
  const gates: (() => void)[] = [];
  const original = cri.pullImage.bind(cri);
  cri.pullImage = async (...args) => {
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise<void>((r) => gates.push(r));
    active--;
    return await original(...args);
  };
  const images = ["a:1", "b:1", "c:1"];
  const all = Promise.all(images.map((image) => puller.ensureImage(POD, { name: image, image })));
  for (let i = 0; i < images.length; i++) {
    while (gates.length === 0) await Promise.resolve();
    assert.equal(active, 1);
    gates.shift()!();
  }
  assert.equal((await all).length, 3);
  assert.equal(maxActive, 1);
});

Deno.test("ImagePuller: a caller aborted while queued leaves without pulling", async () => {
  const { cri, puller } = setup();
  let release!: () => void;
  const original = cri.pullImage.bind(cri);
  cri.pullImage = async (...args) => {
    await new Promise<void>((r) => (release = r));
    return await original(...args);
  };
  const first = puller.ensureImage(POD, { name: "a", image: "a:1" });
  const ac = new AbortController();
  const second = puller.ensureImage(POD, { name: "b", image: "b:1" }, { signal: ac.signal });
  ac.abort(new DenoletError("cancelled"));
  await assert.rejects(second, /cancelled/);
  while (!release) await Promise.resolve();
  release();
  await first;
  assert.equal(cri.callsTo("pullImage").length, 1);
});

Deno.test("applyDefaultTag and pullPolicyOf follow upstream defaults", () => {
  assert.equal(applyDefaultTag("busybox"), "busybox:latest");
  assert.equal(applyDefaultTag("localhost:5000/app"), "localhost:5000/app:latest");
  assert.equal(applyDefaultTag("registry.k8s.io/pause:3.9"), "registry.k8s.io/pause:3.9");
  const digest = "busybox@sha256:" + "a".repeat(64);
  assert.equal(applyDefaultTag(digest), digest);
  assert.equal(applyDefaultTag(""), undefined);
  assert.equal(applyDefaultTag("BusyBox"), undefined);
  assert.equal(applyDefaultTag("a b"), undefined);
  assert.equal(pullPolicyOf({ name: "c" }, "busybox:latest"), "Always");
  assert.equal(pullPolicyOf({ name: "c" }, "busybox:1.36"), "IfNotPresent");
  assert.equal(pullPolicyOf({ name: "c", imagePullPolicy: "Never" }, "busybox:latest"), "Never");
});

/** A puller whose pulls wait for the test to release them, counting how many run at once. */
function gatedPulls(
  opts: ConstructorParameters<typeof ImagePuller>[0] extends infer D ? Partial<D> : never,
) {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const puller = new ImagePuller({ image: cri, clock, logger: nullLogger, ...opts });
  let active = 0;
  let maxActive = 0;
  const gates: (() => void)[] = [];
  const original = cri.pullImage.bind(cri);
  cri.pullImage = async (...args) => {
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise<void>((r) => gates.push(r));
    active--;
    return await original(...args);
  };
  return { clock, cri, puller, gates, active: () => active, maxActive: () => maxActive };
}

Deno.test("ImagePuller: serializeImagePulls false runs up to maxParallelImagePulls at once", async () => {
  for (
    const [queue, expected] of [
      [{ serialize: false, maxParallel: 2 }, 2],
      [{ serialize: false }, 5],
      [{ serialize: true }, 1],
    ] as const
  ) {
    const g = gatedPulls({ queue });
    const images = ["a:1", "b:1", "c:1", "d:1", "e:1"];
    const all = Promise.all(
      images.map((image) => g.puller.ensureImage(POD, { name: image, image })),
    );
    let released = 0;
    while (released < images.length) {
      while (g.gates.length === 0) await Promise.resolve();
      // Let every pull that may start do so before releasing one.
      for (let i = 0; i < 20; i++) await Promise.resolve();
      assert.equal(g.active(), Math.min(expected, images.length - released), JSON.stringify(queue));
      g.gates.shift()!();
      released++;
    }
    assert.equal((await all).length, 5);
    assert.equal(g.maxActive(), expected, JSON.stringify(queue));
  }
});

Deno.test("ImagePuller: registryPullQPS/registryBurst refuse pulls beyond the bucket (upstream's message)", async () => {
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const puller = new ImagePuller({
    image: cri,
    clock,
    logger: nullLogger,
    rate: { qps: 1, burst: 2 },
  });
  const pull = (image: string, uid = "uid-1") =>
    puller.ensureImage({ metadata: { ...POD.metadata, uid } }, { name: "c", image }).then(
      () => "ok",
      (e: ImagePullError) => `${e.reason}: ${e.message}`,
    );
  assert.equal(await pull("a:1"), "ok");
  assert.equal(await pull("b:1"), "ok");
  assert.equal(await pull("c:1"), "ErrImagePull: pull QPS exceeded");
  assert.equal(cri.callsTo("pullImage").length, 2);
  await clock.advance(1000);
  assert.equal(await pull("c:1", "uid-2"), "ok");
});

Deno.test("ImagePuller: Pulled reads as upstream's: Go durations, waiting included, image size", async () => {
  const events: string[] = [];
  const clock = new FakeClock();
  const cri = new FakeRuntime({ clock });
  const puller = new ImagePuller({
    image: cri,
    clock,
    logger: nullLogger,
    events: { event: (_ref, _type, reason, message) => events.push(`${reason}: ${message}`) },
  });
  const original = cri.pullImage.bind(cri);
  const start = Promise.withResolvers<void>();
  cri.pullImage = async (...args) => {
    await start.promise;
    await clock.advance(1234.9);
    return await original(...args);
  };
  const first = puller.ensureImage(POD, { name: "a", image: "busybox:1.36" });
  const second = puller.ensureImage(POD, { name: "b", image: "app:2" });
  // Both are queued before the first pull goes on.
  for (let i = 0; i < 50; i++) await Promise.resolve();
  start.resolve();
  await Promise.all([first, second]);
  const pulled = events.filter((e) => e.startsWith("Pulled"));
  assert.deepEqual(pulled, [
    'Pulled: Successfully pulled image "busybox:1.36" in 1.234s (1.234s including waiting). Image size: 1000000 bytes.',
    // The second waited for the first (serialized pulls).
    'Pulled: Successfully pulled image "app:2" in 1.234s (2.469s including waiting). Image size: 1000000 bytes.',
  ]);
});
