import assert from "node:assert/strict";
import { requestMetrics, resourceOf, verbOf } from "../../src/apiclient/mod.ts";
import { createMetricsRegistry } from "../../src/util/metrics.ts";

Deno.test("request metrics: resources and verbs as client-go names them", () => {
  assert.equal(resourceOf("/api/v1/namespaces/ns/pods/p/status"), "pods/status");
  assert.equal(resourceOf("/api/v1/nodes/n"), "nodes");
  assert.equal(resourceOf("/api/v1/pods"), "pods");
  assert.equal(
    resourceOf("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n"),
    "leases",
  );
  assert.equal(resourceOf("/api/v1/namespaces/default"), "namespaces");
  assert.equal(resourceOf("/version"), "version");
  assert.equal(verbOf({ method: "GET", path: "/api/v1/pods", watch: false }), "LIST");
  assert.equal(verbOf({ method: "GET", path: "/api/v1/nodes/n", watch: false }), "GET");
  assert.equal(verbOf({ method: "GET", path: "/api/v1/pods", watch: true }), "WATCH");
  assert.equal(verbOf({ method: "PATCH", path: "/api/v1/nodes/n/status", watch: false }), "PATCH");
});

Deno.test("request metrics: requests once each, bytes as they stream", () => {
  const registry = createMetricsRegistry();
  const observe = requestMetrics(registry, "https://10.0.0.1:6443");
  const lease = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n";
  observe({
    method: "PUT",
    path: lease,
    watch: false,
    code: 200,
    sentBytes: 300,
    receivedBytes: 400,
  });
  const w = { method: "GET", path: "/api/v1/pods", watch: true, code: 200, sentBytes: 0 };
  observe({ ...w, receivedBytes: 1000, partial: true });
  observe({ ...w, receivedBytes: 500, partial: true });
  observe({ ...w, receivedBytes: 0 });
  const text = registry.render();
  assert.match(
    text,
    /rest_client_requests_total\{code="200",host="10.0.0.1:6443",method="PUT"\} 1/,
  );
  assert.match(
    text,
    /rest_client_requests_total\{code="200",host="10.0.0.1:6443",method="GET"\} 1/,
  );
  assert.match(
    text,
    /denolet_api_body_bytes_total\{direction="received",verb="WATCH",resource="pods"\} 1500/,
  );
  assert.match(
    text,
    /denolet_api_body_bytes_total\{direction="sent",verb="PUT",resource="leases"\} 300/,
  );
});
