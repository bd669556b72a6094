import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  type IdRange,
  UserNamespaces,
  type UserNamespacesDeps,
  UsernsError,
  UsernsUnsupportedError,
} from "../../src/userns/mod.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeUsernsFs, PODS } from "./_fake_fs.ts";

const DEFAULT_RANGE: IdRange = { firstId: 65536, length: 2 ** 32 - 65536, source: "default" };

function pod(uid: string, hostUsers?: boolean): V1Pod {
  return {
    metadata: { name: `p-${uid}`, namespace: "default", uid },
    spec: { hostUsers, containers: [{ name: "c", image: "busybox" }] },
  };
}

function manager(
  fs: FakeUsernsFs,
  opts: {
    range?: IdRange;
    maxPods?: number;
    support?: boolean | "unknown";
    random?: () => number;
    idsPerPod?: number;
  } = {},
): UserNamespaces {
  const deps: UserNamespacesDeps = {
    fs,
    podDir: (uid) => `${PODS}/${uid}`,
    handlerSupport: () => Promise.resolve(opts.support ?? true),
    logger: nullLogger,
    random: opts.random ?? (() => 0),
  };
  return new UserNamespaces(deps, {
    range: opts.range ?? DEFAULT_RANGE,
    maxPods: opts.maxPods ?? 110,
    idsPerPod: opts.idsPerPod,
  });
}

Deno.test("a pod without hostUsers: false runs in the node's user namespace, as upstream sends it", async () => {
  const fs = new FakeUsernsFs();
  const m = manager(fs, { support: false });
  assert.deepEqual(await m.namespaceFor(pod("a")), { mode: "NODE" });
  assert.deepEqual(await m.namespaceFor(pod("b", true)), { mode: "NODE" });
  assert.equal(fs.files.size, 0);
});

Deno.test("hostUsers: false gets a 65536-ID range mapped from 0, persisted in the pod directory", async () => {
  const fs = new FakeUsernsFs();
  const m = manager(fs);
  const ns = await m.namespaceFor(pod("a", false));
  const ids = [{ hostId: 65536, containerId: 0, length: 65536 }];
  assert.deepEqual(ns, { mode: "POD", uids: ids, gids: ids });
  // Upstream's file name and JSON, so a pod directory reads the same to either kubelet.
  assert.deepEqual(JSON.parse(fs.files.get(`${PODS}/a/userns`)!), {
    uidMappings: ids,
    gidMappings: ids,
  });
  // Asking again gives the same range and writes nothing.
  assert.deepEqual(await m.namespaceFor(pod("a", false)), ns);
  assert.equal(fs.writes, 1);
});

Deno.test("two pods never share a range, and concurrent first asks agree", async () => {
  const fs = new FakeUsernsFs();
  const m = manager(fs, { random: () => 0.5 });
  const got = await Promise.all(
    ["a", "b", "c", "a", "b"].map((uid) => m.namespaceFor(pod(uid, false))),
  );
  const first = got.map((ns) => ns.uids![0].hostId);
  assert.equal(first[0], first[3]);
  assert.equal(first[1], first[4]);
  assert.equal(new Set(first.slice(0, 3)).size, 3);
  for (const id of first) assert.equal(id % 65536, 0);
  assert.equal(fs.writes, 3);
});

Deno.test("a restarted manager keeps each pod's range and never hands it to another pod", async () => {
  const fs = new FakeUsernsFs();
  const before = manager(fs);
  const a = (await before.namespaceFor(pod("a", false))).uids![0].hostId;
  // The same start point would pick a's slot again if the restart had forgotten it.
  const after = manager(fs);
  const b = (await after.namespaceFor(pod("b", false))).uids![0].hostId;
  assert.notEqual(b, a);
  assert.equal((await after.namespaceFor(pod("a", false))).uids![0].hostId, a);
});

Deno.test("release frees the range and removes the file; the next pod may take it", async () => {
  const fs = new FakeUsernsFs();
  const m = manager(fs);
  const a = (await m.namespaceFor(pod("a", false))).uids![0].hostId;
  await m.release("a");
  assert.equal(fs.files.has(`${PODS}/a/userns`), false);
  assert.equal((await m.namespaceFor(pod("b", false))).uids![0].hostId, a);
  await m.release("a"); // idempotent
});

Deno.test("release before any pod asked removes a file left by an earlier run", async () => {
  const fs = new FakeUsernsFs();
  await manager(fs).namespaceFor(pod("a", false));
  const restarted = manager(fs);
  await restarted.release("a");
  assert.equal(fs.files.has(`${PODS}/a/userns`), false);
});

Deno.test("a runtime without user namespace support fails the pod with upstream's message", async () => {
  const fs = new FakeUsernsFs();
  await assert.rejects(
    manager(fs, { support: false }).namespaceFor(pod("a", false)),
    (e: Error) =>
      e instanceof UsernsUnsupportedError &&
      e.message === "can't set `spec.hostUsers: false`, runtime does not support user namespaces",
  );
  await assert.rejects(
    manager(fs, { support: "unknown" }).namespaceFor(pod("a", false)),
    (e: Error) =>
      e.message === "can't set `spec.hostUsers: false`, runtime does not support user " +
          'namespaces: the handler "" is not known',
  );
  await assert.rejects(
    manager(fs, { support: false }).namespaceFor(pod("a", false), { handler: "kata" }),
    (e: Error) =>
      e.message === 'can\'t set `spec.hostUsers: false`, RuntimeClass handler "kata" does not ' +
          "support user namespaces",
  );
  assert.equal(fs.files.size, 0);
});

Deno.test("a failed write gives the range back", async () => {
  const fs = new FakeUsernsFs();
  const m = manager(fs);
  fs.failNextWrite = true;
  await assert.rejects(m.namespaceFor(pod("a", false)), /create user namespace: disk full/);
  assert.equal((await m.namespaceFor(pod("b", false))).uids![0].hostId, 65536);
});

Deno.test("an unusable file in a pod directory stops allocations instead of risking a shared range", async () => {
  const fs = new FakeUsernsFs();
  fs.files.set(`${PODS}/old/userns`, '{"uidMappings":[],"gidMappings":[]}');
  const m = manager(fs);
  await assert.rejects(
    m.namespaceFor(pod("a", false)),
    (e: Error) =>
      e instanceof UsernsError &&
      e.message.startsWith('record pod mappings for existing pod "old"'),
  );
  // Host-user pods are not affected; once the file is gone the next ask succeeds.
  assert.deepEqual(await m.namespaceFor(pod("b")), { mode: "NODE" });
  fs.removePodDir("old");
  assert.equal((await m.namespaceFor(pod("a", false))).mode, "POD");
});

Deno.test("a range that no slot is left in is an error, not the host's namespace", async () => {
  const fs = new FakeUsernsFs();
  const m = manager(fs, {
    range: { firstId: 65536, length: 2 * 65536, source: "subid" },
    maxPods: 2,
  });
  await m.namespaceFor(pod("a", false));
  await m.namespaceFor(pod("b", false));
  await assert.rejects(
    m.namespaceFor(pod("c", false)),
    /could not find an empty slot to allocate a user namespace/,
  );
});

Deno.test("the node's range is checked at start with upstream's messages", () => {
  const fs = new FakeUsernsFs();
  const bad = (range: Partial<IdRange>, maxPods = 1, idsPerPod?: number) => () =>
    manager(fs, { range: { ...DEFAULT_RANGE, ...range }, maxPods, idsPerPod });
  assert.throws(bad({ firstId: 100 }), /kubelet user assigned ID 100 is not a multiple of 65536/);
  assert.throws(
    bad({ firstId: 0 }),
    /kubelet user assigned ID 0 must be greater or equal to 65536/,
  );
  assert.throws(
    bad({ firstId: 65536, length: 1000 }),
    /kubelet user assigned IDs length 1000 is not a multiple of 65536/,
  );
  assert.throws(
    bad({ firstId: 65536, length: 65536 }, 110),
    /kubelet user assigned IDs are not enough to support 110 pods/,
  );
  assert.throws(bad({}, 1, 1000), /kubelet user namespace length 1000 is not a multiple of 65536/);
  // idsPerPod 131072 with the default range (which starts at idsPerPod).
  const m = manager(fs, {
    range: { firstId: 131072, length: 2 ** 32 - 131072, source: "default" },
    idsPerPod: 131072,
  });
  assert.ok(m);
});

Deno.test("a larger idsPerPod gives each pod that many IDs", async () => {
  const fs = new FakeUsernsFs();
  const m = manager(fs, {
    range: { firstId: 131072, length: 2 ** 32 - 131072, source: "default" },
    idsPerPod: 131072,
  });
  const ns = await m.namespaceFor(pod("a", false));
  assert.deepEqual(ns.uids, [{ hostId: 131072, containerId: 0, length: 131072 }]);
});

Deno.test("the last range of the default, which would reach ID 4294967295, is never handed out", async () => {
  const fs = new FakeUsernsFs();
  // 2^30 IDs per pod: the default range from 2^30 holds three, the last ending at 2^32, which
  // the kernel refuses to map (it would fail the pod's sandbox for good).
  const per = 2 ** 30;
  const range: IdRange = { firstId: per, length: 2 ** 32 - per, source: "default" };
  // A start point at the end would pick the last range first.
  const m = manager(fs, { range, idsPerPod: per, maxPods: 2, random: () => 0.99 });
  const got = [];
  for (const uid of ["a", "b"]) got.push((await m.namespaceFor(pod(uid, false))).uids![0].hostId);
  assert.deepEqual(got.sort(), [per, 2 * per]);
  await assert.rejects(m.namespaceFor(pod("c", false)), /could not find an empty slot/);
  assert.throws(
    () => manager(fs, { range, idsPerPod: per, maxPods: 3 }),
    /kubelet user assigned IDs are not enough to support 3 pods/,
  );
});
