/**
 * Claim volumes (persistentVolumeClaim, generic ephemeral) in the volume manager: resolved to
 * their bound PersistentVolume with upstream's populator messages, processed once per pod,
 * hostPath and local volumes mounted (read-only for a read-only claim), node affinity and
 * ReadWriteOncePod checked as upstream's operation generator checks them.
 */
import assert from "node:assert/strict";
import type {
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1Volume,
} from "@kubernetes/client-node";
import { ObjectNotFoundError, type PodClaims } from "../../src/objects/mod.ts";
import {
  createVolumeManager,
  VolumeOperationError,
  VolumeProcessingError,
} from "../../src/volumes/mod.ts";
import { findCause } from "../../src/util/errors.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeMounter } from "./_fakes.ts";

class FakeClaims implements PodClaims {
  claims = new Map<string, V1PersistentVolumeClaim>();
  volumes = new Map<string, V1PersistentVolume>();
  gets: string[] = [];
  persistentVolumeClaim(pod: V1Pod, name: string) {
    this.gets.push(`pvc ${name}`);
    const c = this.claims.get(name);
    return c ? Promise.resolve(c) : Promise.reject(
      new ObjectNotFoundError("persistentvolumeclaims", pod.metadata!.namespace!, name),
    );
  }
  persistentVolume(_pod: V1Pod, name: string) {
    this.gets.push(`pv ${name}`);
    const v = this.volumes.get(name);
    return v
      ? Promise.resolve(v)
      : Promise.reject(new ObjectNotFoundError("persistentvolumes", "", name));
  }
  /** A claim `name` bound to PV `pv` with `source`. */
  bind(name: string, pv: string, spec: V1PersistentVolume["spec"], claimUid = `uid-${name}`) {
    this.claims.set(name, {
      metadata: { name, namespace: "ns", uid: claimUid },
      spec: { volumeName: pv },
      status: { phase: "Bound" },
    });
    this.volumes.set(pv, {
      metadata: { name: pv },
      spec: { claimRef: { name, namespace: "ns", uid: claimUid }, ...spec },
    });
  }
}

function pod(volumes: V1Volume[], opts: { uid?: string; name?: string } = {}): V1Pod {
  return {
    metadata: { name: opts.name ?? "p", namespace: "ns", uid: opts.uid ?? "uid-1" },
    spec: {
      containers: [{
        name: "c",
        image: "i",
        volumeMounts: volumes.map((v) => ({ name: v.name, mountPath: `/m/${v.name}` })),
      }],
      volumes,
    },
  };
}

const pvc = (name: string, claimName: string, readOnly?: boolean): V1Volume => ({
  name,
  persistentVolumeClaim: { claimName, readOnly },
});

async function setup(
  fn: (t: {
    root: string;
    claims: FakeClaims;
    mounter: FakeMounter;
    vm: ReturnType<typeof createVolumeManager>;
  }) => Promise<void>,
  labels: Record<string, string> = { "kubernetes.io/hostname": "n1" },
) {
  const root = await Deno.makeTempDir({ prefix: "denolet-claims-" });
  const claims = new FakeClaims();
  const mounter = new FakeMounter();
  const vm = createVolumeManager({
    rootDir: root,
    logger: nullLogger,
    mounter,
    claims,
    nodeLabels: () => labels,
  });
  try {
    await fn({ root, claims, mounter, vm });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function processingError(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => undefined, (e) => e);
  const found = findCause(err, VolumeProcessingError);
  assert.ok(found, `a VolumeProcessingError, got ${err}`);
  return found.message;
}

Deno.test("claims: a claim that does not exist gives upstream's message, naming the volumes", () =>
  setup(async ({ vm }) => {
    const p = pod([pvc("data", "gone"), { name: "scratch", emptyDir: {} }]);
    assert.equal(
      await processingError(vm.setUpPod(p)),
      "unmounted volumes=[data scratch], unattached volumes=[], failed to process volumes=[data]: " +
        'error processing PVC ns/gone: failed to fetch PVC from API server: persistentvolumeclaims "gone" not found',
    );
  }));

Deno.test("claims: an unbound or lost claim waits with 'PVC is not bound', then mounts once bound", () =>
  setup(async ({ root, claims, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    claims.claims.set("c", {
      metadata: { name: "c", namespace: "ns", uid: "u" },
      spec: {},
      status: { phase: "Pending" },
    });
    const p = pod([pvc("data", "c")]);
    assert.match(
      await processingError(vm.setUpPod(p)),
      /error processing PVC ns\/c: PVC is not bound$/,
    );
    claims.claims.get("c")!.status!.phase = "Lost";
    assert.match(await processingError(vm.setUpPod(p)), /PVC is not bound$/);
    claims.bind("c", "pv1", { hostPath: { path: dir } });
    const vols = await vm.setUpPod(p);
    assert.equal(vols.get("data")?.hostPath, dir);
    assert.equal(vols.get("data")?.kind, "hostPath");
    assert.equal(vols.get("data")?.readOnly, false);
  }));

Deno.test("claims: a claim being deleted without protection, or a PV bound to another claim, is refused", () =>
  setup(async ({ root, claims, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    claims.bind("c", "pv1", { hostPath: { path: dir } });
    claims.claims.get("c")!.metadata!.deletionTimestamp = new Date();
    assert.match(await processingError(vm.setUpPod(pod([pvc("d", "c")]))), /PVC is being deleted$/);
    claims.bind("c", "pv1", { hostPath: { path: dir } });
    claims.volumes.get("pv1")!.spec!.claimRef!.uid = "someone-else";
    assert.match(
      await processingError(vm.setUpPod(pod([pvc("d", "c")], { uid: "uid-2" }))),
      /found PV object pv1 but its pv.Spec.ClaimRef.UID someone-else does not point to claim.UID uid-c$/,
    );
  }));

Deno.test("claims: a read-only claim makes its volume read-only; resolved once per pod", () =>
  setup(async ({ root, claims, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    claims.bind("c", "pv1", { hostPath: { path: dir } });
    const p = pod([pvc("data", "c", true)]);
    assert.equal((await vm.setUpPod(p)).get("data")?.readOnly, true);
    await vm.setUpPod(p);
    assert.deepEqual(claims.gets, ["pvc c", "pv pv1"], "no GETs on later syncs");
    await vm.tearDownPod("uid-1");
    await vm.setUpPod(p);
    assert.equal(claims.gets.length, 4, "a pod seen anew is processed anew");
  }));

Deno.test("claims: a local volume is bind-mounted into the pod dir (ro for a read-only claim) and unmounted with the pod", () =>
  setup(async ({ root, claims, mounter, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    claims.bind("c", "local-pv", {
      local: { path: dir },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{
            matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["n1"] }],
          }],
        },
      },
    });
    const vols = await vm.setUpPod(pod([pvc("data", "c", true)]));
    const target = `${root}/pods/uid-1/volumes/kubernetes.io~local-volume/local-pv`;
    assert.equal(vols.get("data")?.hostPath, target);
    assert.equal(vols.get("data")?.kind, "local");
    await vm.setUpPod(pod([pvc("data", "c", true)]));
    assert.deepEqual(mounter.calls, [`bind ${dir} ${target} ro`], "mounted once");
    await vm.tearDownPod("uid-1");
    assert.deepEqual(mounter.calls.slice(1), [`umount ${target}`]);
    assert.equal(await Deno.stat(dir).then(() => true), true, "the local path stays");
  }));

Deno.test("claims: a PV whose node affinity does not match this node is not mounted", () =>
  setup(async ({ root, claims, mounter, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    claims.bind("c", "local-pv", {
      local: { path: dir },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [{
            matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["n2"] }],
          }],
        },
      },
    });
    const err = await vm.setUpPod(pod([pvc("data", "c")])).then(() => undefined, (e) => e);
    assert.ok(err instanceof VolumeOperationError);
    assert.equal(
      err.message,
      'MountVolume.NodeAffinity check failed for volume "local-pv" : no matching NodeSelectorTerms',
    );
    assert.deepEqual(mounter.calls, []);
  }));

Deno.test("claims: a ReadWriteOncePod volume in use by one pod is refused to another", () =>
  setup(async ({ root, claims, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    claims.bind("c", "pv1", { hostPath: { path: dir }, accessModes: ["ReadWriteOncePod"] });
    await vm.setUpPod(pod([pvc("data", "c")]));
    const err = await vm.setUpPod(pod([pvc("data", "c")], { uid: "uid-2" })).then(
      () => undefined,
      (e) => e,
    );
    assert.equal(
      err?.message,
      'MountVolume.SetUp failed for volume "pv1" : volume uses the ReadWriteOncePod access mode and is already in use by another pod',
    );
    await vm.tearDownPod("uid-1");
    await vm.setUpPod(pod([pvc("data", "c")], { uid: "uid-2" }));
  }));

Deno.test("claims: a ReadWriteOncePod volume in use before an agent restart is still refused to another pod", () =>
  setup(async ({ root, claims, mounter, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    const rwop = { accessModes: ["ReadWriteOncePod"] };
    claims.bind("h", "pv-host", { hostPath: { path: dir }, ...rwop });
    claims.bind("l", "pv-local", { local: { path: dir }, ...rwop });
    await vm.setUpPod(pod([pvc("a", "h"), pvc("b", "l")]));
    // A CSI volume published by the agent before (its vol_data.json, as src/csi writes it).
    const csi = `${root}/pods/uid-0/volumes/kubernetes.io~csi/pv-csi`;
    await Deno.mkdir(csi, { recursive: true });
    await Deno.writeTextFile(
      `${csi}/vol_data.json`,
      JSON.stringify({ specVolID: "pv-csi", volumeLifecycleMode: "Persistent" }),
    );
    claims.bind("c", "pv-csi", { csi: { driver: "d", volumeHandle: "v" }, ...rwop });

    // The agent restarts: a new volume manager on the same root directory.
    const restarted = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter,
      claims,
      nodeLabels: () => ({}),
    });
    const refusal = (pv: string) =>
      `MountVolume.SetUp failed for volume "${pv}" : volume uses the ReadWriteOncePod access mode and is already in use by another pod`;
    const other = (claim: string) =>
      restarted.setUpPod(pod([pvc("x", claim)], { uid: `uid-${claim}` })).then(
        () => "",
        (e) => e.message,
      );
    assert.equal(await other("h"), refusal("pv-host"));
    assert.equal(await other("l"), refusal("pv-local"));
    assert.equal(await other("c"), refusal("pv-csi"));
    // The pod that had them mounts them again.
    await restarted.setUpPod(pod([pvc("a", "h"), pvc("b", "l")]));
    // Once it is torn down, the volume is free.
    await restarted.tearDownPod("uid-1");
    await restarted.setUpPod(pod([pvc("x", "h")], { uid: "uid-h" }));
  }));

Deno.test("claims: a generic ephemeral volume waits for the claim <pod>-<volume> that the pod controls", () =>
  setup(async ({ root, claims, vm }) => {
    const dir = await Deno.makeTempDir({ dir: root });
    const p = pod([{ name: "scratch", ephemeral: { volumeClaimTemplate: { spec: {} } } }], {
      name: "web",
    });
    assert.match(
      await processingError(vm.setUpPod(p)),
      /error processing PVC ns\/web-scratch: failed to fetch PVC from API server: persistentvolumeclaims "web-scratch" not found$/,
    );
    claims.bind("web-scratch", "pv-e", { hostPath: { path: dir } });
    assert.match(
      await processingError(vm.setUpPod(p)),
      /: PVC ns\/web-scratch was not created for pod ns\/web \(pod is not owner\)$/,
    );
    claims.claims.get("web-scratch")!.metadata!.ownerReferences = [{
      apiVersion: "v1",
      kind: "Pod",
      name: "web",
      uid: "uid-1",
      controller: true,
    }];
    assert.equal((await vm.setUpPod(p)).get("scratch")?.hostPath, dir);
  }));

Deno.test("claims: a claim volume no container mounts is skipped, as upstream", () =>
  setup(async ({ claims, vm }) => {
    const p = pod([]);
    p.spec!.volumes = [pvc("unused", "gone")];
    assert.equal((await vm.setUpPod(p)).size, 0);
    assert.deepEqual(claims.gets, []);
  }));

Deno.test("claims: without an API server a claim is refused by name", async () => {
  const root = await Deno.makeTempDir();
  try {
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    await assert.rejects(
      vm.setUpPod(pod([pvc("data", "c")])),
      /persistentVolumeClaim volumes are not supported \(no API server is configured\)/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
