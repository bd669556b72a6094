import assert from "node:assert/strict";
import { answers, daemonPid, devContainerd, ensureContainerd, runtimeDir } from "./containerd.ts";
import { BUSYBOX_IMAGE, listImages, PAUSE_IMAGE } from "./images.ts";
import { run } from "./_exec.ts";

const quiet = { log: () => {} };

Deno.test("the upstream containerd keeps to a subdirectory; an unknown flavour is refused", () => {
  assert.equal(runtimeDir({ dir: "/x", containerd: "system" }), "/x");
  assert.equal(runtimeDir({ dir: "/x", containerd: "upstream" }), "/x/containerd-v2");
  const saved = Deno.env.get("DENOLET_DEV_CONTAINERD");
  try {
    Deno.env.set("DENOLET_DEV_CONTAINERD", "containerd2");
    assert.throws(() => devContainerd(), /DENOLET_DEV_CONTAINERD="containerd2": expected "system"/);
    assert.throws(() => runtimeDir({ dir: "/x" }), /expected "system"/);
    Deno.env.set("DENOLET_DEV_CONTAINERD", "upstream");
    assert.equal(runtimeDir({ dir: "/x" }), "/x/containerd-v2");
  } finally {
    if (saved === undefined) Deno.env.delete("DENOLET_DEV_CONTAINERD");
    else Deno.env.set("DENOLET_DEV_CONTAINERD", saved);
  }
});

Deno.test("ensureContainerd provides a containerd with the CRI plugin and the test images", async () => {
  const rt = await ensureContainerd(quiet);
  assert.equal(rt.dir, runtimeDir());
  assert.equal(rt.endpoint, `unix://${rt.socket}`);
  assert.equal(rt.sandboxImage, PAUSE_IMAGE);
  assert.deepEqual(rt.images, { busybox: BUSYBOX_IMAGE, pause: PAUSE_IMAGE });
  assert.ok(await answers(rt.socket));

  const images = await listImages(rt.socket);
  assert.ok(images.includes(BUSYBOX_IMAGE), `images: ${images.join(", ")}`);
  assert.ok(images.includes(PAUSE_IMAGE), `images: ${images.join(", ")}`);

  const plugins = await run("ctr", ["--address", rt.socket, "plugins", "ls"]);
  assert.match(plugins, /io\.containerd\.grpc\.v1\s+cri\s+\S+\s+ok/);
  const config = await Deno.readTextFile(`${rt.dir}/config.toml`);
  assert.match(config, /sandbox_image = "denolet\.test\/pause:1\.0"/);
});

Deno.test("a second ensureContainerd call reuses the running daemon", async () => {
  const first = await ensureContainerd(quiet);
  const pid = await daemonPid();
  assert.ok(pid !== undefined, "the dev containerd should be running");
  const [a, b] = await Promise.all([ensureContainerd(quiet), ensureContainerd(quiet)]);
  assert.deepEqual(a, first);
  assert.deepEqual(b, first);
  assert.equal(await daemonPid(), pid);
});

Deno.test("the busybox image runs the applets the tests rely on", async () => {
  const rt = await ensureContainerd(quiet);
  const id = `support-test-${Deno.pid}`;
  const script = "for a in sh sleep echo cat ls touch date env httpd nc wget true false id mkdir " +
    "test kill hostname ps; do command -v $a >/dev/null || echo missing $a; done; " +
    "grep -c . /etc/passwd; test -d /tmp && echo ok";
  const out = await run("ctr", [
    "--address",
    rt.socket,
    "-n",
    "k8s.io",
    "run",
    "--rm",
    BUSYBOX_IMAGE,
    id,
    "sh",
    "-c",
    script,
  ]);
  assert.equal(out.trim(), "2\nok");
});
