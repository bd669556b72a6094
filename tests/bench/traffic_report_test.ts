import assert from "node:assert/strict";
import {
  clientScrape,
  startPhases,
  type TrafficResult,
  trafficTargets,
  type TrafficWindow,
  trafficWindow,
} from "./_traffic_report.ts";

const metrics = (puts: number, bytes: number) =>
  [
    `rest_client_requests_total{code="200",host="127.0.0.1:1",method="PUT"} ${puts}`,
    `rest_client_request_size_bytes_sum{host="127.0.0.1:1",verb="PUT"} ${bytes}`,
    `rest_client_response_size_bytes_sum{host="127.0.0.1:1",verb="PUT"} ${2 * bytes}`,
    `denolet_api_body_bytes_total{direction="sent",verb="PUT",resource="leases"} ${bytes}`,
  ].join("\n");

Deno.test("trafficWindow: KB per minute from the proxy, requests and bytes per minute", () => {
  const from = Date.parse("2026-11-28T10:00:00Z");
  const audit = [10, 20, 130].map((s) =>
    JSON.stringify({
      stage: "ResponseComplete",
      verb: "update",
      user: { username: "system:node:n" },
      objectRef: { resource: "leases" },
      stageTimestamp: new Date(from + s * 1000).toISOString(),
    })
  ).join("\n");
  const w = trafficWindow({
    pods: 10,
    ms: 120_000,
    counts: [{ up: 1000, down: 5000, connections: 3 }, { up: 7000, down: 13000, connections: 4 }],
    scrapes: [clientScrape(metrics(5, 1000)), clientScrape(metrics(17, 4000))],
    audit: { log: audit, user: "system:node:n" },
    window: [from, from + 120_000],
  });
  assert.deepEqual(w, {
    pods: 10,
    seconds: 120,
    upKBPerMin: 3,
    downKBPerMin: 4,
    connections: 1,
    requestsPerMin: { "update leases": 1 },
    client: {
      requests: { "PUT 200": 6 },
      sent: { PUT: 1500 },
      received: { PUT: 3000 },
      body: { "sent PUT leases": 1500 },
    },
  });
});

Deno.test("startPhases takes each message's first sinceStartMs from the agent's log", () => {
  const log = [
    'time=2026-11-28T10:00:00.100Z level=INFO msg="denolet starting" sinceStartMs=95',
    'time=2026-11-28T10:00:00.300Z level=DEBUG msg="Start phase: syncing pods" sinceStartMs=310.5',
    "time=2026-11-28T10:00:00.400Z level=INFO msg=Registered sinceStartMs=420",
    'time=2026-11-28T10:00:01.000Z level=DEBUG msg="Start phase: syncing pods" sinceStartMs=900',
    'time=2026-11-28T10:00:01.000Z level=INFO msg="no timing here"',
  ].join("\n");
  assert.deepEqual(startPhases(log), {
    "denolet starting": 95,
    "Start phase: syncing pods": 310.5,
    Registered: 420,
  });
});

const win = (pods: number, up: number, down: number): TrafficWindow => ({
  pods,
  seconds: 120,
  upKBPerMin: up,
  downKBPerMin: down,
  connections: 0,
  requestsPerMin: {},
  client: { requests: {}, sent: {}, received: {}, body: {} },
});

Deno.test("trafficTargets: each level both ways and the start, denolet over kubelet", () => {
  const r: TrafficResult = {
    kubeletVersion: "Kubernetes v1.37.2",
    denoletForm: "source",
    windowSeconds: 120,
    settleSeconds: 20,
    kubelet: {
      node: "k",
      startToReadyMs: 1100,
      windows: [win(0, 2.9, 4.0), win(10, 4.9, 37.3)],
      requests: {},
    },
    denolet: {
      node: "d",
      startToReadyMs: 600,
      windows: [win(0, 2.0, 4.4), win(10, 4.9, 20)],
      requests: {},
    },
    starts: { kubelet: [1000, 1200, 900], denolet: [500, 700, 1300] },
    loadavg: { before: [0, 0, 0], after: [0, 0, 0] },
  };
  const t = trafficTargets(r);
  assert.equal(t["API traffic to the API server, 0 pods, denolet/kubelet"].met, true);
  assert.deepEqual(t["API traffic from the API server, 0 pods, denolet/kubelet"], {
    value: 1.1,
    target: "<= 1.00",
    met: false,
  });
  assert.equal(t["API traffic to the API server, 10 pods, denolet/kubelet"].met, true);
  assert.equal(t["API traffic from the API server, 10 pods, denolet/kubelet"].met, true);
  // Medians of the start rounds: 700 against 1000.
  assert.deepEqual(t["start to Ready Node, denolet/kubelet"], {
    value: 0.7,
    target: "<= 1.00",
    met: true,
  });
});
