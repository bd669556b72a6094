import assert from "node:assert/strict";
import { renderResourceMetrics, type Summary } from "../../src/stats/mod.ts";

const T = new Date(Date.UTC(2026, 10, 22, 3, 0, 0));
const MS = T.getTime();

const summary: Summary = {
  node: {
    nodeName: "n",
    startTime: T,
    cpu: { time: T, usageCoreNanoSeconds: 12_500_000_000 },
    memory: { time: T, workingSetBytes: 1024 },
  },
  pods: [{
    podRef: { name: "web", namespace: "default", uid: "u" },
    startTime: T,
    cpu: { time: T, usageCoreNanoSeconds: 2e9 },
    memory: { time: T, workingSetBytes: 300 },
    containers: [{
      name: "app",
      startTime: new Date(1795315165_500),
      cpu: { time: T, usageCoreNanoSeconds: 1.5e9 },
      memory: { time: T, workingSetBytes: 200 },
    }],
  }],
};

Deno.test("resource metrics use the upstream names, labels, types and sample timestamps", () => {
  const text = renderResourceMetrics(summary);
  const lines = text.split("\n");
  for (
    const l of [
      "# TYPE node_cpu_usage_seconds_total counter",
      `node_cpu_usage_seconds_total 12.5 ${MS}`,
      `node_memory_working_set_bytes 1024 ${MS}`,
      `container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 1.5 ${MS}`,
      `container_memory_working_set_bytes{container="app",namespace="default",pod="web"} 200 ${MS}`,
      `container_start_time_seconds{container="app",namespace="default",pod="web"} 1795315165.5`,
      `pod_cpu_usage_seconds_total{namespace="default",pod="web"} 2 ${MS}`,
      `pod_memory_working_set_bytes{namespace="default",pod="web"} 300 ${MS}`,
      "# TYPE pod_memory_working_set_bytes gauge",
      "resource_scrape_error 0",
      "scrape_error 0",
    ]
  ) assert.ok(lines.includes(l), `missing line: ${l}\n${text}`);
  assert.ok(
    lines.includes(
      "# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds",
    ),
  );
  assert.ok(!text.includes("swap"), "families without samples are left out");
});

Deno.test("a failed summary renders only the scrape error gauges set to 1", () => {
  assert.equal(
    renderResourceMetrics(undefined).split("\n").filter((l) => !l.startsWith("#")).join(";"),
    "resource_scrape_error 1;scrape_error 1;",
  );
});

Deno.test("label values are escaped", () => {
  const s = structuredClone(summary);
  s.pods[0].podRef.name = 'we"b\\x';
  assert.ok(renderResourceMetrics(s).includes('pod="we\\"b\\\\x"'));
});
