import assert from "node:assert/strict";
import {
  createAgentMetrics,
  createMetricsRegistry,
  escapeLabelValue,
  exponentialBuckets,
} from "../../src/util/metrics.ts";

Deno.test("metrics render counters, gauges and histograms in stable text format", () => {
  const r = createMetricsRegistry();
  const ops = r.counterVec({ name: "b_ops_total", help: "Ops.", labelNames: ["op"] });
  const g = r.gauge({ name: "a_gauge", help: "A gauge.\nSecond \\ line", stability: "ALPHA" });
  const h = r.histogramVec({
    name: "c_seconds",
    help: "Durations.",
    labelNames: ["kind"],
    buckets: [0.1, 1],
  });
  ops.labels("start").inc();
  ops.labels("list").inc(2);
  ops.labels("start").inc();
  g.set(3);
  g.dec();
  h.labels("x").observe(0.05);
  h.labels("x").observe(0.5);
  h.labels("x").observe(7);
  assert.equal(
    r.render(),
    [
      "# HELP a_gauge [ALPHA] A gauge.\\nSecond \\\\ line",
      "# TYPE a_gauge gauge",
      "a_gauge 2",
      "# HELP b_ops_total Ops.",
      "# TYPE b_ops_total counter",
      'b_ops_total{op="list"} 2',
      'b_ops_total{op="start"} 2',
      "# HELP c_seconds Durations.",
      "# TYPE c_seconds histogram",
      'c_seconds_bucket{kind="x",le="0.1"} 1',
      'c_seconds_bucket{kind="x",le="1"} 2',
      'c_seconds_bucket{kind="x",le="+Inf"} 3',
      'c_seconds_sum{kind="x"} 7.55',
      'c_seconds_count{kind="x"} 3',
      "",
    ].join("\n"),
  );
});

Deno.test("metrics escape label values", () => {
  assert.equal(escapeLabelValue('a"b\\c\nd'), 'a\\"b\\\\c\\nd');
  const r = createMetricsRegistry();
  r.counterVec({ name: "x_total", help: "h", labelNames: ["path"] }).labels('/a"b').inc();
  assert.match(r.render(), /x_total\{path="\/a\\"b"\} 1\n/);
});

Deno.test("metrics gauge functions are evaluated at scrape", () => {
  const r = createMetricsRegistry();
  let n = 1;
  r.gauge({ name: "live", help: "h" }).setFunction(() => n);
  assert.match(r.render(), /^live 1$/m);
  n = 5;
  assert.match(r.render(), /^live 5$/m);
});

Deno.test("metrics vec without children is not rendered; reset drops children", () => {
  const r = createMetricsRegistry();
  const v = r.gaugeVec({ name: "states", help: "h", labelNames: ["state"] });
  assert.equal(r.render(), "");
  v.labels("running").set(2);
  assert.match(r.render(), /states\{state="running"\} 2/);
  v.reset();
  assert.equal(r.render(), "");
});

Deno.test("metrics reject bad names, duplicates, wrong label counts and negative counters", () => {
  const r = createMetricsRegistry();
  assert.throws(() => r.counter({ name: "bad-name", help: "h" }), RangeError);
  r.counter({ name: "dup", help: "h" });
  assert.throws(() => r.counter({ name: "dup", help: "h" }), /already registered/);
  assert.throws(
    () => r.histogramVec({ name: "h1", help: "h", labelNames: ["le"] }),
    /Invalid label name/,
  );
  assert.throws(() => r.histogram({ name: "h2", help: "h", buckets: [1, 1] }), /increasing/);
  const v = r.counterVec({ name: "two", help: "h", labelNames: ["a", "b"] });
  assert.throws(() => v.labels("only-one"), /takes 2 label values/);
  assert.throws(() => v.labels("a", "b").inc(-1), RangeError);
});

Deno.test("metrics exponentialBuckets matches upstream's runtime operation buckets", () => {
  const b = exponentialBuckets(0.005, 2.5, 14);
  assert.equal(b.length, 14);
  assert.equal(b[0], 0.005);
  assert.equal(b[1], 0.0125);
  assert.ok(Math.abs(b[13] - 745.0580596923828) < 1e-9);
});

Deno.test("createAgentMetrics registers the upstream kubelet names and labels", () => {
  const r = createMetricsRegistry();
  const m = createAgentMetrics(r);
  m.runningPods.set(2);
  m.runningContainers.labels("running").set(3);
  m.plegRelistDuration.observe(0.02);
  m.plegRelistInterval.observe(1.01);
  m.podWorkerDuration.labels("sync").observe(0.3);
  m.runtimeOperations.labels("list_podsandbox").inc();
  m.runtimeOperationsErrors.labels("pull_image").inc();
  m.runtimeOperationsDuration.labels("list_podsandbox").observe(0.001);
  m.startedPods.inc();
  m.startedContainers.labels("init_container").inc();
  const text = r.render();
  for (
    const line of [
      "# HELP kubelet_running_pods [ALPHA] Number of pods that have a running pod sandbox",
      "# TYPE kubelet_running_pods gauge",
      "kubelet_running_pods 2",
      'kubelet_running_containers{container_state="running"} 3',
      "# TYPE kubelet_pleg_relist_duration_seconds histogram",
      'kubelet_pleg_relist_duration_seconds_bucket{le="0.025"} 1',
      "kubelet_pleg_relist_interval_seconds_count 1",
      'kubelet_pod_worker_duration_seconds_count{operation_type="sync"} 1',
      'kubelet_runtime_operations_total{operation_type="list_podsandbox"} 1',
      'kubelet_runtime_operations_errors_total{operation_type="pull_image"} 1',
      'kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="0.005"} 1',
      'kubelet_runtime_operations_duration_seconds_bucket{operation_type="list_podsandbox",le="745.0580596923828"} 1',
      "kubelet_started_pods_total 1",
      'kubelet_started_containers_total{container_type="init_container"} 1',
    ]
  ) {
    assert.ok(text.split("\n").includes(line), `missing line: ${line}\n${text}`);
  }
});

Deno.test("a vector drops the series matching some label values", () => {
  const r = createMetricsRegistry();
  const c = r.counterVec({ name: "x_total", help: "x", labelNames: ["pod", "kind"] });
  c.labels("a", "1").inc();
  c.labels("a", "2").inc();
  c.labels("b", "1").inc();
  c.deleteWhere({ pod: "a" });
  const text = r.render();
  if (text.includes('pod="a"') || !text.includes('pod="b"')) throw new Error(text);
});
