import assert from "node:assert/strict";
import { createNodeApiHandler } from "../../src/server/mod.ts";
import { NotFoundError, RuntimeUnavailableError } from "../../src/util/errors.ts";
import { createLogger } from "../../src/util/log.ts";
import { createAgentMetrics, createMetricsRegistry } from "../../src/util/metrics.ts";
import { fakeDeps, runningPod, staticPod } from "./_fakes.ts";

const get = (path: string, init?: RequestInit) => new Request(`http://node:10255${path}`, init);

Deno.test("node API /healthz answers ok when every check passes", async () => {
  const h = createNodeApiHandler(fakeDeps());
  const res = await h(get("/healthz"));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(await res.text(), "ok");
});

Deno.test("node API /healthz?verbose lists ping, log and the agent's checks", async () => {
  const h = createNodeApiHandler(fakeDeps());
  const res = await h(get("/healthz?verbose"));
  assert.equal(res.status, 200);
  assert.equal(
    await res.text(),
    "[+]ping ok\n[+]log ok\n[+]syncloop ok\nhealthz check passed\n",
  );
});

Deno.test("node API /healthz fails with 500 naming the failing check", async () => {
  const deps = fakeDeps({
    healthChecks: () => [{ name: "syncloop", ok: false, message: "sync loop stalled for 3m" }],
  });
  const h = createNodeApiHandler(deps);
  const res = await h(get("/healthz"));
  assert.equal(res.status, 500);
  assert.equal(
    await res.text(),
    "[+]ping ok\n[+]log ok\n[-]syncloop failed: reason withheld\nhealthz check failed\n",
  );
  assert.ok(deps.lines.some((l) => l.includes("sync loop stalled for 3m")));

  const one = await h(get("/healthz/syncloop"));
  assert.equal(one.status, 500);
  assert.equal(await one.text(), "internal server error: sync loop stalled for 3m\n");

  const ping = await h(get("/healthz/ping"));
  assert.equal(ping.status, 200);
  assert.equal(await ping.text(), "ok");

  const excluded = await h(get("/healthz?verbose&exclude=syncloop&exclude=nope"));
  assert.equal(excluded.status, 200);
  assert.equal(
    await excluded.text(),
    "[+]ping ok\n[+]log ok\n[+]syncloop excluded: ok\n" +
      'warn: some health checks cannot be excluded: no matches for "nope"\nhealthz check passed\n',
  );
});

Deno.test("node API /healthz failures are logged at verbosity 2 only, not per poll at warn", async () => {
  const failing = () => [{ name: "runtime", ok: false, message: "connection refused" }];
  for (const verbosity of [0, 1, 2]) {
    const lines: string[] = [];
    const logger = createLogger({ verbosity, write: (l) => lines.push(l), now: () => 0 });
    const h = createNodeApiHandler(fakeDeps({ healthChecks: failing, logger }));
    for (let i = 0; i < 20; i++) {
      for (const path of ["/healthz", "/healthz/runtime"]) {
        const res = await h(get(path));
        assert.equal(res.status, 500);
        await res.body?.cancel();
      }
    }
    if (verbosity < 2) {
      assert.deepEqual(lines, [], `-v=${verbosity}`);
    } else {
      assert.equal(lines.length, 40);
      assert.ok(lines.every((l) => l.includes("level=debug") && l.includes("v=2")), lines[0]);
      assert.ok(lines[0].includes("runtime: connection refused"), lines[0]);
    }
  }
});

Deno.test("node API /healthz/<unknown> is 404", async () => {
  const res = await createNodeApiHandler(fakeDeps())(get("/healthz/nope"));
  assert.equal(res.status, 404);
  await res.body?.cancel();
});

Deno.test("node API /pods is a v1 PodList with RFC 3339 second-precision times", async () => {
  const h = createNodeApiHandler(fakeDeps({ pods: () => [staticPod()] }));
  for (const path of ["/pods", "/pods/"]) {
    const res = await h(get(path));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    const text = await res.text();
    const body = JSON.parse(text);
    assert.equal(body.kind, "PodList");
    assert.equal(body.apiVersion, "v1");
    assert.deepEqual(body.metadata, {});
    assert.equal(body.items.length, 1);
    const pod = body.items[0];
    assert.equal(pod.metadata.name, "web-node-a");
    assert.equal(pod.metadata.creationTimestamp, "2026-11-22T02:13:24Z");
    assert.equal(pod.status.startTime, "2026-11-22T02:13:25Z");
    assert.equal(pod.status.conditions[0].lastTransitionTime, "2026-11-22T02:13:26Z");
    assert.equal(pod.status.containerStatuses[0].state.running.startedAt, "2026-11-22T02:13:26Z");
    assert.doesNotMatch(text, /\.\d{3}Z/);
  }
});

Deno.test("node API /pods with no pods has an empty items list", async () => {
  const res = await createNodeApiHandler(fakeDeps())(get("/pods"));
  assert.deepEqual(await res.json(), {
    kind: "PodList",
    apiVersion: "v1",
    metadata: {},
    items: [],
  });
});

Deno.test("node API: the read-only port leaves /runningpods to the authenticated one, serves /metrics/probes", async () => {
  const registry = createMetricsRegistry();
  registry.counter({ name: "kubelet_started_pods_total", help: "Pods started." }).inc();
  registry.counterVec({ name: "prober_probe_total", help: "Probes.", labelNames: ["probe_type"] })
    .labels("Readiness").inc();
  let asked = false;
  const h = createNodeApiHandler(fakeDeps({
    metrics: registry,
    runningPods: () => {
      asked = true;
      return Promise.resolve([runningPod()]);
    },
  }));
  for (const path of ["/runningpods/", "/runningpods"]) {
    const res = await h(get(path));
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
  assert.equal(asked, false, "the runtime was not asked");
  const probes = await h(get("/metrics/probes"));
  assert.equal(probes.status, 200);
  const text = await probes.text();
  assert.match(text, /prober_probe_total\{probe_type="Readiness"\} 1/);
  assert.doesNotMatch(text, /kubelet_started_pods_total/);
});

Deno.test("node API maps runtime errors to 503 and unexpected throws to a logged 500", async () => {
  const down = fakeDeps({
    node: () =>
      Promise.reject(
        new Error("status failed", { cause: new RuntimeUnavailableError("containerd is down") }),
      ),
  });
  const res = await createNodeApiHandler(down, { authenticated: true })(get("/node"));
  assert.equal(res.status, 503);
  assert.match(await res.text(), /containerd is down/);

  const broken = fakeDeps({
    pods: () => {
      throw new TypeError("boom");
    },
  });
  const res2 = await createNodeApiHandler(broken)(get("/pods"));
  assert.equal(res2.status, 500);
  assert.equal(await res2.text(), "Internal server error: boom\n");
  assert.ok(broken.lines.some((l) => l.includes("level=error") && l.includes("boom")));

  const missing = fakeDeps({
    manifestProblems: () => {
      throw new NotFoundError("gone");
    },
  });
  const res3 = await createNodeApiHandler(missing, { authenticated: true })(get("/sources"));
  assert.equal(res3.status, 404);
  await res3.body?.cancel();
});

Deno.test("node API /sources shows manifest problems", async () => {
  const h = createNodeApiHandler(
    fakeDeps({
      manifestProblems: () => [{
        source: "file",
        path: "/etc/kubernetes/manifests/bad.yaml",
        reason: "spec.containers: Required value",
        seenAt: Date.UTC(2026, 10, 22, 2, 13, 24, 500),
      }],
    }),
    { authenticated: true },
  );
  const res = await h(get("/sources"));
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    problems: [{
      source: "file",
      path: "/etc/kubernetes/manifests/bad.yaml",
      reason: "spec.containers: Required value",
      seenAt: "2026-11-22T02:13:24Z",
    }],
  });
});

Deno.test("node API /metrics renders the registry as Prometheus text", async () => {
  const registry = createMetricsRegistry();
  createAgentMetrics(registry).runningPods.set(4);
  const res = await createNodeApiHandler(fakeDeps({ metrics: registry }))(get("/metrics"));
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
  assert.match(await res.text(), /^kubelet_running_pods 4$/m);

  const off = await createNodeApiHandler(fakeDeps())(get("/metrics"));
  assert.equal(off.status, 404);
  await off.body?.cancel();
});

Deno.test("node API answers 404 for unknown paths and 405 for writes", async () => {
  const h = createNodeApiHandler(fakeDeps());
  const nf = await h(get("/exec/default/web/web"));
  assert.equal(nf.status, 404);
  assert.equal(await nf.text(), "No such path: /exec/default/web/web\n");

  const na = await h(get("/pods", { method: "POST", body: "{}" }));
  assert.equal(na.status, 405);
  assert.equal(na.headers.get("allow"), "GET, HEAD");
  assert.match(await na.text(), /read-only/);
});

Deno.test("node API HEAD answers like GET without a body", async () => {
  const h = createNodeApiHandler(fakeDeps({ pods: () => [staticPod()] }));
  const res = await h(get("/pods", { method: "HEAD" }));
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.body, null);
});

Deno.test("node API: the read-only port serves upstream's paths only; /sources and /node need authentication", async () => {
  const deps = fakeDeps({ pods: () => [staticPod()] });
  const readOnly = createNodeApiHandler(deps);
  for (const path of ["/sources", "/node", "/runningpods/", "/configz", "/logs/"]) {
    const res = await readOnly(get(path));
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
  for (const path of ["/healthz", "/pods"]) {
    const res = await readOnly(get(path));
    assert.notEqual(res.status, 404, path);
    await res.body?.cancel();
  }
  const authenticated = createNodeApiHandler(deps, { authenticated: true });
  const sources = await authenticated(get("/sources"));
  assert.equal(sources.status, 200);
  await sources.body?.cancel();
});
