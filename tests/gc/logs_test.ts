import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { LogRotator, rotationTimestamp } from "../../src/gc/mod.ts";
import { nullLogger } from "../../src/util/log.ts";
import { NODE, setup } from "./_fixtures.ts";

async function files(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("log rotation: rename with a timestamp, compress older files, keep maxFiles, reopen", async () => {
  const { cri, clock } = setup();
  const dir = await Deno.makeTempDir({ prefix: "denolet-logrot-" });
  try {
    const sb = await cri.runPodSandbox({
      metadata: { name: "p", uid: "u1", namespace: "default", attempt: 0 },
      logDirectory: dir,
      labels: { "io.denolet.node-name": NODE },
    });
    const id = await cri.createContainer(sb, {
      metadata: { name: "c", attempt: 0 },
      image: { image: "busybox" },
      logPath: "c/0.log",
      labels: { "io.denolet.node-name": NODE },
    }, { metadata: { name: "p", uid: "u1", namespace: "default", attempt: 0 }, logDirectory: dir });
    await cri.startContainer(id);
    await Deno.mkdir(`${dir}/c`);
    const log = `${dir}/c/0.log`;
    const rot = new LogRotator({ runtime: cri, clock, logger: nullLogger, nodeName: NODE });
    const policy = { maxSizeBytes: 100, maxFiles: 3 };

    await Deno.writeTextFile(log, "small\n");
    await rot.rotateAll(policy);
    assert.deepEqual(await files(`${dir}/c`), ["0.log"], "under the limit nothing happens");

    const stamps: string[] = [];
    for (let i = 0; i < 4; i++) {
      await Deno.writeTextFile(log, `round ${i} `.repeat(20));
      stamps.push(rotationTimestamp(clock.now()));
      await rot.rotateAll(policy);
      // The runtime would recreate the file on reopen; the fake does not.
      await Deno.writeTextFile(log, "");
      clock.advance(1000);
    }
    // maxFiles 3: the current log, the newest rotation (plain) and one older one (gzipped).
    assert.deepEqual(await files(`${dir}/c`), [
      "0.log",
      `0.log.${stamps[2]}.gz`,
      `0.log.${stamps[3]}`,
    ]);
    const gz = await Deno.readFile(`${dir}/c/0.log.${stamps[2]}.gz`);
    assert.equal(new TextDecoder().decode(gunzipSync(gz)), "round 2 ".repeat(20));
    assert.equal(cri.callsTo("reopenContainerLog").length, 4);
    assert.equal(stamps[0], "20260101-000000");

    // A failed reopen puts the log back.
    await Deno.writeTextFile(log, "x".repeat(200));
    cri.failNext("reopenContainerLog");
    await rot.rotateAll(policy);
    assert.equal((await Deno.stat(log)).size, 200);

    // A log that vanished (reopen failed after the rename upstream) is reopened.
    await Deno.remove(log);
    await rot.rotateAll(policy);
    assert.equal(cri.callsTo("reopenContainerLog").length, 6);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("rotation timestamps use the Go layout 20060102-150405", () => {
  assert.equal(rotationTimestamp(Date.UTC(2024, 1, 3, 4, 5, 6)), "20240203-040506");
});
