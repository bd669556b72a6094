import assert from "node:assert/strict";
import type { V1Service } from "@kubernetes/client-node";
import type { ReflectorOptions } from "../../src/apiclient/mod.ts";
import { createServiceCache } from "../../src/cluster/services.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";
import { ScriptedApi } from "./_fakes.ts";

function svc(namespace: string, name: string, clusterIP: string): V1Service {
  return {
    metadata: { name, namespace, labels: { big: "x".repeat(100) }, resourceVersion: "7" },
    spec: {
      clusterIP,
      selector: { app: name },
      ports: [{ name: "http", port: 80, protocol: "TCP", targetPort: 8080 as never }],
    },
  };
}

/** A service cache whose reflector the test drives by hand. */
function drivenCache() {
  let opts: ReflectorOptions<V1Service> | undefined;
  let syncs = 0;
  const cache = createServiceCache({
    onSynced: () => syncs++,
    client: new ScriptedApi(),
    clock: new FakeClock(0),
    logger: nullLogger,
    reflector: (o, run) => {
      opts = o;
      return new Promise((resolve) => run.signal.addEventListener("abort", () => resolve()));
    },
  });
  const ac = new AbortController();
  const done = cache.run({ signal: ac.signal });
  return {
    cache,
    reflector: () => opts!,
    syncs: () => syncs,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

Deno.test("service cache watches all namespaces and is undefined until listed", async () => {
  const d = drivenCache();
  try {
    assert.equal(d.reflector().path, "/api/v1/services");
    assert.equal(d.reflector().fieldSelector, undefined);
    assert.equal(d.cache.list("default"), undefined);
    d.reflector().onList([svc("default", "kubernetes", "10.96.0.1"), svc("a", "db", "None")], "1");
    d.reflector().onList([svc("default", "kubernetes", "10.96.0.1"), svc("a", "db", "None")], "2");
    assert.equal(d.syncs(), 1, "onSynced is called for the first list only");
    assert.deepEqual(d.cache.list("default")?.map((s) => s.metadata?.name), ["kubernetes"]);
    assert.deepEqual(d.cache.list("empty"), []);
    // Only what the env needs is kept.
    assert.deepEqual(d.cache.list("default")![0], {
      metadata: { name: "kubernetes", namespace: "default" },
      spec: { clusterIP: "10.96.0.1", ports: [{ name: "http", port: 80, protocol: "TCP" }] },
    });
  } finally {
    await d.stop();
  }
});

Deno.test("service cache follows watch events and a re-list replaces it", async () => {
  const d = drivenCache();
  try {
    d.reflector().onList([svc("a", "db", "10.0.0.1")], "1");
    const first = d.cache.list("a");
    assert.equal(d.cache.list("a"), first, "an unchanged namespace's list is reused");
    d.reflector().onEvent("ADDED", svc("a", "web", "10.0.0.2"));
    d.reflector().onEvent("MODIFIED", svc("a", "db", "10.0.0.9"));
    assert.deepEqual(
      d.cache.list("a")?.map((s) => [s.metadata?.name, s.spec?.clusterIP]),
      [["db", "10.0.0.9"], ["web", "10.0.0.2"]],
    );
    d.reflector().onEvent("DELETED", svc("a", "db", "10.0.0.9"));
    assert.deepEqual(d.cache.list("a")?.map((s) => s.metadata?.name), ["web"]);
    d.reflector().onList([svc("b", "only", "10.0.0.3")], "5");
    assert.deepEqual(d.cache.list("a"), []);
    assert.deepEqual(d.cache.list("b")?.map((s) => s.metadata?.name), ["only"]);
  } finally {
    await d.stop();
  }
});

Deno.test("service cache saves to the checkpoint and serves it when the first list fails", async () => {
  const written: V1Service[][] = [];
  let opts: ReflectorOptions<V1Service> | undefined;
  let syncs = 0;
  const checkpoint = {
    savedAt: 1,
    take: () => ({ objects: [svc("default", "kubernetes", "10.96.0.1")] }),
    schedule: (produce: () => { objects: V1Service[] }) => written.push(produce().objects),
  };
  const cache = createServiceCache({
    client: new ScriptedApi(),
    clock: new FakeClock(0),
    logger: nullLogger,
    checkpoint,
    onSynced: () => syncs++,
    reflector: (o) => {
      opts = o;
      return Promise.resolve();
    },
  });
  await cache.run({ signal: new AbortController().signal });
  assert.equal(cache.list("default"), undefined, "the saved copy waits for a failed list");
  opts!.onListError!(new Error("connection refused"));
  assert.equal(cache.list("default")?.[0].spec?.clusterIP, "10.96.0.1");
  assert.equal(syncs, 1);
  opts!.onList([svc("default", "kubernetes", "10.96.0.2")], "3");
  assert.equal(cache.list("default")?.[0].spec?.clusterIP, "10.96.0.2");
  assert.equal(syncs, 1);
  assert.deepEqual(written.at(-1)?.map((s) => s.spec?.clusterIP), ["10.96.0.2"]);
  opts!.onEvent("ADDED", svc("a", "db", "10.0.0.1"));
  assert.equal(written.at(-1)?.length, 2);
});

Deno.test("service cache with checkpoints on but none saved: a failed first list means no Services, not a wait", async () => {
  let opts: ReflectorOptions<V1Service> | undefined;
  let syncs = 0;
  const lines: string[] = [];
  const cache = createServiceCache({
    client: new ScriptedApi(),
    clock: new FakeClock(0),
    logger: createLogger({ verbosity: 0, write: (l) => lines.push(l), now: () => 0 }),
    checkpoint: { savedAt: undefined, take: () => undefined, schedule: () => {} },
    onSynced: () => syncs++,
    reflector: (o) => {
      opts = o;
      return Promise.resolve();
    },
  });
  await cache.run({ signal: new AbortController().signal });
  opts!.onListError!(new Error("connection refused"));
  assert.deepEqual(cache.list("default"), []);
  assert.equal(syncs, 1);
  assert.ok(lines.some((l) => l.includes("no Services were saved")));
  opts!.onList([svc("default", "kubernetes", "10.96.0.1")], "3");
  assert.equal(cache.list("default")?.[0].spec?.clusterIP, "10.96.0.1");
});

Deno.test("service cache without checkpoints waits for the first list, as upstream", async () => {
  const t = drivenCache();
  t.reflector().onListError!(new Error("connection refused"));
  assert.equal(t.cache.list("default"), undefined);
  assert.equal(t.syncs(), 0);
  await t.stop();
});
