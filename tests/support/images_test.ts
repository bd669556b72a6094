import assert from "node:assert/strict";
import { ociArch, writeOciArchive } from "./_oci.ts";
import { BUSYBOX_PATH, isStaticElf } from "./_packages.ts";
import { run, sha256Hex } from "./_exec.ts";

async function buildSample(root: string): Promise<{ digest: string; out: string }> {
  const rootfs = `${root}/rootfs`;
  await Deno.mkdir(`${rootfs}/bin`, { recursive: true });
  await Deno.writeTextFile(`${rootfs}/bin/hello`, "#!/bin/sh\necho hi\n");
  const work = `${root}/work`;
  await Deno.mkdir(work);
  const out = `${root}/image.tar`;
  const { manifestDigest } = await writeOciArchive({
    name: "denolet.test/sample:0.1",
    rootfs,
    config: { Cmd: ["/bin/hello"] },
    workDir: work,
    out,
  });
  return { digest: manifestDigest, out };
}

Deno.test("writeOciArchive writes a valid, reproducible OCI layout", async () => {
  const a = await Deno.makeTempDir();
  const b = await Deno.makeTempDir();
  try {
    const first = await buildSample(a);
    // Different file times must not change the digests.
    await Deno.utime(`${a}/rootfs/bin/hello`, 1_000_000, 1_000_000);
    const second = await buildSample(b);
    assert.equal(first.digest, second.digest);

    const x = `${a}/x`;
    await Deno.mkdir(x);
    await run("tar", ["-C", x, "-xf", first.out]);
    const layout = JSON.parse(await Deno.readTextFile(`${x}/oci-layout`));
    assert.equal(layout.imageLayoutVersion, "1.0.0");
    const index = JSON.parse(await Deno.readTextFile(`${x}/index.json`));
    const desc = index.manifests[0];
    assert.equal(desc.digest, first.digest);
    assert.equal(desc.annotations["io.containerd.image.name"], "denolet.test/sample:0.1");
    assert.equal(desc.platform.architecture, ociArch());

    const blob = async (digest: string) => {
      const bytes = await Deno.readFile(`${x}/blobs/sha256/${digest.slice("sha256:".length)}`);
      assert.equal(`sha256:${await sha256Hex(bytes)}`, digest, "blob content matches its digest");
      return bytes;
    };
    const manifest = JSON.parse(new TextDecoder().decode(await blob(desc.digest)));
    const config = JSON.parse(new TextDecoder().decode(await blob(manifest.config.digest)));
    assert.deepEqual(config.config.Cmd, ["/bin/hello"]);
    assert.equal(config.os, "linux");
    const layer = await blob(manifest.layers[0].digest);
    assert.equal(manifest.layers[0].size, layer.byteLength);
    assert.deepEqual(config.rootfs.diff_ids, [manifest.layers[0].digest]);
  } finally {
    await Deno.remove(a, { recursive: true });
    await Deno.remove(b, { recursive: true });
  }
});

Deno.test("isStaticElf tells static from dynamic executables", async () => {
  assert.equal(await isStaticElf(Deno.execPath()), false);
  assert.equal(await isStaticElf("/nonexistent/busybox"), false);
  assert.equal(await isStaticElf(new URL(import.meta.url).pathname), false);
  if (await Deno.stat(BUSYBOX_PATH).then(() => true, () => false)) {
    // busybox-static is a prerequisite on every machine that runs the e2e suites.
    assert.equal(await isStaticElf(BUSYBOX_PATH), true);
  }
});
