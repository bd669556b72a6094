import assert from "node:assert/strict";
import { createCgroupReader, detectCgroupMode } from "../../src/stats/_cgroup.ts";
import { sumSamples } from "../../src/stats/_pods.ts";

const FIX = new URL("./fixtures/", import.meta.url).pathname;
const V1 = `${FIX}cgroup_v1`;
const V2 = `${FIX}cgroup_v2`;

Deno.test("detectCgroupMode tells per-controller v1 from unified v2", async () => {
  assert.equal(await detectCgroupMode(V1), "v1");
  assert.equal(await detectCgroupMode(V2), "v2");
});

Deno.test("cgroup v1: cpuacct.usage, memory working set = usage - total_inactive_file, pids", async () => {
  const r = createCgroupReader(V1, "v1");
  const s = await r.read("/k8s.io/c1");
  assert.deepEqual(s, {
    cpuUsageNs: 2_000_000_000,
    memory: {
      usageBytes: 50_000_000,
      workingSetBytes: 40_000_000,
      rssBytes: 35_000_000,
      pageFaults: 1200,
      majorPageFaults: 2,
      limitBytes: 104857600,
    },
    pids: 3,
  });
  assert.deepEqual(await r.procs("k8s.io/c1"), [4300, 4301]);
});

Deno.test("cgroup v1: the root cgroup has no limit and no pids.current", async () => {
  const s = await createCgroupReader(V1, "v1").read("");
  assert.equal(s?.cpuUsageNs, 800_000_000_000);
  assert.equal(s?.memory?.workingSetBytes, 1_100_000_000);
  assert.equal(s?.memory?.limitBytes, undefined);
  assert.equal(s?.pids, undefined);
});

Deno.test("cgroup v2: cpu.stat usage_usec, memory.current, memory.stat anon/inactive_file", async () => {
  const r = createCgroupReader(V2, "v2");
  const pod = await r.read("kubepods/burstable/podu2");
  assert.deepEqual(pod, {
    cpuUsageNs: 3_000_000_000,
    memory: {
      usageBytes: 73400320,
      workingSetBytes: 73400320 - 10485760,
      rssBytes: 52428800,
      pageFaults: 321,
      majorPageFaults: 4,
      limitBytes: undefined,
    },
    pids: 5,
  });
  const c = await r.read("kubepods/burstable/podu2/c2");
  assert.equal(c?.memory?.limitBytes, 104857600);
  assert.equal(c?.memory?.workingSetBytes, 52_000_000);
  assert.deepEqual(await r.procs("kubepods/burstable/podu2/sb2"), [5151]);
});

Deno.test("memoryLimit reads the limit alone: v1 limit_in_bytes, v2 memory.max, root unlimited", async () => {
  const v1 = createCgroupReader(V1, "v1");
  assert.deepEqual(await v1.memoryLimit("k8s.io/c1"), { limitBytes: 104857600 });
  assert.deepEqual(await v1.memoryLimit(""), { limitBytes: undefined });
  const v2 = createCgroupReader(V2, "v2");
  assert.deepEqual(await v2.memoryLimit("kubepods/burstable/podu2/c2"), { limitBytes: 104857600 });
  assert.deepEqual(await v2.memoryLimit("kubepods/burstable/podu2"), { limitBytes: undefined });
});

Deno.test("a cgroup that does not exist reads as undefined, its procs as empty", async () => {
  for (const mode of ["v1", "v2"] as const) {
    const r = createCgroupReader(mode === "v1" ? V1 : V2, mode);
    assert.equal(await r.read("k8s.io/gone"), undefined);
    assert.deepEqual(await r.procs("k8s.io/gone"), []);
    assert.equal(await r.memoryLimit("k8s.io/gone"), undefined);
  }
});

Deno.test("sumSamples adds containers and drops per-container limits", () => {
  const s = sumSamples([
    { cpuUsageNs: 1, pids: 1, memory: { usageBytes: 10, workingSetBytes: 8, limitBytes: 100 } },
    { cpuUsageNs: 2, memory: { usageBytes: 5, workingSetBytes: 4, rssBytes: 3 } },
  ]);
  assert.equal(s.cpuUsageNs, 3);
  assert.equal(s.pids, 1);
  assert.equal(s.memory?.usageBytes, 15);
  assert.equal(s.memory?.workingSetBytes, 12);
  assert.equal(s.memory?.rssBytes, 3);
  assert.equal(s.memory?.limitBytes, undefined);
});
