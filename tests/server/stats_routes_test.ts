import assert from "node:assert/strict";
import { createNodeApiHandler } from "../../src/server/mod.ts";
import type { StatsProvider, Summary, SummaryOptions } from "../../src/stats/mod.ts";
import { fakeDeps } from "./_fakes.ts";

const T = new Date(Date.UTC(2026, 10, 22, 3, 0, 0, 456));
const SUMMARY: Summary = {
  node: { nodeName: "node-a", startTime: T, cpu: { time: T, usageCoreNanoSeconds: 1e9 } },
  pods: [],
};

function fakeStats(fail = false): StatsProvider & { calls: SummaryOptions[] } {
  const calls: SummaryOptions[] = [];
  return {
    calls,
    summary(opts = {}) {
      calls.push(opts);
      return fail ? Promise.reject(new Error("runtime down")) : Promise.resolve(SUMMARY);
    },
    latest: () => SUMMARY,
    latestNode: () => SUMMARY.node,
    sampleNow: () => Promise.resolve(SUMMARY),
    run: () => Promise.resolve(),
  };
}

const get = (path: string) => new Request(`http://node${path}`);

Deno.test("/stats/summary answers the Summary as JSON with metav1.Time seconds", async () => {
  const stats = fakeStats();
  const res = await createNodeApiHandler(fakeDeps({ stats }))(get("/stats/summary"));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  const body = await res.json();
  assert.equal(body.node.nodeName, "node-a");
  assert.equal(body.node.startTime, "2026-11-22T03:00:00Z");
  assert.deepEqual(body.pods, []);
  assert.equal(stats.calls[0].onlyCpuAndMemory, false);
});

Deno.test("/stats/summary?only_cpu_and_memory=true asks for the trimmed summary", async () => {
  const stats = fakeStats();
  const handler = createNodeApiHandler(fakeDeps({ stats }));
  await (await handler(get("/stats/summary?only_cpu_and_memory=true"))).body?.cancel();
  await (await handler(get("/stats/summary?only_cpu_and_memory=1"))).body?.cancel();
  assert.deepEqual(stats.calls.map((c) => c.onlyCpuAndMemory), [true, false]);
});

Deno.test("/metrics/resource is Prometheus text; a failed summary is scrape_error 1", async () => {
  const ok = await createNodeApiHandler(fakeDeps({ stats: fakeStats() }))(get("/metrics/resource"));
  assert.equal(ok.status, 200);
  assert.match(ok.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  assert.match(await ok.text(), /^node_cpu_usage_seconds_total 1 \d+$/m);
  const bad = await createNodeApiHandler(fakeDeps({ stats: fakeStats(true) }))(
    get("/metrics/resource"),
  );
  assert.equal(bad.status, 200);
  assert.match(await bad.text(), /^resource_scrape_error 1$/m);
});

Deno.test("stats routes are 404 without a stats provider", async () => {
  const handler = createNodeApiHandler(fakeDeps());
  for (const path of ["/stats/summary", "/metrics/resource"]) {
    const res = await handler(get(path));
    assert.equal(res.status, 404);
    await res.body?.cancel();
  }
});
