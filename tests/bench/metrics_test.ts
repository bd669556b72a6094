import assert from "node:assert/strict";
import {
  counterDelta,
  countersBy,
  countersByLabels,
  histogram,
  histogramDelta,
  histogramQuantile,
  summarizeHistogram,
} from "./_metrics.ts";

const scrape = (relist: number[], sum: number, ops: number) => `
# HELP kubelet_pleg_relist_duration_seconds [ALPHA] Duration in seconds for relisting pods in PLEG.
# TYPE kubelet_pleg_relist_duration_seconds histogram
kubelet_pleg_relist_duration_seconds_bucket{le="0.005"} ${relist[0]}
kubelet_pleg_relist_duration_seconds_bucket{le="0.01"} ${relist[1]}
kubelet_pleg_relist_duration_seconds_bucket{le="+Inf"} ${relist[2]}
kubelet_pleg_relist_duration_seconds_sum ${sum}
kubelet_pleg_relist_duration_seconds_count ${relist[2]}
kubelet_runtime_operations_total{operation_type="list_containers"} ${ops}
kubelet_runtime_operations_total{operation_type="run_podsandbox"} 3
`;

Deno.test("countersBy reads a counter family by one label", () => {
  assert.deepEqual(
    countersBy(scrape([0, 0, 0], 0, 7), "kubelet_runtime_operations_total", "operation_type"),
    {
      list_containers: 7,
      run_podsandbox: 3,
    },
  );
});

Deno.test("countersBy sums the series that share the label's value", () => {
  const text = `
prober_probe_total{probe_type="Readiness",result="successful",container="web",pod="a"} 4
prober_probe_total{probe_type="Liveness",result="successful",container="web",pod="a"} 3
prober_probe_total{probe_type="Readiness",result="failed",container="side",pod="b"} 1
`;
  assert.deepEqual(countersBy(text, "prober_probe_total", "result"), { successful: 7, failed: 1 });
  assert.deepEqual(countersBy(text, "prober_probe_total", "probe_type"), {
    Readiness: 5,
    Liveness: 3,
  });
});

Deno.test("counterDelta keeps only what changed between two scrapes", () => {
  assert.deepEqual(counterDelta({ a: 1, b: 2 }, { a: 1, b: 5, c: 1 }), { b: 3, c: 1 });
});

Deno.test("histogram parses buckets with +Inf and is undefined when absent", () => {
  const h = histogram(scrape([1, 3, 4], 0.02, 0), "kubelet_pleg_relist_duration_seconds");
  assert.deepEqual(h, { buckets: [[0.005, 1], [0.01, 3], [Infinity, 4]], sum: 0.02, count: 4 });
  assert.equal(histogram("", "denolet_sync_loop_iteration_duration_seconds"), undefined);
});

Deno.test("histogramDelta covers only the window between two scrapes", () => {
  const name = "kubelet_pleg_relist_duration_seconds";
  const a = histogram(scrape([1, 3, 4], 0.02, 0), name)!;
  const b = histogram(scrape([11, 13, 14], 0.07, 0), name)!;
  const d = histogramDelta(a, b);
  assert.deepEqual(d.buckets, [[0.005, 10], [0.01, 10], [Infinity, 10]]);
  const s = summarizeHistogram(d);
  assert.equal(s.count, 10);
  assert.ok(Math.abs(s.meanMs - 5) < 1e-9);
});

Deno.test("histogramQuantile interpolates inside the bucket as Prometheus does", () => {
  const h = {
    buckets: [[1, 10], [2, 20], [Infinity, 20]] as [number, number][],
    sum: 0,
    count: 20,
  };
  assert.equal(histogramQuantile(h, 0.5), 1);
  assert.equal(histogramQuantile(h, 0.75), 1.5);
  assert.ok(Number.isNaN(histogramQuantile({ buckets: [], sum: 0, count: 0 }, 0.5)));
  const tail = { buckets: [[1, 1], [Infinity, 10]] as [number, number][], sum: 0, count: 10 };
  assert.equal(histogramQuantile(tail, 0.99), 1);
});

Deno.test("countersByLabels keys a family by several labels, summing the rest", () => {
  const text = [
    'rest_client_requests_total{code="200",host="h:1",method="GET"} 4',
    'rest_client_requests_total{code="200",host="h:2",method="GET"} 1',
    'rest_client_requests_total{code="201",host="h:1",method="POST"} 2',
    'rest_client_requests_total{host="h:1",method="PUT"} 9',
    'rest_client_request_size_bytes_sum{host="h:1",verb="PUT"} 100',
  ].join("\n");
  assert.deepEqual(countersByLabels(text, "rest_client_requests_total", ["method", "code"]), {
    "GET 200": 5,
    "POST 201": 2,
  });
});
