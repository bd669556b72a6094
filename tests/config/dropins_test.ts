import assert from "node:assert/strict";
import { applyConfigDocument, IMPLEMENTED_FIELDS } from "../../src/config/_file.ts";
import { configDocument, mergePatch } from "../../src/config/_document.ts";
import { defaultConfig } from "../../src/config/_defaults.ts";
import { fails, run } from "./_helpers.ts";

const HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n";

Deno.test("config-dir: *.conf drop-ins in lexical order (subdirectories too), later wins, flags win over all", async () => {
  const { config, warnings } = await run(
    ["--config", "/etc/kubelet/config.yaml", "--config-dir", "/etc/kubelet/conf.d", "--max-pods=7"],
    {
      "/etc/kubelet/config.yaml": HEAD +
        "maxPods: 50\nsyncFrequency: 30s\nclusterDNS: [10.0.0.10]\n",
      "/etc/kubelet/conf.d/10-a.conf": HEAD + "syncFrequency: 40s\nclusterDomain: a.local\n",
      "/etc/kubelet/conf.d/20-b/00-x.conf": HEAD + "clusterDomain: b.local\n",
      "/etc/kubelet/conf.d/30-c.conf": HEAD + "clusterDNS: [10.0.0.11, 10.0.0.12]\nmaxPods: 60\n",
      "/etc/kubelet/conf.d/README": "not a drop-in",
    },
  );
  assert.equal(config.syncFrequencyMs, 40_000);
  assert.equal(config.clusterDomain, "b.local");
  assert.deepEqual(config.clusterDNS, ["10.0.0.11", "10.0.0.12"], "lists replace");
  assert.equal(config.maxPods, 7, "the flag wins");
  assert.deepEqual(warnings, [
    "--config-dir: skipped files that are not *.conf: /etc/kubelet/conf.d/README",
  ]);
});

Deno.test("config-dir: maps merge into the configuration so far (upstream's JSON merge patch); null restores the default", async () => {
  const { config } = await run(["--config", "/k/c.yaml", "--config-dir", "/k/d"], {
    "/k/c.yaml": HEAD +
      "evictionHard: {memory.available: 300Mi}\nfeatureGates: {EventedPLEG: false}\n" +
      "cgroupRoot: /edge\nauthentication: {webhook: {cacheTTL: 1m}}\n",
    "/k/d/50.conf": HEAD + "evictionHard: {nodefs.available: 5%}\n" +
      "featureGates: {DefaultPodSysctls: true}\ncgroupRoot: null\n" +
      "authentication: {anonymous: {enabled: false}}\n",
  });
  assert.deepEqual(config.evictionHard, { "memory.available": "300Mi", "nodefs.available": "5%" });
  assert.deepEqual(config.featureGates, { EventedPLEG: false, DefaultPodSysctls: true });
  assert.equal(config.cgroupRoot, "/");
  assert.equal(config.authenticationTokenWebhookCacheTTLMs, 60_000, "nested structs merge");
  assert.equal(config.anonymousAuth, false);
});

Deno.test("config-dir: without --config, drop-ins merge into the flag defaults; no drop-in is no change", async () => {
  const { config } = await run(["--config-dir", "/d"], {
    "/d/a.conf": HEAD + "evictionHard: {memory.available: 1Gi}\n",
  });
  // The defaulted map is there to merge into, as upstream's base JSON holds it.
  assert.equal(config.evictionHard["memory.available"], "1Gi");
  assert.equal(config.evictionHard["nodefs.available"], "10%");
  assert.equal(config.readOnlyPort, 10255, "the legacy flag default, as without --config");
  const none = await run(["--config-dir", "/d2"], { "/d2/notes.txt": "x" });
  assert.deepEqual(none.config, (await run([])).config);
});

Deno.test("config-dir: a drop-in without apiVersion and kind, empty, or with an unknown field is refused by name", async () => {
  await fails(["--config-dir", "/d"], "/d/a.conf: apiVersion", /must be/, {
    "/d/a.conf": "maxPods: 3\n",
  });
  await fails(["--config-dir", "/d"], "/d/a.conf", /empty/, { "/d/a.conf": "\n" });
  await fails(["--config-dir", "/d"], "/d/b.conf: maxPod", /unknown field "maxPod"/, {
    "/d/a.conf": HEAD,
    "/d/b.conf": HEAD + "maxPod: 3\n",
  });
  await fails(["--config-dir", "/missing"], "--config-dir", /failed to walk/, {});
});

Deno.test("config-dir: a drop-in's fields are honoured; a warning names the drop-in", async () => {
  const { config, warnings } = await run(["--config-dir", "/d"], {
    "/d/a.conf": HEAD + "registryPullQPS: 3\nlogging:\n  format: json\n",
  });
  assert.equal(config.registryPullQPS, 3);
  assert.deepEqual(warnings, [
    "/d/a.conf: logging.format: denolet writes text logs only; accepted, as it changes no pod " +
    "or node",
  ]);
});

Deno.test("config document: reading it back gives the same configuration", () => {
  const cfg = defaultConfig({ withConfigFile: true });
  Object.assign(cfg, {
    staticPodURLHeader: { A: ["b"] },
    registerWithTaints: [{ key: "k", value: "v", effect: "NoSchedule" }],
    kubeReserved: { cpu: "100m" },
    featureGates: { EventedPLEG: false },
    containerLogMaxSizeBytes: 3 * 2 ** 20,
    anonymousAuth: true,
    authorizationMode: "AlwaysAllow",
    clusterDNS: ["10.0.0.10"],
    userNamespacesIdsPerPod: 131072,
    rotateCertificates: true,
    verbosity: 3,
    imagePullCredentialsVerificationPolicy: "NeverVerifyAllowlistedImages",
    preloadedImagesVerificationAllowlist: ["registry.k8s.io/pause"],
    serializeImagePulls: false,
    maxParallelImagePulls: 3,
    registryPullQPS: 0,
    registryBurst: 20,
    imageMaximumGCAgeMs: 7 * 24 * 3600_000,
    shutdownGracePeriodMs: 30_000,
    shutdownGracePeriodCriticalPodsMs: 10_000,
    shutdownGracePeriodByPodPriority: [{ priority: 100, shutdownGracePeriodSeconds: 5 }],
  });
  const back = defaultConfig({ withConfigFile: true });
  const read = applyConfigDocument(back, new Map(), {
    doc: configDocument(cfg),
    file: "doc",
    dir: "/",
    defaulting: false,
  });
  assert.deepEqual(read, { warnings: [], given: [] });
  assert.deepEqual(back, cfg);
});

Deno.test("config document: every field the file reader takes is in it", () => {
  const doc = configDocument(defaultConfig({ withConfigFile: true }));
  assert.deepEqual(IMPLEMENTED_FIELDS.filter((f) => !(f in doc)), []);
});

Deno.test("merge patch: RFC 7386", () => {
  assert.deepEqual(mergePatch({ a: "b", c: { d: "e", f: "g" } }, { a: "z", c: { f: null } }), {
    a: "z",
    c: { d: "e" },
  });
  assert.deepEqual(mergePatch({ a: [1, 2] }, { a: [3] }), { a: [3] });
  assert.deepEqual(mergePatch({ a: { b: 1 } }, { a: "x" }), { a: "x" });
});
