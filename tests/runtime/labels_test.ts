import assert from "node:assert/strict";
import type { V1Container, V1Pod } from "@kubernetes/client-node";
import {
  canonicalJSON,
  containerAnnotations,
  containerHash,
  containerLabels,
  legacyContainerHash,
  parseContainerLabels,
  parseSandboxLabels,
  sandboxAnnotations,
  sandboxLabels,
} from "../../src/runtime/_labels.ts";

const container: V1Container = {
  name: "web",
  image: "busybox:1.36",
  command: ["sh", "-c", "sleep 1d"],
  ports: [{ containerPort: 80, protocol: "TCP" }],
  lifecycle: { preStop: { exec: { command: ["sh", "-c", "sleep 1"] } } },
  terminationMessagePath: "/tmp/msg",
};

const pod: V1Pod = {
  metadata: {
    name: "p",
    namespace: "ns",
    uid: "uid-1",
    labels: { app: "web", "io.kubernetes.pod.name": "spoof" },
    annotations: { note: "x" },
    deletionGracePeriodSeconds: 5,
  },
  spec: {
    nodeName: "node-a",
    containers: [container],
    initContainers: [{ name: "init", image: "busybox" }],
    terminationGracePeriodSeconds: 30,
  },
};

Deno.test("sandbox labels carry pod labels plus identity (identity wins)", () => {
  assert.deepEqual(sandboxLabels(pod), {
    app: "web",
    "io.kubernetes.pod.name": "p",
    "io.kubernetes.pod.namespace": "ns",
    "io.kubernetes.pod.uid": "uid-1",
    "io.denolet.node-name": "node-a",
  });
  assert.deepEqual(sandboxAnnotations(pod), { note: "x" });
  assert.deepEqual(parseSandboxLabels(sandboxLabels(pod)), {
    podName: "p",
    podNamespace: "ns",
    podUid: "uid-1",
  });
  assert.equal(parseSandboxLabels({ app: "other" }), undefined);
});

Deno.test("container labels and annotations round-trip through parseContainerLabels", () => {
  const labels = containerLabels(pod, container);
  assert.deepEqual(labels, {
    "io.kubernetes.pod.name": "p",
    "io.kubernetes.pod.namespace": "ns",
    "io.kubernetes.pod.uid": "uid-1",
    "io.kubernetes.container.name": "web",
    "io.denolet.node-name": "node-a",
  });
  const ann = containerAnnotations(pod, container, 3);
  assert.equal(ann["io.kubernetes.container.restartCount"], "3");
  assert.equal(ann["io.kubernetes.pod.terminationGracePeriod"], "30");
  assert.equal(ann["io.kubernetes.pod.deletionGracePeriod"], "5");
  assert.equal(ann["io.kubernetes.container.terminationMessagePolicy"], "File");
  assert.equal(ann["io.kubernetes.container.type"], "container");
  assert.deepEqual(JSON.parse(ann["io.kubernetes.container.ports"]), container.ports);
  assert.equal(
    containerAnnotations(pod, pod.spec!.initContainers![0], 0)["io.kubernetes.container.type"],
    "init",
  );

  assert.deepEqual(parseContainerLabels(labels, ann), {
    podName: "p",
    podNamespace: "ns",
    podUid: "uid-1",
    containerName: "web",
    hash: containerHash(container),
    restartCount: 3,
    terminationGracePeriodSeconds: 30,
    deletionGracePeriodSeconds: 5,
    terminationMessagePath: "/tmp/msg",
    terminationMessagePolicy: "File",
    containerType: "container",
    preStop: container.lifecycle!.preStop,
  });
});

Deno.test("parseContainerLabels tolerates missing and corrupt annotations", () => {
  const info = parseContainerLabels({}, {
    "io.kubernetes.container.restartCount": "x",
    "io.kubernetes.container.preStopHandler": "{not json",
  });
  assert.equal(info.restartCount, 0);
  assert.equal(info.hash, "");
  assert.equal(info.preStop, undefined);
  assert.match(info.preStopError ?? "", /preStopHandler/);
  assert.equal(info.terminationGracePeriodSeconds, undefined);
});

Deno.test("containerHash is stable across key order and process restarts", () => {
  const h = containerHash(container);
  assert.match(h, /^[0-9a-f]{1,8}$/);
  // Pinned value: FNV-1a 32 of the canonical JSON must never change between releases, or every
  // running container would be restarted after an upgrade.
  assert.equal(containerHash({ name: "a", image: "b" }), "37c8231c");
  assert.equal(containerHash({ name: "a", image: "b" }), fnv(`{"image":"b","name":"a"}`));
  const reordered = Object.fromEntries(
    Object.entries(container).reverse(),
  ) as unknown as V1Container;
  assert.equal(containerHash(reordered), h);
  assert.equal(containerHash({ ...container, args: [], env: undefined, workingDir: undefined }), h);
  assert.notEqual(containerHash({ ...container, image: "busybox:1.37" }), h);
  assert.notEqual(containerHash({ ...container, command: ["sh"] }), h);
  // What a resize changes is no spec change; other resources still are.
  assert.equal(containerHash({ ...container, resources: { limits: { cpu: "1" } } }), h);
  assert.equal(
    containerHash({
      ...container,
      resources: { requests: { memory: "1Gi" } },
      resizePolicy: [{ resourceName: "cpu", restartPolicy: "RestartContainer" }],
    }),
    h,
  );
  assert.notEqual(
    containerHash({ ...container, resources: { limits: { "ephemeral-storage": "1Gi" } } }),
    h,
  );
});

Deno.test("legacyContainerHash is the hash of every field, as denolet wrote it before resize", () => {
  // A container without cpu, memory or a resize policy hashes alike both ways, so containers
  // without resources started before the change need nothing to be recognised.
  assert.equal(legacyContainerHash(container), containerHash(container));
  const sized = { ...container, resources: { limits: { cpu: "1" } } };
  assert.equal(legacyContainerHash(sized), fnv(canonicalJSON(sized)));
  assert.notEqual(legacyContainerHash(sized), containerHash(sized));
});

Deno.test("canonicalJSON sorts keys deeply and drops empties", () => {
  assert.equal(
    canonicalJSON({ b: 1, a: { d: [], c: null, e: [{ z: 1, y: undefined }] } }),
    `{"a":{"e":[{"z":1}]},"b":1}`,
  );
});

function fnv(s: string): string {
  let h = 0x811c9dc5;
  for (const b of new TextEncoder().encode(s)) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16);
}
