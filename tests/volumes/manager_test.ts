import assert from "node:assert/strict";
import type { V1Pod, V1Volume } from "@kubernetes/client-node";
import { createVolumeManager, parseMountInfo, systemMounter } from "../../src/volumes/mod.ts";
import { ConfigError, isKind } from "../../src/util/errors.ts";
import { nullLogger } from "../../src/util/log.ts";
import { FakeMounter } from "./_fakes.ts";

function pod(volumes: V1Volume[], uid = "uid-1"): V1Pod {
  return { metadata: { name: "p", namespace: "ns", uid }, spec: { containers: [], volumes } };
}

async function withTmp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "denolet-vol-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("emptyDir is a 0777 dir under the pod dir and survives a second setUp", () =>
  withTmp(async (root) => {
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    const vols = await vm.setUpPod(pod([{ name: "scratch", emptyDir: {} }]));
    const path = `${root}/pods/uid-1/volumes/kubernetes.io~empty-dir/scratch`;
    const { bindSubPath: _, ...scratch } = vols.get("scratch")!;
    assert.deepEqual(scratch, {
      hostPath: path,
      readOnly: false,
      kind: "emptyDir",
      medium: "",
    });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o777);
    await Deno.writeTextFile(`${path}/keep`, "x");
    await vm.setUpPod(pod([{ name: "scratch", emptyDir: {} }]));
    assert.equal(await Deno.readTextFile(`${path}/keep`), "x");
    await vm.tearDownPod("uid-1");
    await assert.rejects(Deno.stat(`${root}/pods/uid-1`), Deno.errors.NotFound);
    await vm.tearDownPod("uid-1"); // idempotent
  }));

Deno.test("emptyDir medium Memory mounts a sized tmpfs once and unmounts on teardown", () =>
  withTmp(async (root) => {
    const mounter = new FakeMounter();
    const vm = createVolumeManager({ rootDir: root, logger: nullLogger, mounter });
    const p = pod([{ name: "mem", emptyDir: { medium: "Memory", sizeLimit: "64Mi" } }]);
    await vm.setUpPod(p);
    await vm.setUpPod(p);
    const path = `${root}/pods/uid-1/volumes/kubernetes.io~empty-dir/mem`;
    assert.deepEqual(mounter.calls, [`mount ${path} size=${64 * 2 ** 20}`]);
    await vm.tearDownPod("uid-1");
    assert.deepEqual(mounter.calls.slice(1), [`umount ${path}`]);
  }));

Deno.test("a Memory emptyDir without sizeLimit is capped by the pod's memory limit, else the node's", () =>
  withTmp(async (root) => {
    const mounter = new FakeMounter();
    const limits = new Map([["uid-1", 256 * 2 ** 20]]);
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter,
      nodeAllocatableMemoryBytes: 8 * 2 ** 30,
      podMemoryLimitBytes: (p) => limits.get(p.metadata?.uid ?? ""),
    });
    await vm.setUpPod(pod([{ name: "mem", emptyDir: { medium: "Memory" } }]));
    const limited = `${root}/pods/uid-1/volumes/kubernetes.io~empty-dir/mem`;
    limits.clear();
    await vm.tearDownPod("uid-1");
    await vm.setUpPod(pod([{ name: "mem", emptyDir: { medium: "Memory" } }]));
    assert.deepEqual(mounter.calls, [
      `mount ${limited} size=${256 * 2 ** 20}`,
      `umount ${limited}`,
      `mount ${limited} size=${8 * 2 ** 30}`,
    ]);
  }));

Deno.test("the pod's memory limit is computed only when a memory-backed tmpfs is first mounted", () =>
  withTmp(async (root) => {
    const mounter = new FakeMounter();
    const asked: string[] = [];
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter,
      nodeAllocatableMemoryBytes: 8 * 2 ** 30,
      podMemoryLimitBytes: (p) => {
        asked.push(p.metadata?.uid ?? "");
        return 256 * 2 ** 20;
      },
    });
    const disk = pod([{ name: "scratch", emptyDir: {} }, {
      name: "host",
      hostPath: { path: root },
    }], "uid-d");
    await vm.setUpPod(disk);
    await vm.setUpPod(disk);
    assert.deepEqual(asked, [], "disk-backed volumes need no memory bounds");
    const mem = pod([{ name: "scratch", emptyDir: {} }, {
      name: "mem",
      emptyDir: { medium: "Memory" },
    }], "uid-m");
    await vm.setUpPod(mem);
    await vm.setUpPod(mem);
    await vm.setUpPod(mem);
    assert.deepEqual(asked, ["uid-m"], "later syncs find the tmpfs mounted");
  }));

Deno.test("teardown refuses to delete a pod dir that still has a mount", () =>
  withTmp(async (root) => {
    const mounter = new FakeMounter();
    const vm = createVolumeManager({ rootDir: root, logger: nullLogger, mounter });
    await vm.setUpPod(pod([{ name: "d", emptyDir: {} }]));
    mounter.mounted.set(`${root}/pods/uid-1/other`, [{ fstype: "none", options: ["bind"] }]);
    await assert.rejects(vm.tearDownPod("uid-1"), /still mounted/);
    assert.ok((await Deno.stat(`${root}/pods/uid-1`)).isDirectory);
  }));

Deno.test("bad emptyDir medium and sizeLimit are ConfigErrors naming the volume", () =>
  withTmp(async (root) => {
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    await assert.rejects(
      vm.setUpPod(pod([{ name: "hp", emptyDir: { medium: "HugePages" } }])),
      /volume "hp".*HugePages/,
    );
    await assert.rejects(
      vm.setUpPod(pod([{ name: "sz", emptyDir: { medium: "Memory", sizeLimit: "lots" } }])),
      ConfigError,
    );
  }));

Deno.test("hostPath types are checked and *OrCreate types create", () =>
  withTmp(async (root) => {
    const vm = createVolumeManager({
      rootDir: `${root}/kubelet`,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    const set = (hostPath: V1Volume["hostPath"]) => vm.setUpPod(pod([{ name: "h", hostPath }]));
    await Deno.mkdir(`${root}/dir`);
    await Deno.writeTextFile(`${root}/file`, "");

    assert.equal(
      (await set({ path: `${root}/dir`, type: "Directory" })).get("h")?.hostPath,
      `${root}/dir`,
    );
    assert.equal((await set({ path: `${root}/missing` })).get("h")?.hostPath, `${root}/missing`);
    await set({ path: `${root}/file`, type: "File" });
    await set({ path: "/dev/null", type: "CharDevice" });

    await set({ path: `${root}/new/deep`, type: "DirectoryOrCreate" });
    const info = await Deno.stat(`${root}/new/deep`);
    assert.ok(info.isDirectory);
    assert.equal(info.mode! & 0o777, 0o755 & ~Deno.umask());
    await set({ path: `${root}/new/f`, type: "FileOrCreate" });
    assert.ok((await Deno.stat(`${root}/new/f`)).isFile);

    const fails: [V1Volume["hostPath"], RegExp][] = [
      [{ path: `${root}/missing`, type: "Directory" }, /does not exist/],
      [{ path: `${root}/file`, type: "Directory" }, /is not a directory/],
      [{ path: `${root}/dir`, type: "File" }, /is not a file/],
      [{ path: `${root}/dir`, type: "Socket" }, /is not a socket/],
      [{ path: `${root}/file`, type: "BlockDevice" }, /is not a block device/],
      [{ path: `${root}/file`, type: "CharDevice" }, /is not a character device/],
      [{ path: `${root}/file`, type: "DirectoryOrCreate" }, /is not a directory/],
      [{ path: `${root}/nodir/f`, type: "FileOrCreate" }, /cannot set up hostPath/],
      [{ path: `${root}/dir`, type: "Weird" }, /unsupported hostPath type/],
      [{ path: "relative", type: "" }, /absolute/],
    ];
    for (const [hp, re] of fails) {
      await assert.rejects(set(hp), (e) =>
        isKind(e, ConfigError) && re.test(String(e)) && /volume "h"/.test(String(e)), hp?.path);
    }
  }));

Deno.test("hostPath teardown never touches host contents", () =>
  withTmp(async (root) => {
    const vm = createVolumeManager({
      rootDir: `${root}/kubelet`,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    await Deno.mkdir(`${root}/data`);
    await Deno.writeTextFile(`${root}/data/precious`, "x");
    await vm.setUpPod(pod([{ name: "h", hostPath: { path: `${root}/data` } }]));
    await vm.tearDownPod("uid-1");
    assert.equal(await Deno.readTextFile(`${root}/data/precious`), "x");
  }));

Deno.test("unsupported volume kinds are refused by name", () =>
  withTmp(async (root) => {
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    for (
      const v of [
        { name: "cfg", configMap: { name: "m" } },
        { name: "sec", secret: { secretName: "s" } },
        { name: "proj", projected: { sources: [] } },
        { name: "claim", persistentVolumeClaim: { claimName: "c" } },
      ] as V1Volume[]
    ) {
      await assert.rejects(
        vm.setUpPod(pod([v])),
        (e) => isKind(e, ConfigError) && String(e).includes(`volume "${v.name}"`),
      );
    }
  }));

Deno.test("pod uids that are not a path component are rejected", () =>
  withTmp(async (root) => {
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    await assert.rejects(vm.tearDownPod("../etc"), ConfigError);
    await assert.rejects(vm.setUpPod(pod([{ name: "d", emptyDir: {} }], "..")), ConfigError);
  }));

Deno.test("setUpPod stops when the signal is aborted", () =>
  withTmp(async (root) => {
    const vm = createVolumeManager({
      rootDir: root,
      logger: nullLogger,
      mounter: new FakeMounter(),
    });
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await assert.rejects(
      vm.setUpPod(pod([{ name: "d", emptyDir: {} }]), { signal: ac.signal }),
      /stop/,
    );
  }));

Deno.test("parseMountInfo decodes escaped mount points", () => {
  const text = "36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime master:1 - ext3 /dev/root rw\n" +
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n";
  assert.deepEqual(parseMountInfo(text), ["/mnt/with space", "/proc"]);
});

const isRoot = Deno.uid() === 0;

Deno.test({
  name: "real tmpfs emptyDir is mounted with its size and cleaned up (root only)",
  ignore: !isRoot,
  fn: () =>
    withTmp(async (root) => {
      const mounter = systemMounter();
      const vm = createVolumeManager({ rootDir: root, logger: nullLogger, mounter });
      const vols = await vm.setUpPod(
        pod([{ name: "mem", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } }]),
      );
      const path = vols.get("mem")!.hostPath;
      try {
        assert.ok(await mounter.isMountPoint(path));
        assert.equal((await Deno.stat(path)).mode! & 0o777, 0o777);
        const mountLine = (await Deno.readTextFile("/proc/self/mountinfo")).split("\n")
          .find((l) => l.split(" ")[4] === path);
        assert.match(mountLine ?? "", /tmpfs.*size=1024k/);
      } finally {
        await vm.tearDownPod("uid-1");
      }
      assert.equal(await mounter.isMountPoint(path), false);
      await assert.rejects(Deno.stat(`${root}/pods/uid-1`), Deno.errors.NotFound);
    }),
});
