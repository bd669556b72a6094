/** Local storage limits (upstream localStorageEviction): emptyDir sizeLimit, pod total, container. */
import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import type { EvictionSummary } from "../../src/eviction/mod.ts";
import { harness, Mi } from "./_fakes.ts";

type PodStats = EvictionSummary["pods"][number];

function storagePod(name: string, spec: Partial<V1Pod["spec"]>): V1Pod {
  return {
    metadata: {
      name,
      namespace: "default",
      uid: `uid-${name}`,
      annotations: { "kubernetes.io/config.source": "api" },
    },
    spec: { containers: [{ name: "c", image: "busybox" }], ...spec },
    status: { phase: "Running" },
  };
}

function stats(name: string, s: Partial<PodStats>): PodStats {
  return { podRef: { name, namespace: "default", uid: `uid-${name}` }, ...s };
}

const limited = (limit: string, name = "c"): V1Container => ({
  name,
  image: "busybox",
  resources: { limits: { "ephemeral-storage": limit } },
});

function run(pods: V1Pod[], podStats: PodStats[], config = {}) {
  const h = harness({ pods, config });
  h.stats.next = () => ({ node: {}, pods: podStats });
  return h;
}

Deno.test("an emptyDir over its sizeLimit evicts the pod at once, with upstream's message", async () => {
  const p = storagePod("scratch", {
    volumes: [{ name: "cache", emptyDir: { sizeLimit: "1Mi" } }],
  });
  const h = run([p], [stats("scratch", { volume: [{ name: "cache", usedBytes: 2 * Mi }] })]);
  assert.equal((await h.manager.synchronize())?.metadata?.name, "scratch");
  assert.equal(h.evicted.length, 1);
  const { opts } = h.evicted[0];
  assert.equal(opts.reason, "Evicted");
  assert.equal(opts.message, 'Usage of EmptyDir volume "cache" exceeds the limit "1Mi". ');
  assert.equal(opts.gracePeriodSeconds, 1);
  assert.equal(opts.condition, undefined, "no DisruptionTarget for a pod's own limits");
  assert.match(h.registry.render(), /kubelet_evictions\{eviction_signal="emptydirfs.limit"\} 1/);
  // Pods' stats were asked for: the manager needs them only for such pods.
  assert.ok(h.calls.includes("summary"), h.calls.join(","));
});

Deno.test("usage at the limit is not over it; a pod without stats is left alone", async () => {
  const p = storagePod("full", { volumes: [{ name: "v", emptyDir: { sizeLimit: "1Mi" } }] });
  const q = storagePod("unseen", { volumes: [{ name: "v", emptyDir: { sizeLimit: "1Mi" } }] });
  const h = run([p, q], [stats("full", { volume: [{ name: "v", usedBytes: Mi }] })]);
  assert.equal(await h.manager.synchronize(), undefined);
  assert.equal(h.evicted.length, 0);
});

Deno.test("a pod over its containers' summed ephemeral-storage limits is evicted", async () => {
  const p = storagePod("sum", { containers: [limited("1Mi", "a"), limited("1Mi", "b")] });
  const h = run([p], [stats("sum", { "ephemeral-storage": { usedBytes: 3 * Mi } })]);
  await h.manager.synchronize();
  assert.equal(
    h.evicted[0]?.opts.message,
    "Pod ephemeral local storage usage exceeds the total limit of containers 2Mi. ",
  );
  assert.match(h.registry.render(), /eviction_signal="ephemeralpodfs.limit"\} 1/);
});

Deno.test("a container whose writable layer and logs outgrow its limit evicts the pod", async () => {
  const p = storagePod("ctr", {
    containers: [limited("4Mi", "app"), { name: "free", image: "busybox" }],
    initContainers: [{ ...limited("1Mi", "side"), restartPolicy: "Always" }],
  });
  const h = run([p], [stats("ctr", {
    "ephemeral-storage": { usedBytes: 4 * Mi },
    containers: [
      { name: "free", rootfs: { usedBytes: 100 * Mi } },
      { name: "app", rootfs: { usedBytes: 2 * Mi }, logs: { usedBytes: 1 * Mi } },
      { name: "side", rootfs: { usedBytes: Mi / 2 }, logs: { usedBytes: Mi } },
    ],
  })]);
  await h.manager.synchronize();
  assert.equal(
    h.evicted[0]?.opts.message,
    'Container side exceeded its local ephemeral storage limit "1Mi". ',
  );
  assert.match(h.registry.render(), /eviction_signal="ephemeralcontainerfs.limit"\} 1/);
});

Deno.test("every pod over a limit goes in one round; critical pods stay", async () => {
  const over = (name: string, annotations?: Record<string, string>) => {
    const p = storagePod(name, { volumes: [{ name: "v", emptyDir: { sizeLimit: "1Mi" } }] });
    if (annotations) p.metadata!.annotations = annotations;
    return p;
  };
  const pods = [over("a"), over("static", { "kubernetes.io/config.source": "file" }), over("b")];
  const h = run(
    pods,
    ["a", "static", "b"].map((n) => stats(n, { volume: [{ name: "v", usedBytes: 2 * Mi }] })),
    { evictStaticPods: false },
  );
  await h.manager.synchronize();
  assert.deepEqual(h.evicted.map((e) => e.pod.metadata?.name), ["a", "b"]);
});

Deno.test("with localStorageCapacityIsolation false, or no limited pod, nothing is read or evicted", async () => {
  const p = storagePod("x", { volumes: [{ name: "v", emptyDir: { sizeLimit: "1Mi" } }] });
  const podStats = [stats("x", { volume: [{ name: "v", usedBytes: 2 * Mi }] })];
  const off = run([p], podStats, { localStorageCapacityIsolation: false });
  assert.equal(await off.manager.synchronize(), undefined);
  assert.deepEqual(off.calls, []);
  const none = run([storagePod("y", {})], podStats);
  assert.equal(await none.manager.synchronize(), undefined);
  assert.deepEqual(none.calls, [], "no thresholds, no limits: the idle round reads nothing");
});
