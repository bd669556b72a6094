/**
 * The pod's fsGroup on the volumes upstream changes (emptyDir, configMap, secret, downwardAPI,
 * projected), through the volume manager on a real temporary directory. chown needs root.
 */
import assert from "node:assert/strict";
import type { V1Pod, V1PodSecurityContext, V1Volume } from "@kubernetes/client-node";
import { downwardAPIValues } from "../../src/runtime/mod.ts";
import { FakeClock } from "../../src/util/clock.ts";
import { nullLogger } from "../../src/util/log.ts";
import {
  configMapPlugin,
  createVolumeManager,
  downwardAPIPlugin,
  projectedPlugin,
  secretPlugin,
  systemMounter,
} from "../../src/volumes/mod.ts";
import { FakeMounter, FakeObjects } from "./_fakes.ts";

const ignore = Deno.uid() !== 0;
const FS_GROUP = 1234;

function pod(volumes: V1Volume[], sc: V1PodSecurityContext = { fsGroup: FS_GROUP }): V1Pod {
  return {
    metadata: { name: "web", namespace: "ns", uid: "uid-1" },
    spec: { securityContext: sc, containers: [{ name: "main" }], volumes },
  };
}

async function withManager(
  fn: (ctx: {
    root: string;
    objects: FakeObjects;
    vm: ReturnType<typeof createVolumeManager>;
    clock: FakeClock;
  }) => Promise<void>,
): Promise<void> {
  const root = await Deno.makeTempDir({ prefix: "denolet-fsgroup-" });
  const objects = new FakeObjects();
  const clock = new FakeClock();
  const downward = downwardAPIValues({ nodeAllocatable: { cpuMilli: 1000, memoryBytes: 2 ** 30 } });
  const vm = createVolumeManager({
    rootDir: root,
    logger: nullLogger,
    mounter: new FakeMounter(),
    clock,
    nodeAllocatableMemoryBytes: 2 ** 30,
    plugins: [
      downwardAPIPlugin(downward),
      configMapPlugin(objects),
      secretPlugin(objects),
      projectedPlugin({ objects, downward }),
    ],
  });
  try {
    await fn({ root, objects, vm, clock });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const vol = (root: string, plugin: string, name: string) =>
  `${root}/pods/uid-1/volumes/kubernetes.io~${plugin}/${name}`;
/** Mode bits and group of what `p` names, following links (what a container's stat sees). */
async function owned(p: string): Promise<[string, number]> {
  const info = await Deno.stat(p);
  return [(info.mode! & 0o7777).toString(8), info.gid!];
}

Deno.test({
  name: "fsGroup: configMap files get the group and group read; directories setgid",
  ignore,
  fn: () =>
    withManager(async ({ root, objects, vm }) => {
      objects.configMaps.set("app", { data: { a: "A", b: "B" } });
      await vm.setUpPod(pod([
        { name: "plain", configMap: { name: "app" } },
        { name: "ro", configMap: { name: "app", defaultMode: 0o400 } },
        {
          name: "mapped",
          configMap: { name: "app", items: [{ key: "a", path: "path/to/a", mode: 0o600 }] },
        },
      ]));
      const plain = vol(root, "configmap", "plain");
      assert.deepEqual(await owned(`${plain}/a`), ["644", FS_GROUP]);
      assert.deepEqual(await owned(plain), ["2777", FS_GROUP]);
      assert.deepEqual(await owned(`${plain}/..data`), ["2755", FS_GROUP]);
      // Upstream's conformance: defaultMode 0400 with an fsGroup reads -r--r-----.
      assert.deepEqual(await owned(`${vol(root, "configmap", "ro")}/b`), ["440", FS_GROUP]);
      const mapped = vol(root, "configmap", "mapped");
      assert.deepEqual(await owned(`${mapped}/path/to/a`), ["640", FS_GROUP]);
      assert.deepEqual(await owned(`${mapped}/path/to`), ["2755", FS_GROUP]);
    }),
});

Deno.test({
  name: "fsGroup: each new version of an updated volume gets it; an unchanged one is not rewritten",
  ignore,
  fn: () =>
    withManager(async ({ root, objects, vm, clock }) => {
      const p = pod([{ name: "cfg", configMap: { name: "app", defaultMode: 0o400 } }]);
      objects.configMaps.set("app", { data: { a: "1" } });
      await vm.setUpPod(p);
      const dir = vol(root, "configmap", "cfg");
      const first = await Deno.readLink(`${dir}/..data`);
      await clock.advance(2000);
      // 0440 on disk is what 0400 becomes with the fsGroup: no difference to write.
      await vm.setUpPod(p);
      assert.equal(await Deno.readLink(`${dir}/..data`), first);
      objects.configMaps.set("app", { data: { a: "2", added: "3" } });
      await vm.setUpPod(p);
      assert.notEqual(await Deno.readLink(`${dir}/..data`), first);
      assert.equal(await Deno.readTextFile(`${dir}/a`), "2");
      assert.deepEqual(await owned(`${dir}/a`), ["440", FS_GROUP]);
      assert.deepEqual(await owned(`${dir}/added`), ["440", FS_GROUP]);
      assert.deepEqual(await owned(`${dir}/..data`), ["2755", FS_GROUP]);
    }),
});

Deno.test({
  name: "fsGroup: secret and downwardAPI files too; without one nothing changes",
  ignore,
  fn: () =>
    withManager(async ({ root, objects, vm }) => {
      objects.secrets.set("creds", { data: { pw: btoa("s3cr3t") } });
      const volumes: V1Volume[] = [
        { name: "sec", secret: { secretName: "creds", defaultMode: 0o400 } },
        {
          name: "info",
          downwardAPI: {
            defaultMode: 0o440,
            items: [{ path: "podname", fieldRef: { fieldPath: "metadata.name" } }],
          },
        },
      ];
      await vm.setUpPod(pod(volumes));
      assert.deepEqual(await owned(`${vol(root, "secret", "sec")}/pw`), ["440", FS_GROUP]);
      const info = vol(root, "downward-api", "info");
      assert.deepEqual(await owned(`${info}/podname`), ["440", FS_GROUP]);
      await vm.tearDownPod("uid-1");

      await vm.setUpPod(pod(volumes, {}));
      assert.deepEqual(await owned(`${vol(root, "secret", "sec")}/pw`), ["400", 0]);
      assert.deepEqual(await owned(info), ["777", 0]);
    }),
});

Deno.test({
  name: "fsGroup and runAsUser: a projected token is 0600 for its user, 0640 for the group",
  ignore,
  fn: () =>
    withManager(async ({ root, vm }) => {
      const volume: V1Volume = {
        name: "token",
        projected: { defaultMode: 0o644, sources: [{ serviceAccountToken: { path: "token" } }] },
      };
      const cases: [V1PodSecurityContext, string, number, number][] = [
        [{ runAsUser: 1000 }, "600", 1000, 0],
        [{ fsGroup: 10000 }, "640", 0, 10000],
        [{ runAsUser: 1000, fsGroup: 10000 }, "640", 1000, 10000],
        [{}, "644", 0, 0],
      ];
      for (const [sc, perm, uid, gid] of cases) {
        await vm.setUpPod(pod([volume], sc));
        const file = `${vol(root, "projected", "token")}/token`;
        const info = await Deno.stat(file);
        const what = JSON.stringify(sc);
        assert.equal((info.mode! & 0o7777).toString(8), perm, what);
        assert.equal(info.uid, uid, what);
        assert.equal(info.gid, gid, what);
        await vm.tearDownPod("uid-1");
      }
    }),
});

Deno.test({
  name: "fsGroup: an emptyDir gets it when made, and keeps what the pod did to it later",
  ignore,
  fn: () =>
    withManager(async ({ root, vm }) => {
      const p = pod([{ name: "scratch", emptyDir: {} }]);
      await vm.setUpPod(p);
      const dir = vol(root, "empty-dir", "scratch");
      assert.deepEqual(await owned(dir), ["2777", FS_GROUP]);
      // A set-up of a volume that exists changes nothing (upstream: the volume is ready).
      await Deno.chmod(dir, 0o777);
      await Deno.writeTextFile(`${dir}/mine`, "x");
      await vm.setUpPod(p);
      assert.deepEqual(await owned(dir), ["777", FS_GROUP]);
      assert.equal((await owned(`${dir}/mine`))[0], "644");
    }),
});

Deno.test({
  name:
    "fsGroup on a real tmpfs emptyDir: the tmpfs root keeps its sticky bit and gets setgid (root only)",
  ignore,
  fn: () =>
    withManager(async ({ root }) => {
      const mounter = systemMounter();
      const vm = createVolumeManager({ rootDir: root, logger: nullLogger, mounter });
      const vols = await vm.setUpPod(
        pod([{ name: "mem", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } }]),
      );
      const path = vols.get("mem")!.hostPath;
      try {
        assert.ok(await mounter.isMountPoint(path));
        // Upstream: drwxrwsrwt, so a subPath directory made in it is "dgtrwxrwxrwx".
        assert.deepEqual(await owned(path), ["3777", FS_GROUP]);
      } finally {
        await vm.tearDownPod("uid-1");
      }
    }),
});
