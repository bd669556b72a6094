import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import {
  bindSubPath,
  cleanSubPaths,
  createVolumeManager,
  type FdFs,
  libcFdFs,
  type Mounter,
  openSubPath,
  SubPathError,
  systemMounter,
} from "../../src/volumes/mod.ts";
import { ConfigError, isKind } from "../../src/util/errors.ts";
import { createLogger } from "../../src/util/log.ts";
import { FakeFdFs, FakeMounter } from "./_fakes.ts";

async function withTmp(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "denolet-subpath-" }));
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** <dir>/vol with a directory `x` holding `marker`, and <dir>/outside holding `secret`. */
async function layout(dir: string): Promise<{ vol: string; outside: string }> {
  const vol = `${dir}/vol`;
  await Deno.mkdir(`${vol}/x`, { recursive: true });
  await Deno.writeTextFile(`${vol}/x/marker`, "intended");
  await Deno.mkdir(`${dir}/outside`);
  await Deno.writeTextFile(`${dir}/outside/secret`, "host");
  return { vol, outside: `${dir}/outside` };
}

/** Replaces the directory at `path` by a symlink to `to`, keeping it as `<path>.moved`. */
function swapForSymlink(path: string, to: string): void {
  Deno.renameSync(path, `${path}.moved`);
  Deno.symlinkSync(to, path);
}

function bindOpts(fs: FdFs, mounter: Mounter, podDir: string, mountIndex = 0) {
  return { podDir, volumeName: "data", containerName: "c", mountIndex, fs, mounter };
}

Deno.test("openSubPath creates missing directories with the volume's mode", () =>
  withTmp(async (dir) => {
    const vol = `${dir}/vol`;
    await Deno.mkdir(vol);
    await Deno.chmod(vol, 0o770);
    const fs = new FakeFdFs();
    const opened = await openSubPath(vol, "a/./b", { fs });
    assert.equal(opened.path, `${vol}/a/b`);
    assert.equal(opened.info.kind, "directory");
    assert.equal((await Deno.stat(`${vol}/a`)).mode! & 0o777, 0o770);
    assert.equal((await Deno.stat(`${vol}/a/b`)).mode! & 0o777, 0o770);
    assert.deepEqual([...fs.open.values()], [`${vol}/a/b`], "only the result stays open");
    fs.close(opened.fd);

    await Deno.writeTextFile(`${vol}/file`, "x");
    const file = await openSubPath(vol, "file", { fs });
    assert.equal(file.info.kind, "file");
    fs.close(file.fd);
    const whole = await openSubPath(vol, ".", { fs });
    assert.equal(whole.path, vol);
    fs.close(whole.fd);
    assert.equal(fs.open.size, 0);
  }));

Deno.test("openSubPath follows links that stay in the volume and refuses those that leave", () =>
  withTmp(async (dir) => {
    const { vol, outside } = await layout(dir);
    const fs = new FakeFdFs();
    await Deno.symlink(vol, `${vol}/self`);
    const inside = await openSubPath(vol, "self/x", { fs });
    assert.equal(inside.path, `${vol}/x`);
    fs.close(inside.fd);

    await Deno.symlink(outside, `${vol}/out`);
    await assert.rejects(openSubPath(vol, "out/new", { fs }), SubPathError);
    await assert.rejects(openSubPath(vol, "out", { fs }), /outside the volume/);
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["secret"]);
    // A dangling link is not created through either.
    await Deno.symlink(`${outside}/missing`, `${vol}/dangling`);
    await assert.rejects(openSubPath(vol, "dangling", { fs }), /is a symlink/);
    await assert.rejects(openSubPath(vol, "dangling/deeper", { fs }), /is a symlink/);
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["secret"]);
    assert.equal(fs.open.size, 0, "no descriptor leaks on failure");
  }));

Deno.test("a component swapped for a symlink after the check is refused, not followed", () =>
  withTmp(async (dir) => {
    const { vol, outside } = await layout(dir);
    await Deno.mkdir(`${outside}/x`);
    const fs = new FakeFdFs();
    // The walk re-opens each component without following links: the swap lands between the
    // name-based resolution and that open.
    fs.beforeOpen = (path) => {
      if (path === `${vol}/x`) swapForSymlink(path, outside);
    };
    await assert.rejects(openSubPath(vol, "x", { fs }), /x is a symlink/);
    assert.equal(fs.open.size, 0);

    await Deno.remove(`${vol}/x`);
    await Deno.rename(`${vol}/x.moved`, `${vol}/x`);
    await assert.rejects(openSubPath(vol, "x/sub", { fs }), /x is a symlink/);
    assert.deepEqual([...Deno.readDirSync(`${outside}/x`)], [], "nothing created outside");
    assert.equal(fs.open.size, 0);
  }));

Deno.test("bindSubPath binds the opened subPath per container and mount, and reuses it", () =>
  withTmp(async (dir) => {
    const { vol } = await layout(dir);
    await Deno.writeTextFile(`${vol}/file`, "f");
    const fs = new FakeFdFs();
    const mounter = new FakeMounter(fs);
    const podDir = `${dir}/pod`;
    const target = await bindSubPath(vol, "x", bindOpts(fs, mounter, podDir));
    assert.equal(target, `${podDir}/volume-subpaths/data/c/0`);
    assert.ok((await Deno.lstat(target)).isDirectory);
    assert.match(mounter.calls[0], new RegExp(`^bind /proc/fake-agent/fd/\\d+ ${target}$`));
    assert.equal(fs.binds.get(target), `${vol}/x`);

    // A restarted container finds the same file bound and keeps it.
    assert.equal(await bindSubPath(vol, "x", bindOpts(fs, mounter, podDir)), target);
    assert.equal(mounter.calls.length, 1);

    const fileTarget = await bindSubPath(vol, "file", bindOpts(fs, mounter, podDir, 3));
    assert.equal(fileTarget, `${podDir}/volume-subpaths/data/c/3`);
    assert.ok((await Deno.lstat(fileTarget)).isFile);
    assert.equal(fs.open.size, 0, "descriptors are closed once bound");
  }));

Deno.test("bindSubPath re-binds when the subPath now is another file", () =>
  withTmp(async (dir) => {
    const { vol } = await layout(dir);
    const fs = new FakeFdFs();
    const mounter = new FakeMounter(fs);
    const target = await bindSubPath(vol, "x", bindOpts(fs, mounter, `${dir}/pod`));
    await Deno.rename(`${vol}/x`, `${vol}/old`);
    // The mount holds the directory itself, wherever it moved (the fake binds by name).
    fs.binds.set(target, `${vol}/old`);
    await Deno.mkdir(`${vol}/x`);
    assert.equal(await bindSubPath(vol, "x", bindOpts(fs, mounter, `${dir}/pod`)), target);
    assert.deepEqual(mounter.calls.slice(1).map((c) => c.split(" ")[0]), ["umount", "bind"]);
    assert.equal(mounter.mounted.get(target)?.length, 1);
    assert.equal(fs.binds.get(target), `${vol}/x`);
  }));

Deno.test("a failed or misdirected bind leaves no mount and no target behind", () =>
  withTmp(async (dir) => {
    const { vol, outside } = await layout(dir);
    const fs = new FakeFdFs();
    const mounter = new FakeMounter(fs);
    const podDir = `${dir}/pod`;
    mounter.failBind = new Error("mount: permission denied");
    await assert.rejects(bindSubPath(vol, "x", bindOpts(fs, mounter, podDir)), /permission/);
    await assert.rejects(Deno.lstat(`${podDir}/volume-subpaths`), Deno.errors.NotFound);

    // The kernel mounted something else than the descriptor (as mount(8) would if it looked the
    // path up again): refused and undone.
    mounter.failBind = undefined;
    mounter.bindElsewhere = outside;
    await assert.rejects(
      bindSubPath(vol, "x", bindOpts(fs, mounter, podDir)),
      (e) => isKind(e, SubPathError) && /bind mount at .* holds/.test(String(e)),
    );
    assert.equal(mounter.mounted.size, 0);
    await assert.rejects(Deno.lstat(`${podDir}/volume-subpaths`), Deno.errors.NotFound);
    assert.equal(fs.open.size, 0);
  }));

Deno.test("cleanSubPaths unmounts every subPath mount of the pod, stacked ones too", async () => {
  const mounter = new FakeMounter();
  const a = "/pods/u/volume-subpaths/data/c/0";
  const b = "/pods/u/volume-subpaths/logs/d/2";
  mounter.mounted.set(a, [{ fstype: "none", options: [] }, { fstype: "none", options: [] }]);
  mounter.mounted.set(b, [{ fstype: "none", options: [] }]);
  mounter.mounted.set("/pods/u/volumes/kubernetes.io~empty-dir/m", [{
    fstype: "tmpfs",
    options: [],
  }]);
  await cleanSubPaths("/pods/u", { mounter });
  assert.deepEqual([...mounter.mounted.keys()], ["/pods/u/volumes/kubernetes.io~empty-dir/m"]);
  await cleanSubPaths("/pods/u", { mounter });
  assert.equal(mounter.calls.length, 3);
});

function subPathPod(uid = "uid-1"): V1Pod {
  return {
    metadata: { name: "p", namespace: "ns", uid },
    spec: { containers: [], volumes: [{ name: "data", emptyDir: {} }] },
  };
}

Deno.test("the volume manager binds subPaths, hides node paths in errors and unmounts on teardown", () =>
  withTmp(async (root) => {
    const fs = new FakeFdFs();
    const mounter = new FakeMounter(fs);
    const lines: string[] = [];
    const logger = createLogger({ write: (l) => lines.push(l) });
    const vm = createVolumeManager({ rootDir: root, logger, mounter, fdFs: fs });
    const data = (await vm.setUpPod(subPathPod())).get("data")!;
    const opts = { containerName: "c", mountIndex: 1, field: "containers[c].volumeMounts[data]" };
    const target = await data.bindSubPath("logs/app", opts);
    assert.equal(target, `${root}/pods/uid-1/volume-subpaths/data/c/1`);
    assert.ok((await Deno.stat(`${data.hostPath}/logs/app`)).isDirectory);

    await Deno.mkdir(`${root}/elsewhere`);
    await Deno.symlink(`${root}/elsewhere`, `${data.hostPath}/escape`);
    await assert.rejects(data.bindSubPath("escape", opts), (e) => {
      const msg = String(e);
      return isKind(e, ConfigError) && !msg.includes(root) &&
        msg.includes(
          `containers[c].volumeMounts[data]: failed to prepare subPath for volumeMount "data" of container "c"`,
        );
    });
    const logged = lines.find((l) => l.includes("Cannot prepare subPath")) ?? "";
    assert.match(logged, /outside the volume/);
    assert.match(logged, /pod=ns\/p/);

    await vm.tearDownPod("uid-1");
    assert.equal(mounter.mounted.size, 0);
    assert.ok(mounter.calls.includes(`umount ${target}`));
    await assert.rejects(Deno.stat(`${root}/pods/uid-1`), Deno.errors.NotFound);
  }));

Deno.test("teardown keeps the pod directory when a subPath mount will not go", () =>
  withTmp(async (root) => {
    const fs = new FakeFdFs();
    const mounter = new FakeMounter(fs);
    const vm = createVolumeManager({ rootDir: root, logger: createLogger(), mounter, fdFs: fs });
    const data = (await vm.setUpPod(subPathPod())).get("data")!;
    await Deno.mkdir(`${data.hostPath}/keep`);
    await Deno.writeTextFile(`${data.hostPath}/keep/precious`, "x");
    await data.bindSubPath("keep", { containerName: "c", mountIndex: 0, field: "f" });
    mounter.unmount = () => Promise.reject(new Error("umount: target is busy"));
    await assert.rejects(vm.tearDownPod("uid-1"), /busy/);
    assert.equal(await Deno.readTextFile(`${data.hostPath}/keep/precious`), "x");
  }));

/** Wraps `fs` so a test can act right before or after the walk opens a component. */
function hooked(
  fs: FdFs,
  hooks: { before?: (name: string) => void; after?: (name: string) => void },
): FdFs {
  return {
    ...fs,
    openAt(dirFd, name) {
      hooks.before?.(name);
      const fd = fs.openAt(dirFd, name);
      hooks.after?.(name);
      return fd;
    },
  };
}

async function openFds(): Promise<number> {
  let n = 0;
  for await (const _ of Deno.readDir("/proc/self/fd")) n++;
  return n;
}

Deno.test("libc walk: symlinked components are refused, even when swapped in at the last moment", () =>
  withTmp(async (dir) => {
    const { vol, outside } = await layout(dir);
    const libc = libcFdFs();
    const before = await openFds();
    const opened = await openSubPath(vol, "x", { fs: libc });
    assert.equal(opened.info.kind, "directory");
    const stat = await Deno.stat(`${vol}/x`);
    assert.equal(opened.info.id.endsWith(`:${stat.ino}`), true, opened.info.id);
    libc.close(opened.fd);

    await Deno.symlink(outside, `${vol}/link`);
    await assert.rejects(openSubPath(vol, "link", { fs: libc }), /outside the volume/);
    const racy = hooked(libc, {
      before: (name) => {
        if (name === "x") swapForSymlink(`${vol}/x`, outside);
      },
    });
    await assert.rejects(openSubPath(vol, "x/deeper", { fs: racy }), /x is a symlink/);
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["secret"]);

    // Created directories get the volume's mode despite the umask.
    await Deno.chmod(vol, 0o777);
    const made = await openSubPath(vol, "new/dir", { fs: libc });
    libc.close(made.fd);
    assert.equal((await Deno.stat(`${vol}/new/dir`)).mode! & 0o777, 0o777);
    assert.equal(await openFds(), before, "no descriptor left open");
  }));

const isRoot = Deno.uid() === 0;

Deno.test({
  name: "real bind mount pins the opened directory: a later symlink swap changes nothing (root)",
  ignore: !isRoot,
  fn: () =>
    withTmp(async (dir) => {
      const { vol } = await layout(dir);
      const mounter = systemMounter();
      const libc = libcFdFs();
      const podDir = `${dir}/pod`;
      // The swap lands after the walk opened `x` and before the bind: the descriptor decides.
      const racy = hooked(libc, {
        after: (name) => {
          if (name === "x") swapForSymlink(`${vol}/x`, "/etc");
        },
      });
      const target = await bindSubPath(vol, "x", bindOpts(racy, mounter, podDir));
      try {
        assert.ok(await mounter.isMountPoint(target));
        assert.equal((await Deno.lstat(`${vol}/x`)).isSymlink, true, "the swap happened");
        assert.equal(await Deno.readTextFile(`${target}/marker`), "intended");
        await assert.rejects(Deno.stat(`${target}/passwd`), Deno.errors.NotFound);
        assert.equal((await Deno.stat(target)).ino, (await Deno.stat(`${vol}/x.moved`)).ino);

        // A restart now resolves `x` to /etc: refused, and the old mount is left alone.
        await assert.rejects(bindSubPath(vol, "x", bindOpts(libc, mounter, podDir)), /outside/);
        assert.equal(await Deno.readTextFile(`${target}/marker`), "intended");
      } finally {
        await cleanSubPaths(podDir, { mounter });
      }
      assert.equal(await mounter.isMountPoint(target), false);
      assert.deepEqual(await mounter.mountPointsUnder(dir), []);
      assert.equal(await Deno.readTextFile(`${vol}/x.moved/marker`), "intended");
    }),
});

Deno.test({
  name: "real volume manager: subPath bind mounts go with the pod directory (root)",
  ignore: !isRoot,
  fn: () =>
    withTmp(async (root) => {
      const mounter = systemMounter();
      const vm = createVolumeManager({ rootDir: root, logger: createLogger(), mounter });
      const data = (await vm.setUpPod(subPathPod())).get("data")!;
      await Deno.writeTextFile(`${data.hostPath}/f`, "file");
      try {
        const opts = { containerName: "c", mountIndex: 0, field: "f" };
        const dirTarget = await data.bindSubPath("d/e", opts);
        const fileTarget = await data.bindSubPath("f", { ...opts, mountIndex: 1 });
        assert.ok(await mounter.isMountPoint(dirTarget));
        assert.equal(await Deno.readTextFile(fileTarget), "file");
      } finally {
        await vm.tearDownPod("uid-1");
      }
      assert.deepEqual(await mounter.mountPointsUnder(root), []);
      await assert.rejects(Deno.stat(`${root}/pods/uid-1`), Deno.errors.NotFound);
    }),
});
