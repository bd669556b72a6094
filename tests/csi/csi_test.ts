/**
 * CSI on the node against a driver and registrar served over real unix sockets: registration
 * through plugins_registry (GetInfo, NodeGetInfo, the CSINode entry and Node annotation,
 * NotifyRegistrationStatus), a bad version refused with upstream's words, a claim's volume
 * waiting for its VolumeAttachment and then staged and published at upstream's paths with the
 * pod's info, torn down unpublish-then-unstage, and inline ephemeral volumes as the CSIDriver
 * allows them.
 */
import assert from "node:assert/strict";
import type { V1PersistentVolume, V1Pod } from "@kubernetes/client-node";
import { ATTACH_BACKOFF_MAX_MS, attachmentName } from "../../src/csi/_attachment.ts";
import type { PluginCsiError } from "../../src/csi/_errors.ts";
import { createCsiMounts } from "../../src/csi/_mount.ts";
import { PluginRegistry } from "../../src/csi/_registry.ts";
import { sha256Hex } from "../../src/util/digest.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { createLogger, nullLogger } from "../../src/util/log.ts";
import { FakeMounter } from "../volumes/_fakes.ts";
import { FakeCsiApi, FakeCsiDriver } from "./_fakes.ts";

const NODE = "n1";
const DRIVER = "fake.csi.example.com";

async function setup(opts: { versions?: string[] } = {}) {
  const root = await Deno.makeTempDir({ prefix: "denolet-csi-" });
  await Deno.mkdir(`${root}/plugins_registry`, { recursive: true });
  await Deno.mkdir(`${root}/plugins/${DRIVER}`, { recursive: true });
  const api = new FakeCsiApi();
  const clock = new FakeClock();
  api.objects.set(`/api/v1/nodes/${NODE}`, { metadata: { name: NODE, uid: "node-uid" } });
  const driver = new FakeCsiDriver({ name: DRIVER, versions: opts.versions });
  const regSocket = `${root}/plugins_registry/${DRIVER}-reg.sock`;
  await driver.start(`${root}/plugins/${DRIVER}/csi.sock`, regSocket);
  const registry = new PluginRegistry({
    dir: `${root}/plugins_registry`,
    nodeName: NODE,
    client: api,
    clock,
    logger: Deno.env.get("CSI_DEBUG") ? createLogger({ verbosity: 6 }) : nullLogger,
  });
  const mounts = createCsiMounts({
    rootDir: root,
    nodeName: NODE,
    client: api,
    mounter: new FakeMounter(),
    logger: nullLogger,
    clock,
    driver: (n) => registry.driver(n),
  });
  const done = async () => {
    driver.stop();
    for (const n of registry.drivers()) registry.driver(n)?.close();
    await Deno.remove(root, { recursive: true });
  };
  return { root, api, clock, driver, registry, mounts, regSocket, done };
}

const pod: V1Pod = {
  metadata: { name: "web", namespace: "ns", uid: "pod-uid" },
  spec: { containers: [], serviceAccountName: "sa" },
};

function pv(): V1PersistentVolume {
  return {
    metadata: { name: "pv-1" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      csi: { driver: DRIVER, volumeHandle: "vol-1", fsType: "ext4", volumeAttributes: { a: "b" } },
    },
  };
}

Deno.test("csi: a plugin's socket in plugins_registry registers its driver in the CSINode and the Node", async () => {
  const t = await setup();
  try {
    await t.registry.scan();
    assert.deepEqual(t.registry.drivers(), [DRIVER]);
    assert.deepEqual(t.driver.registration, { pluginRegistered: true, error: "" });
    const csiNode = t.api.objects.get(`/apis/storage.k8s.io/v1/csinodes/${NODE}`) as {
      metadata: { ownerReferences: { kind: string; uid: string }[] };
      spec: { drivers: unknown[] };
    };
    assert.deepEqual(csiNode.spec.drivers, [{
      name: DRIVER,
      nodeID: "fake-node-id",
      topologyKeys: ["topology.fake.csi/zone"],
      allocatable: { count: 7 },
    }]);
    assert.equal(csiNode.metadata.ownerReferences[0].uid, "node-uid");
    const patch = t.api.writes.find((w) => w.method === "PATCH")!.body as {
      metadata: { annotations: Record<string, string>; labels: Record<string, string> };
    };
    assert.equal(
      patch.metadata.annotations["csi.volume.kubernetes.io/nodeid"],
      JSON.stringify({ [DRIVER]: "fake-node-id" }),
    );
    assert.equal(patch.metadata.labels["topology.fake.csi/zone"], "z1");

    await Deno.remove(t.regSocket);
    await t.registry.scan();
    assert.deepEqual(t.registry.drivers(), []);
    const after = t.api.objects.get(`/apis/storage.k8s.io/v1/csinodes/${NODE}`) as {
      spec: { drivers: unknown[] };
    };
    assert.deepEqual(after.spec.drivers, [], "deregistered with its socket");
  } finally {
    await t.done();
  }
});

Deno.test("csi: a plugin without a 1.x version is refused and told why", async () => {
  const t = await setup({ versions: ["0.3.0"] });
  try {
    await t.registry.scan();
    assert.deepEqual(t.registry.drivers(), []);
    assert.deepEqual(t.driver.registration, {
      pluginRegistered: false,
      error: "none of the versions specified [0.3.0] are supported",
    });
  } finally {
    await t.done();
  }
});

Deno.test("csi: a claim's volume waits for its VolumeAttachment, is staged and published at upstream's paths, and torn down in order", async () => {
  const t = await setup();
  try {
    await t.registry.scan();
    t.api.objects.set(`/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`, {
      spec: { attachRequired: true, podInfoOnMount: true },
    });
    const va = `csi-${await sha256Hex(`vol-1${DRIVER}${NODE}`)}`;
    await assert.rejects(
      t.mounts.mountPersistent(pod, pv(), { readOnly: false }),
      new RegExp(
        `volume vol-1 has GET error for volume attachment ${va}: ` +
          `volumeattachments.storage.k8s.io "${va}" not found`,
      ),
    );
    t.api.objects.set(`/apis/storage.k8s.io/v1/volumeattachments/${va}`, {
      status: { attached: true, attachmentMetadata: { device: "/dev/fake" } },
    });
    await t.clock.advance(500);
    const target = await t.mounts.mountPersistent(pod, pv(), { readOnly: false });
    const staging = `${t.root}/plugins/kubernetes.io/csi/${DRIVER}/${await sha256Hex(
      "vol-1",
    )}/globalmount`;
    assert.equal(target, `${t.root}/pods/pod-uid/volumes/kubernetes.io~csi/pv-1/mount`);
    const stage = t.driver.calls.find((c) => c.rpc === "NodeStageVolume")!.req;
    assert.equal(stage.stagingTargetPath, staging);
    assert.deepEqual(stage.publishContext, { device: "/dev/fake" });
    const publish = t.driver.calls.find((c) => c.rpc === "NodePublishVolume")!.req;
    assert.equal(publish.targetPath, target);
    assert.equal(publish.stagingTargetPath, staging);
    assert.deepEqual(publish.volumeContext, {
      a: "b",
      "csi.storage.k8s.io/pod.name": "web",
      "csi.storage.k8s.io/pod.namespace": "ns",
      "csi.storage.k8s.io/pod.uid": "pod-uid",
      "csi.storage.k8s.io/serviceAccount.name": "sa",
      "csi.storage.k8s.io/ephemeral": "false",
    });
    assert.equal(
      (publish.volumeCapability as { accessMode: { mode: string } }).accessMode.mode,
      "SINGLE_NODE_WRITER",
    );

    // Stats come from the driver's NodeGetVolumeStats (upstream's csi metrics provider).
    assert.deepEqual(await t.mounts.volumeStats(pv(), target), {
      capacityBytes: 30,
      availableBytes: 10,
      usedBytes: 20,
      inodes: 9,
      inodesFree: 7,
      inodesUsed: 2,
    });
    const stats = t.driver.calls.find((c) => c.rpc === "NodeGetVolumeStats")!.req;
    assert.deepEqual(stats, { volumeId: "vol-1", volumePath: target, stagingTargetPath: staging });

    await t.mounts.tearDownPod("pod-uid");
    assert.deepEqual(t.driver.rpcs().slice(-2), ["NodeUnpublishVolume", "NodeUnstageVolume"]);
    const unpublish = t.driver.calls.find((c) => c.rpc === "NodeUnpublishVolume")!.req;
    assert.deepEqual(unpublish, { volumeId: "vol-1", targetPath: target });
    await assert.rejects(Deno.stat(`${t.root}/pods/pod-uid/volumes/kubernetes.io~csi/pv-1`));
  } finally {
    await t.done();
  }
});

Deno.test("csi: inline ephemeral volumes need a CSIDriver that lists Ephemeral", async () => {
  const t = await setup();
  try {
    await t.registry.scan();
    const src = { driver: DRIVER, volumeAttributes: { size: "1Mi" } };
    await assert.rejects(
      t.mounts.mountInline(pod, "scratch", src),
      /volume mode "Ephemeral" not supported by driver fake.csi.example.com \(no CSIDriver object\)/,
    );
    t.api.objects.set(`/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`, { spec: {} });
    await assert.rejects(
      t.mounts.mountInline(pod, "scratch", src),
      /\(only supports \["Persistent"\]\)/,
    );
    t.api.objects.set(`/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`, {
      spec: { volumeLifecycleModes: ["Persistent", "Ephemeral"] },
    });
    const target = await t.mounts.mountInline(pod, "scratch", src);
    assert.equal(target, `${t.root}/pods/pod-uid/volumes/kubernetes.io~csi/scratch/mount`);
    const publish = t.driver.calls.find((c) => c.rpc === "NodePublishVolume")!.req;
    assert.equal(publish.volumeId, `csi-${await sha256Hex("pod-uidscratch")}`);
    assert.equal(publish.stagingTargetPath, "", "inline volumes are not staged");
    await t.mounts.tearDownPod("pod-uid");
    assert.deepEqual(t.driver.rpcs().slice(-1), ["NodeUnpublishVolume"], "no unstage");
  } finally {
    await t.done();
  }
});

Deno.test("csi: a volume not attached yet asks for its VolumeAttachment with upstream's back-off, not on every try", async () => {
  const t = await setup();
  try {
    await t.registry.scan();
    t.api.objects.set(`/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`, {
      spec: { attachRequired: true },
    });
    const name = await attachmentName({ handle: "vol-1", driver: DRIVER, nodeName: NODE });
    const va = `/apis/storage.k8s.io/v1/volumeattachments/${name}`;
    const gets = () => t.api.reads.filter((p) => p === va).length;
    const reads = () => t.api.reads.length;
    const attempt = () =>
      t.mounts.mountPersistent(pod, pv(), { readOnly: false }).then(
        () => "mounted",
        (e: Error) => e.message,
      );
    // Pod syncs retry much faster than the back-off: only the first try reads.
    assert.match(await attempt(), /has GET error for volume attachment/);
    const afterFirst = reads();
    for (let i = 0; i < 4; i++) {
      assert.match(await attempt(), /has GET error for volume attachment/);
    }
    assert.equal(gets(), 1);
    assert.equal(reads(), afterFirst, "nothing else read while backing off (the CSIDriver)");
    t.api.objects.set(va, { status: { attached: false } });
    await t.clock.advance(499);
    await attempt();
    assert.equal(gets(), 1, "still backing off");
    await t.clock.advance(1);
    assert.match(await attempt(), /volume vol-1 is not attached for volume attachment csi-/);
    assert.equal(gets(), 2);
    // The wait doubles: 1 s now.
    await t.clock.advance(999);
    await attempt();
    assert.equal(gets(), 2);
    t.api.objects.set(va, { status: { attached: true, attachmentMetadata: {} } });
    await t.clock.advance(1);
    assert.equal(await attempt(), "mounted");
    assert.equal(gets(), 3);
    // Upstream's longest wait is 2 min 2 s.
    assert.equal(ATTACH_BACKOFF_MAX_MS, 122_000);
  } finally {
    await t.done();
  }
});

function secret(data: Record<string, string>) {
  const base64 = (v: string) => btoa(String.fromCharCode(...new TextEncoder().encode(v)));
  return { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, base64(v)])) };
}

Deno.test("csi: the PV's node stage and publish secrets are read and given to the driver", async () => {
  const t = await setup();
  try {
    await t.registry.scan();
    t.api.objects.set(`/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`, {
      spec: { attachRequired: false },
    });
    const withRefs = pv();
    withRefs.spec!.csi!.nodeStageSecretRef = { name: "stage", namespace: "vault" };
    withRefs.spec!.csi!.nodePublishSecretRef = { name: "publish", namespace: "vault" };
    await assert.rejects(
      t.mounts.mountPersistent(pod, withRefs, { readOnly: false }),
      (e: Error) => {
        assert.equal(
          e.message,
          "fetching NodeStageSecretRef vault/stage failed: kubernetes.io/csi: failed to find the " +
            'secret stage in the namespace vault with error: secrets "stage" not found',
        );
        assert.equal((e as PluginCsiError).operation, "MountVolume.MountDevice failed");
        return true;
      },
    );
    assert.deepEqual(t.driver.rpcs().filter((r) => r.startsWith("NodeStage")), []);
    t.api.objects.set("/api/v1/namespaces/vault/secrets/stage", secret({ user: "alice" }));
    t.api.objects.set("/api/v1/namespaces/vault/secrets/publish", secret({ token: "s3cr\u00e9t" }));
    await t.mounts.mountPersistent(pod, withRefs, { readOnly: false });
    const stage = t.driver.calls.find((c) => c.rpc === "NodeStageVolume")!.req;
    assert.deepEqual(stage.secrets, { user: "alice" });
    const publish = t.driver.calls.find((c) => c.rpc === "NodePublishVolume")!.req;
    assert.deepEqual(publish.secrets, { token: "s3cr\u00e9t" });
  } finally {
    await t.done();
  }
});

Deno.test("csi: an inline volume's publish secret is read from the pod's namespace", async () => {
  const t = await setup();
  try {
    await t.registry.scan();
    t.api.objects.set(`/apis/storage.k8s.io/v1/csidrivers/${DRIVER}`, {
      spec: { volumeLifecycleModes: ["Ephemeral"] },
    });
    const src = { driver: DRIVER, nodePublishSecretRef: { name: "creds" } };
    await assert.rejects(
      t.mounts.mountInline(pod, "scratch", src),
      /^PluginCsiError: fetching NodePublishSecretRef ns\/creds failed: .*secrets "creds" not found$/,
    );
    t.api.objects.set("/api/v1/namespaces/ns/secrets/creds", secret({ key: "v" }));
    await t.mounts.mountInline(pod, "scratch", src);
    const publish = t.driver.calls.find((c) => c.rpc === "NodePublishVolume")!.req;
    assert.deepEqual(publish.secrets, { key: "v" });
  } finally {
    await t.done();
  }
});
