/**
 * `uninstall --purge` never deletes through a mount: a running pod's subPath or hostPath bind
 * mount under the root directory shows host files, and deleting through it deleted them. The
 * purge is refused, with nothing changed, while a mount is left under what it removes, both when
 * applied directly and as the printed script; the tree walk itself never enters a mount.
 */
import assert from "node:assert/strict";
import { LAYOUT, runInstallCommand } from "../../src/install/mod.ts";
import { MountsLeftError, removeTree } from "../../src/install/_apply.ts";
import { isMountPoint, mountPoints, mountsUnder } from "../../src/install/_mounts.ts";

Deno.test("mounts: mountinfo's mount points, escapes decoded, only those below a directory", () => {
  const info = [
    "22 27 0:21 / /proc rw,relatime - proc proc rw",
    "90 27 0:50 / /var/lib/kubelet/pods/u1/volumes/kubernetes.io~empty-dir/cache rw - tmpfs tmpfs rw",
    "91 27 8:1 /srv/data /var/lib/kubelet/pods/u1/volume-subpaths/my\\040vol/web/0 rw - ext4 /dev/sda1 rw",
    "92 27 8:1 / /var/lib/kubelet2 rw - ext4 /dev/sda1 rw",
    "",
  ].join("\n");
  const points = mountPoints(info);
  assert.deepEqual(mountsUnder("/var/lib/kubelet", points), [
    "/var/lib/kubelet/pods/u1/volumes/kubernetes.io~empty-dir/cache",
    "/var/lib/kubelet/pods/u1/volume-subpaths/my vol/web/0",
  ]);
  // The directory itself is not below itself: a partition of its own is emptied, not refused.
  assert.deepEqual(mountsUnder("/var/lib/kubelet2/", points), []);
  assert.ok(isMountPoint("/var/lib/kubelet2/", points));
  assert.ok(!isMountPoint("/var/lib/kubelet", points));
  assert.deepEqual(mountsUnder("/etc/denolet", points), []);
});

async function sh(cmd: string, args: string[], stdin?: string): Promise<Deno.CommandOutput> {
  const child = new Deno.Command(cmd, {
    args,
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  return await child.output();
}

/** An installed root with a host directory bind-mounted where a pod's subPath mount would be. */
async function installedWithBindMount() {
  const tmp = await Deno.makeTempDir({ prefix: "denolet-purge-" });
  const root = `${tmp}/root`;
  const host = `${tmp}/host-data`;
  await Deno.mkdir(host);
  await Deno.writeTextFile(`${host}/precious.txt`, "the host's own file\n");
  await Deno.writeTextFile(`${tmp}/denolet.bin`, "#!/bin/sh\n");
  const out: string[] = [];
  const run = (command: "install" | "uninstall", argv: string[]) =>
    runInstallCommand(command, ["--prefix", root, ...argv], {
      compiled: true,
      execPath: () => `${tmp}/denolet.bin`,
      out: (l) => out.push(l),
      err: (l) => out.push(l),
    });
  assert.equal(await run("install", []), 0, out.join("\n"));
  const target = `${root}${LAYOUT.rootDir}/pods/uid-1/volume-subpaths/data/web/0`;
  await Deno.mkdir(target, { recursive: true });
  const mounted = await sh("mount", ["--bind", host, target]);
  assert.ok(mounted.success, new TextDecoder().decode(mounted.stderr));
  return {
    tmp,
    root,
    host,
    target,
    out,
    run,
    async cleanUp() {
      await sh("umount", [target]);
      await Deno.remove(tmp, { recursive: true });
    },
  };
}

Deno.test("uninstall --purge with a pod's bind mount left refuses, changes nothing, keeps the host's files", async () => {
  const t = await installedWithBindMount();
  try {
    assert.equal(await t.run("uninstall", ["--purge"]), 1);
    assert.equal(await Deno.readTextFile(`${t.host}/precious.txt`), "the host's own file\n");
    assert.match(t.out.join("\n"), /mounts remain under what --purge removes/);
    assert.ok(t.out.join("\n").includes(t.target), "the mount is named");
    await Deno.stat(`${t.root}${LAYOUT.binDir}/denolet`); // nothing changed at all
    await Deno.stat(`${t.root}${LAYOUT.configFile}`);

    // The printed script refuses the same way.
    t.out.length = 0;
    assert.equal(await t.run("uninstall", ["--purge", "--script"]), 0);
    const script = await sh("sh", [], t.out.join("\n"));
    assert.equal(script.code, 1, new TextDecoder().decode(script.stdout));
    assert.match(new TextDecoder().decode(script.stderr), /mounts remain/);
    assert.equal(await Deno.readTextFile(`${t.host}/precious.txt`), "the host's own file\n");
    await Deno.stat(`${t.root}${LAYOUT.binDir}/denolet`);

    // Unmounted, the purge goes through.
    assert.ok((await sh("umount", [t.target])).success);
    t.out.length = 0;
    assert.equal(await t.run("uninstall", ["--purge"]), 0, t.out.join("\n"));
    await assert.rejects(Deno.stat(`${t.root}${LAYOUT.rootDir}`), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(`${t.host}/precious.txt`), "the host's own file\n");
  } finally {
    await t.cleanUp();
  }
});

Deno.test("uninstall --purge: the tree walk never enters a mount, even one that came after the check", async () => {
  const t = await installedWithBindMount();
  try {
    await assert.rejects(removeTree(`${t.root}${LAYOUT.rootDir}`), MountsLeftError);
    assert.equal(await Deno.readTextFile(`${t.host}/precious.txt`), "the host's own file\n");
  } finally {
    await t.cleanUp();
  }
});

Deno.test("uninstall --purge: a root directory on a partition of its own is emptied, not refused", async () => {
  for (const script of [false, true]) {
    const tmp = await Deno.makeTempDir({ prefix: "denolet-purge-part-" });
    const root = `${tmp}/root`;
    await Deno.writeTextFile(`${tmp}/denolet.bin`, "#!/bin/sh\n");
    const out: string[] = [];
    const run = (command: "install" | "uninstall", argv: string[]) =>
      runInstallCommand(command, ["--prefix", root, ...argv], {
        compiled: true,
        execPath: () => `${tmp}/denolet.bin`,
        out: (l) => out.push(l),
        err: (l) => out.push(l),
      });
    const kubelet = `${root}${LAYOUT.rootDir}`;
    try {
      assert.equal(await run("install", []), 0, out.join("\n"));
      assert.ok((await sh("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", kubelet])).success);
      await Deno.mkdir(`${kubelet}/pods/uid-1`, { recursive: true });
      await Deno.writeTextFile(`${kubelet}/pods/uid-1/.hidden`, "x");
      out.length = 0;
      if (script) {
        assert.equal(await run("uninstall", ["--purge", "--script"]), 0);
        const r = await sh("sh", [], out.join("\n"));
        assert.ok(r.success, new TextDecoder().decode(r.stderr));
      } else {
        assert.equal(await run("uninstall", ["--purge"]), 0, out.join("\n"));
      }
      assert.deepEqual(await Array.fromAsync(Deno.readDir(kubelet)), [], "emptied");
      await assert.rejects(Deno.stat(`${root}${LAYOUT.configDir}`), Deno.errors.NotFound);
    } finally {
      await sh("umount", [kubelet]);
      await Deno.remove(tmp, { recursive: true });
    }
  }
});
