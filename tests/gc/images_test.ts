import assert from "node:assert/strict";
import { ImageGCError, normalizeImageRef } from "../../src/gc/mod.ts";
import { ConfigError } from "../../src/util/errors.ts";
import { collector, container, IMAGE, sandbox, setup } from "./_fixtures.ts";

const MB = 1_000_000;

function gcWith(
  env: ReturnType<typeof setup>,
  fs: { capacityBytes: number; availableBytes: number },
  extra: { sandboxImage?: string; minAgeMs?: number } = {},
) {
  return collector(env, {
    sandboxImage: extra.sandboxImage,
    imagePolicy: { minAgeMs: extra.minAgeMs ?? 0 },
    fsStats: () => Promise.resolve(fs),
  });
}

Deno.test("image GC frees least recently used images first, never in-use, pinned or sandbox ones", async () => {
  const env = setup();
  const { cri, clock } = env;
  cri.addImage("docker.io/library/pause:3.9", { id: "sha256:pause", size: 50 * MB });
  cri.addImage("docker.io/library/pinned:1", { id: "sha256:pinned", size: 50 * MB, pinned: true });
  cri.addImage("docker.io/library/old:1", { id: "sha256:old", size: 10 * MB });
  cri.addImage("docker.io/library/recent:1", { id: "sha256:recent", size: 10 * MB });
  const gc = gcWith(env, { capacityBytes: 100 * MB, availableBytes: 50 * MB }, {
    sandboxImage: "pause:3.9",
  });
  // "recent" was used by a container that is gone by the time space is needed; "old" never was.
  const sb = await sandbox(cri, "u1");
  const c = await container(cri, sb, {
    uid: "u1",
    name: "c",
    attempt: 0,
    image: "docker.io/library/recent:1",
  });
  await container(cri, sb, { uid: "u1", name: "busy", attempt: 0 });
  await gc.images.detect(clock.now());
  await cri.removeContainer(c);
  clock.advance(1000);

  assert.equal(await gc.collectImages({ bytesToFree: 5 * MB }), 10 * MB);
  assert.deepEqual(cri.callsTo("removeImage").map((a) => (a[0] as { image: string }).image), [
    "sha256:old",
  ]);
  assert.equal(await gc.collectImages({ bytesToFree: 1000 * MB }), 10 * MB);
  // busybox is in use by the running container; pause is the sandbox image; pinned is pinned.
  assert.deepEqual([...cri.images.keys()].sort(), [
    "sha256:busybox",
    "sha256:pause",
    "sha256:pinned",
  ]);
});

Deno.test("image GC honours the minimum age from first detection", async () => {
  const env = setup();
  env.cri.addImage("docker.io/library/young:1", { id: "sha256:young", size: 10 * MB });
  const gc = gcWith(env, { capacityBytes: 100 * MB, availableBytes: 0 }, { minAgeMs: 120_000 });
  assert.equal(await gc.collectImages({ bytesToFree: 1 }), 0);
  env.clock.advance(120_000);
  assert.equal(await gc.collectImages({ bytesToFree: 100 * MB }), 10 * MB + 1000);
});

Deno.test("image GC thresholds: nothing below high, down to low above it, error when short", async () => {
  const env = setup();
  env.cri.addImage("docker.io/library/a:1", { id: "sha256:a", size: 10 * MB });
  // 84% used: below the 85% default.
  let r = await gcWith(env, { capacityBytes: 100 * MB, availableBytes: 16 * MB }).images
    .garbageCollect(
      { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 0 },
    );
  assert.deepEqual(r, { usagePercent: 84, freed: 0 });
  // 90% used: needs 100*20% - 10 = 10 MB, which image a (10 MB) provides.
  r = await gcWith(env, { capacityBytes: 100 * MB, availableBytes: 10 * MB }).images.garbageCollect(
    { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 0 },
  );
  assert.deepEqual(r, { usagePercent: 90, freed: 10 * MB + 1000 });
  await assert.rejects(
    gcWith(env, { capacityBytes: 100 * MB, availableBytes: 1 * MB }).images.garbageCollect(
      { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 0 },
    ),
    (e: unknown) =>
      e instanceof ImageGCError &&
      /Attempted to free 19000000 bytes, but only found 0/.test(String(e)),
  );
});

Deno.test("image GC rejects a low threshold above the high one", () => {
  const env = setup();
  assert.throws(
    () =>
      collector(env, {
        imagePolicy: { highThresholdPercent: 50, lowThresholdPercent: 60 },
      }),
    ConfigError,
  );
});

Deno.test("image references normalise like containerd's", () => {
  assert.equal(normalizeImageRef("pause:3.9"), "docker.io/library/pause:3.9");
  assert.equal(normalizeImageRef("busybox"), IMAGE);
  assert.equal(normalizeImageRef("registry.k8s.io/pause:3.9"), "registry.k8s.io/pause:3.9");
  assert.equal(normalizeImageRef("me/app"), "docker.io/me/app:latest");
  assert.equal(normalizeImageRef("localhost:5000/app"), "localhost:5000/app:latest");
});

Deno.test("image GC by age: images unused for longer than imageMaximumGCAge go, whatever the disk usage", async () => {
  const env = setup();
  const { cri, clock } = env;
  cri.addImage("docker.io/library/stale:1", { id: "sha256:stale", size: 10 * MB });
  cri.addImage("docker.io/library/pinned:1", { id: "sha256:pinned", size: 10 * MB, pinned: true });
  const gc = collector({ cri, clock }, {
    imagePolicy: { minAgeMs: 0, maxAgeMs: 60 * 60_000 },
    // Plenty of space: the threshold check alone would remove nothing.
    fsStats: () => Promise.resolve({ capacityBytes: 1000 * MB, availableBytes: 900 * MB }),
  });
  const sb = await sandbox(cri, "u1");
  await container(cri, sb, { uid: "u1", name: "busy", attempt: 0 });
  await gc.collectImages();
  // Not before the agent has run for the maximum age (upstream beganGC).
  await clock.advance(30 * 60_000);
  await gc.collectImages();
  assert.equal(cri.callsTo("removeImage").length, 0);
  await clock.advance(31 * 60_000);
  await gc.collectImages();
  assert.deepEqual(cri.callsTo("removeImage").map((a) => (a[0] as { image: string }).image), [
    "sha256:stale",
  ]);
  // busybox is in use; pinned is pinned.
  assert.deepEqual([...cri.images.keys()].sort(), ["sha256:busybox", "sha256:pinned"]);
});
