import assert from "node:assert/strict";
import type { V1Pod, V1Volume } from "@kubernetes/client-node";
import { downwardAPIValues } from "../../src/runtime/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { isKind, NotFoundError } from "../../src/util/errors.ts";
import { nullLogger } from "../../src/util/log.ts";
import {
  configMapPlugin,
  createVolumeManager,
  downwardAPIPlugin,
  projectedPlugin,
  secretPlugin,
  VolumeSetUpError,
} from "../../src/volumes/mod.ts";
import { FakeMounter, FakeObjects } from "./_fakes.ts";

/** Memory-backed volumes are sized to it when the pod sets no memory limit. */
const NODE_MEMORY = 8 * 2 ** 30;

const b64 = (s: string) => btoa(s);
const downward = downwardAPIValues({ nodeAllocatable: { cpuMilli: 2000, memoryBytes: 2 ** 30 } });

function pod(volumes: V1Volume[], meta: Partial<NonNullable<V1Pod["metadata"]>> = {}): V1Pod {
  return {
    metadata: { name: "web", namespace: "ns", uid: "uid-1", ...meta },
    spec: {
      nodeName: "node-1",
      containers: [{
        name: "main",
        resources: { limits: { memory: "64Mi" }, requests: { cpu: "250m" } },
      }],
      volumes,
    },
  };
}

async function withManager(
  fn: (
    ctx: {
      root: string;
      objects: FakeObjects;
      mounter: FakeMounter;
      vm: ReturnType<typeof createVolumeManager>;
      clock: FakeClock;
    },
  ) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "denolet-plugins-" });
  const objects = new FakeObjects();
  const mounter = new FakeMounter();
  const clock = new FakeClock();
  const vm = createVolumeManager({
    rootDir: root,
    logger: nullLogger,
    mounter,
    clock,
    nodeAllocatableMemoryBytes: NODE_MEMORY,
    plugins: [
      downwardAPIPlugin(downward),
      configMapPlugin(objects),
      secretPlugin(objects),
      projectedPlugin({ objects, downward }),
    ],
  });
  try {
    await fn({ root, objects, mounter, vm, clock });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const vols = (root: string, plugin: string, name: string) =>
  `${root}/pods/uid-1/volumes/kubernetes.io~${plugin}/${name}`;
const mode = async (p: string) => (await Deno.stat(p)).mode! & 0o7777;

Deno.test("configMap volume: every key as a file, 0644 by default, read-only, on disk", () =>
  withManager(async ({ root, objects, mounter, vm }) => {
    objects.configMaps.set("app", {
      data: { "app.conf": "x=1", other: "o" },
      binaryData: { "logo.bin": b64("\x00\x01\xff") },
    });
    const got = await vm.setUpPod(pod([{ name: "cfg", configMap: { name: "app" } }]));
    const dir = vols(root, "configmap", "cfg");
    const { bindSubPath: _, ...cfg } = got.get("cfg")!;
    assert.deepEqual(cfg, { hostPath: dir, readOnly: true, kind: "configMap", medium: "" });
    assert.equal(await Deno.readTextFile(`${dir}/app.conf`), "x=1");
    assert.deepEqual([...await Deno.readFile(`${dir}/logo.bin`)], [0, 1, 255]);
    assert.equal(await mode(`${dir}/other`), 0o644);
    assert.deepEqual(mounter.calls, [], "configMaps stay on the node's disk");
  }));

Deno.test("configMap volume: items pick keys, paths and modes; defaultMode applies to the rest", () =>
  withManager(async ({ root, objects, vm }) => {
    objects.configMaps.set("app", { data: { a: "A", b: "B", c: "C" } });
    await vm.setUpPod(pod([{
      name: "cfg",
      configMap: {
        name: "app",
        defaultMode: 0o440,
        items: [{ key: "a", path: "conf/a.txt", mode: 0o600 }, { key: "b", path: "b" }],
      },
    }]));
    const dir = vols(root, "configmap", "cfg");
    assert.equal(await Deno.readTextFile(`${dir}/conf/a.txt`), "A");
    assert.equal(await mode(`${dir}/conf/a.txt`), 0o600);
    assert.equal(await mode(`${dir}/b`), 0o440);
    await assert.rejects(Deno.lstat(`${dir}/c`), Deno.errors.NotFound);
  }));

Deno.test("configMap volume: a missing object or key fails the mount with upstream's message", () =>
  withManager(async ({ objects, vm }) => {
    await assert.rejects(
      vm.setUpPod(pod([{ name: "cfg", configMap: { name: "app" } }])),
      (e) => {
        assert.ok(e instanceof VolumeSetUpError);
        assert.ok(isKind(e, NotFoundError));
        assert.equal(
          (e as Error).message,
          'MountVolume.SetUp failed for volume "cfg" : configmap "app" not found',
        );
        return true;
      },
    );
    objects.configMaps.set("app", { data: { a: "A" } });
    await assert.rejects(
      vm.setUpPod(
        pod([{ name: "cfg", configMap: { name: "app", items: [{ key: "z", path: "z" }] } }]),
      ),
      /volume "cfg" : configmap references non-existent config key: z/,
    );
  }));

Deno.test("configMap volume: optional tolerates a missing object or key", () =>
  withManager(async ({ root, vm, objects }) => {
    await vm.setUpPod(pod([{ name: "cfg", configMap: { name: "app", optional: true } }]));
    const dir = vols(root, "configmap", "cfg");
    assert.ok((await Deno.lstat(`${dir}/..data`)).isSymlink);
    objects.configMaps.set("app", { data: { a: "A" } });
    await vm.setUpPod(pod([{
      name: "cfg",
      configMap: {
        name: "app",
        optional: true,
        items: [{ key: "a", path: "a" }, { key: "z", path: "z" }],
      },
    }]));
    assert.equal(await Deno.readTextFile(`${dir}/a`), "A");
    await assert.rejects(Deno.lstat(`${dir}/z`), Deno.errors.NotFound);
  }));

Deno.test("plugin volumes are rewritten only when their content changed", () =>
  withManager(async ({ root, objects, vm, clock }) => {
    const p = pod([{ name: "cfg", configMap: { name: "app" } }]);
    objects.configMaps.set("app", { data: { k: "v1" } });
    await vm.setUpPod(p);
    const dir = vols(root, "configmap", "cfg");
    const first = await Deno.readLink(`${dir}/..data`);
    await clock.advance(2000);
    await vm.setUpPod(p);
    assert.equal(await Deno.readLink(`${dir}/..data`), first);
    objects.configMaps.set("app", { data: { k: "v2" } });
    await vm.setUpPod(p);
    assert.notEqual(await Deno.readLink(`${dir}/..data`), first);
    assert.equal(await Deno.readTextFile(`${dir}/k`), "v2");
  }));

Deno.test("secret volume: decoded keys on a tmpfs, mounted once and unmounted on teardown", () =>
  withManager(async ({ root, objects, mounter, vm }) => {
    objects.secrets.set("creds", { data: { user: b64("admin"), pw: b64("s3cr3t") } });
    const p = pod([{
      name: "sec",
      secret: { secretName: "creds", defaultMode: 0o400, items: [{ key: "pw", path: "password" }] },
    }]);
    const got = await vm.setUpPod(p);
    await vm.setUpPod(p);
    const dir = vols(root, "secret", "sec");
    assert.equal(got.get("sec")?.medium, "Memory");
    assert.equal(got.get("sec")?.readOnly, true);
    assert.deepEqual(mounter.calls, [`mount ${dir} size=${NODE_MEMORY}`]);
    assert.equal(await Deno.readTextFile(`${dir}/password`), "s3cr3t");
    assert.equal(await mode(`${dir}/password`), 0o400);
    await assert.rejects(Deno.lstat(`${dir}/user`), Deno.errors.NotFound);
    await vm.tearDownPod("uid-1");
    assert.deepEqual(mounter.calls.slice(1), [`umount ${dir}`]);
    await assert.rejects(Deno.stat(`${root}/pods/uid-1`), Deno.errors.NotFound);
  }));

Deno.test("secret volume: a missing secret names it; optional leaves the volume empty", () =>
  withManager(async ({ vm }) => {
    await assert.rejects(
      vm.setUpPod(pod([{ name: "sec", secret: { secretName: "creds" } }])),
      /MountVolume.SetUp failed for volume "sec" : secret "creds" not found/,
    );
    await vm.setUpPod(pod([{ name: "sec", secret: { secretName: "creds", optional: true } }]));
  }));

Deno.test("downwardAPI volume: pod fields and resources as files, label changes rewritten", () =>
  withManager(async ({ root, vm }) => {
    const volume: V1Volume = {
      name: "info",
      downwardAPI: {
        items: [
          { path: "name", fieldRef: { fieldPath: "metadata.name" } },
          { path: "ns", fieldRef: { fieldPath: "metadata.namespace" } },
          { path: "labels", fieldRef: { fieldPath: "metadata.labels" }, mode: 0o600 },
          { path: "team", fieldRef: { fieldPath: "metadata.annotations['team']" } },
          {
            path: "mem",
            resourceFieldRef: { containerName: "main", resource: "limits.memory", divisor: "1Mi" },
          },
          { path: "cpu", resourceFieldRef: { containerName: "main", resource: "limits.cpu" } },
        ],
      },
    };
    const labels = { app: "web", tier: 'fr"ont\n' };
    await vm.setUpPod(pod([volume], { labels, annotations: { team: "a" } }));
    const dir = vols(root, "downward-api", "info");
    const read = (f: string) => Deno.readTextFile(`${dir}/${f}`);
    assert.equal(await read("name"), "web");
    assert.equal(await read("ns"), "ns");
    assert.equal(await read("labels"), 'app="web"\ntier="fr\\"ont\\n"');
    assert.equal(await mode(`${dir}/labels`), 0o600);
    assert.equal(await read("team"), "a");
    assert.equal(await read("mem"), "64");
    assert.equal(await read("cpu"), "2", "no limit: the node's allocatable");
    await vm.setUpPod(pod([volume], { labels: { app: "web2" }, annotations: { team: "b" } }));
    assert.equal(await read("labels"), 'app="web2"');
    assert.equal(await read("team"), "b");
  }));

Deno.test("downwardAPI volume: every bad item is reported", () =>
  withManager(async ({ vm }) => {
    await assert.rejects(
      vm.setUpPod(pod([{
        name: "info",
        downwardAPI: {
          items: [
            { path: "a", fieldRef: { fieldPath: "spec.bogus" } },
            { path: "b", resourceFieldRef: { containerName: "nope", resource: "limits.cpu" } },
          ],
        },
      }])),
      /MountVolume.SetUp failed for volume "info" : \[.*spec\.bogus.*, .*unknown container "nope"\]/,
    );
  }));

Deno.test("projected kube-api-access volume: token, CA bundle and namespace on a tmpfs", () =>
  withManager(async ({ root, objects, mounter, vm }) => {
    objects.configMaps.set("kube-root-ca.crt", { data: { "ca.crt": "PEM" } });
    const volume: V1Volume = {
      name: "kube-api-access-abcde",
      projected: {
        defaultMode: 420,
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
          { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
          {
            downwardAPI: {
              items: [{
                path: "namespace",
                fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" },
              }],
            },
          },
        ],
      },
    };
    const got = await vm.setUpPod(pod([volume]));
    const dir = vols(root, "projected", "kube-api-access-abcde");
    assert.equal(got.get(volume.name)?.readOnly, true);
    assert.deepEqual(mounter.calls, [`mount ${dir} size=${NODE_MEMORY}`]);
    assert.equal(await Deno.readTextFile(`${dir}/token`), "token-1");
    assert.equal(await Deno.readTextFile(`${dir}/ca.crt`), "PEM");
    assert.equal(await Deno.readTextFile(`${dir}/namespace`), "ns");
    assert.equal(await mode(`${dir}/token`), 0o644);
    assert.deepEqual(objects.tokenRequests, [{ audience: undefined, expirationSeconds: 3607 }]);
    // A refreshed token reaches the file on the next set-up.
    objects.token = "token-2";
    await vm.setUpPod(pod([volume]));
    assert.equal(await Deno.readTextFile(`${dir}/token`), "token-2");
    await vm.tearDownPod("uid-1");
    assert.equal(mounter.mounted.size, 0);
  }));

Deno.test("projected volume: failing sources are all reported; optional ones are skipped", () =>
  withManager(async ({ objects, vm }) => {
    const sources = [
      { configMap: { name: "missing-cm" } },
      { secret: { name: "missing-secret" } },
      { secret: { name: "fine", optional: true } },
    ];
    await assert.rejects(
      vm.setUpPod(pod([{ name: "p", projected: { sources } }])),
      /volume "p" : \[configmap "missing-cm" not found, secret "missing-secret" not found\]/,
    );
    objects.configMaps.set("missing-cm", { data: {} });
    objects.secrets.set("missing-secret", { data: { k: b64("v") } });
    await vm.setUpPod(pod([{ name: "p", projected: { sources } }]));
  }));

Deno.test("without plugins, configMap, secret and projected volumes ask for an API server", async () => {
  const root = await Deno.makeTempDir();
  try {
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    await assert.rejects(
      vm.setUpPod(pod([{ name: "cfg", configMap: { name: "m" } }])),
      /configMap volumes are not supported \(no API server is configured\)/,
    );
    await assert.rejects(
      vm.setUpPod(pod([{ name: "x", nfs: { server: "s", path: "/" } }])),
      /nfs volumes are not supported$/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
