import assert from "node:assert/strict";
import {
  type ContainerGCPolicy,
  type PodStateProvider,
  selectContainersToRemove,
} from "../../src/gc/mod.ts";
import { collector, container, sandbox, setup } from "./_fixtures.ts";

const dead = (id: string, createdAt: number) => ({
  id,
  name: "c",
  createdAt,
  state: "CONTAINER_EXITED" as const,
});
const keepAll = { removeAll: () => false };

Deno.test("container GC selection: the oldest beyond the per-container cap go", () => {
  const units = new Map([["u/a", [dead("a1", 1), dead("a3", 3), dead("a2", 2)]], ["u/b", [
    dead("b1", 1),
  ]]]);
  const policy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };
  assert.deepEqual(selectContainersToRemove(units, policy, keepAll).sort(), ["a1", "a2"]);
  assert.deepEqual(
    selectContainersToRemove(units, { ...policy, maxPerPodContainer: -1 }, keepAll),
    [],
  );
});

Deno.test("container GC selection: the global cap first evens out units, then takes the oldest (upstream order)", () => {
  const units = new Map([
    ["u/a", [dead("a1", 1), dead("a2", 2), dead("a5", 5)]],
    ["u/b", [dead("b3", 3), dead("b4", 4)]],
    ["u/c", [dead("c6", 6)]],
  ]);
  // 2 allowed over 3 units: each keeps max(1, 2/3 → 0) = 1, then the oldest of the rest goes.
  const policy: ContainerGCPolicy = { minAgeMs: 0, maxPerPodContainer: -1, maxContainers: 2 };
  assert.deepEqual(selectContainersToRemove(units, policy, keepAll).sort(), [
    "a1",
    "a2",
    "b3",
    "b4",
  ]);
  // 4 allowed: 4/3 → 1 each is already under the cap after the trim.
  assert.deepEqual(
    selectContainersToRemove(units, { ...policy, maxContainers: 4 }, keepAll).sort(),
    ["a1", "a2", "b3"],
  );
});

Deno.test("container GC selection: everything of a removed pod goes regardless of caps", () => {
  const units = new Map([["gone/a", [dead("a1", 1)]], ["u/b", [dead("b1", 1)]]]);
  const policy = { minAgeMs: 0, maxPerPodContainer: 5, maxContainers: -1 };
  const picked = selectContainersToRemove(units, policy, {
    removeAll: (k) => k.startsWith("gone/"),
  });
  assert.deepEqual(picked, ["a1"]);
});

function podState(removed: string[] = [], terminated: string[] = []): PodStateProvider {
  return {
    shouldPodContentBeRemoved: (uid) => removed.includes(uid),
    shouldPodRuntimeBeRemoved: (uid) => removed.includes(uid) || terminated.includes(uid),
  };
}

Deno.test("container GC: ttl, running containers, other nodes and removed pods", async () => {
  const { clock, cri } = setup();
  const sb = await sandbox(cri, "u1");
  const old = [];
  for (let i = 0; i < 3; i++) {
    old.push(await container(cri, sb, { uid: "u1", name: "web", attempt: i, exit: true }));
    clock.advance(10_000);
  }
  const running = await container(cri, sb, { uid: "u1", name: "web", attempt: 3 });
  const otherSb = await sandbox(cri, "x1", { node: "other-node" });
  const foreign = await container(cri, otherSb, {
    uid: "x1",
    name: "web",
    attempt: 0,
    exit: true,
    node: "other-node",
  });
  await container(cri, otherSb, {
    uid: "x1",
    name: "web",
    attempt: 1,
    exit: true,
    node: "other-node",
  });

  const gc = collector({ cri, clock }, {
    podState: podState(),
    containerPolicy: { minAgeMs: 15_000, maxPerPodContainer: 1 },
  });
  // The newest dead one (10 s old) is too young to count; of the two old enough, one stays.
  assert.deepEqual(await gc.collectContainers(), { containers: 1, sandboxes: 0 });
  assert.ok(!cri.containers.has(old[0]));
  assert.ok(
    cri.containers.has(old[1]) && cri.containers.has(old[2]) && cri.containers.has(running),
  );
  assert.ok(cri.containers.has(foreign), "another node's containers are not ours");

  // The pod is deleted: its dead containers, then its sandbox once nothing uses it, all go.
  await cri.stopPodSandbox(sb);
  const gc2 = collector({ cri, clock }, {
    podState: podState(["u1"]),
  });
  assert.deepEqual(await gc2.collectContainers(), { containers: 3, sandboxes: 1 });
  assert.equal(cri.sandboxes.has(sb), false);
  assert.equal(cri.sandboxes.has(otherSb), true);
});

Deno.test("container GC: old sandboxes go, the newest of a live pod stays", async () => {
  const { clock, cri } = setup();
  const s0 = await sandbox(cri, "u2", { attempt: 0 });
  await cri.stopPodSandbox(s0);
  clock.advance(1000);
  const s1 = await sandbox(cri, "u2", { attempt: 1 });
  await container(cri, s1, { uid: "u2", name: "c", attempt: 0, exit: true });
  await cri.stopPodSandbox(s1);
  clock.advance(1000);
  const s2 = await sandbox(cri, "u2", { attempt: 2 });
  const gc = collector({ cri, clock }, {
    podState: podState(),
  });
  const r = await gc.collectContainers();
  assert.equal(r.sandboxes, 1);
  // s0 is unused and old; s1 still holds a (kept) dead container; s2 is ready.
  assert.deepEqual([...cri.sandboxes.keys()].sort(), [s1, s2].sort());
});
