import assert from "node:assert/strict";
import type { V1Pod } from "@kubernetes/client-node";
import { nullLogger } from "../../src/util/log.ts";
import { ownedMode, podFsUser, setVolumeOwnership } from "../../src/volumes/_ownership.ts";

const isRoot = Deno.uid() === 0;
const lmode = async (p: string) => (await Deno.lstat(p)).mode! & 0o7777;
const gid = async (p: string) => (await Deno.lstat(p)).gid;

Deno.test("ownedMode adds group read (and write when writable), and search and setgid on dirs", () => {
  assert.equal(ownedMode(0o400, { readOnly: true, dir: false }), 0o440);
  assert.equal(ownedMode(0o644, { readOnly: true, dir: false }), 0o644);
  assert.equal(ownedMode(0o600, { readOnly: false, dir: false }), 0o660);
  assert.equal(ownedMode(0o755, { readOnly: true, dir: true }), 0o2755);
  assert.equal(ownedMode(0o700, { readOnly: false, dir: true }), 0o2770);
  // Special bits already there stay.
  assert.equal(ownedMode(0o1777, { readOnly: false, dir: true }), 0o3777);
});

Deno.test({
  name:
    "setVolumeOwnership walks the volume: group everywhere, modes on files and dirs, not through links (root only)",
  ignore: !isRoot,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "denolet-own-" });
    const outside = await Deno.makeTempFile({ prefix: "denolet-own-outside-" });
    try {
      await Deno.chmod(dir, 0o777);
      await Deno.mkdir(`${dir}/sub/deeper`, { recursive: true });
      await Deno.chmod(`${dir}/sub`, 0o700);
      await Deno.writeTextFile(`${dir}/sub/deeper/f`, "x");
      await Deno.chmod(`${dir}/sub/deeper/f`, 0o400);
      await Deno.chmod(outside, 0o600);
      await Deno.symlink(outside, `${dir}/link`);

      await setVolumeOwnership(dir, { fsGroup: 4321, readOnly: false }, { logger: nullLogger });

      for (const p of [dir, `${dir}/sub`, `${dir}/sub/deeper`, `${dir}/sub/deeper/f`]) {
        assert.equal(await gid(p), 4321, p);
      }
      assert.equal(await lmode(dir), 0o2777);
      assert.equal(await lmode(`${dir}/sub`), 0o2770);
      assert.equal(await lmode(`${dir}/sub/deeper/f`), 0o660);
      // The link's own group changes; what it points to is left alone.
      assert.equal(await gid(`${dir}/link`), 4321);
      assert.equal((await Deno.stat(outside)).gid, 0);
      assert.equal((await Deno.stat(outside)).mode! & 0o7777, 0o600);
    } finally {
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(outside);
    }
  },
});

Deno.test("podFsUser is the one runAsUser every container runs as, container over pod", () => {
  const pod = (
    podUser: number | undefined,
    users: (number | undefined)[],
    init: (number | undefined)[] = [],
  ): V1Pod => ({
    spec: {
      securityContext: podUser === undefined ? {} : { runAsUser: podUser },
      initContainers: init.map((u, i) => ({
        name: `i${i}`,
        securityContext: u === undefined ? undefined : { runAsUser: u },
      })),
      containers: users.map((u, i) => ({
        name: `c${i}`,
        securityContext: u === undefined ? undefined : { runAsUser: u },
      })),
    },
  });
  assert.equal(podFsUser(pod(1000, [undefined, undefined])), 1000);
  assert.equal(podFsUser(pod(undefined, [1000, 1000])), 1000);
  assert.equal(podFsUser(pod(0, [1000, 1000])), 1000);
  assert.equal(podFsUser(pod(undefined, [1000, undefined])), undefined);
  assert.equal(podFsUser(pod(undefined, [1000, 2000])), undefined);
  assert.equal(podFsUser(pod(1000, [undefined], [2000])), undefined);
  assert.equal(podFsUser(pod(undefined, [])), undefined);
});
